import type { ValueChange } from '../../source.js';
import type { ValidatorsValue } from './value.js';

/**
 * A set that outgrew --watch.max-validators (worth a warning on the very
 * first poll too), and validators turning disconnected or connected: one log
 * line each. Pure.
 */
export function validatorChanges(prev: ValidatorsValue | undefined, next: ValidatorsValue): ValueChange[] {
  const out: ValueChange[] = [];
  const omittedBefore = new Map((prev?.subnets ?? []).map((s) => [s.subnetId, s.omitted]));
  for (const s of next.subnets) {
    if (s.omitted > 0 && !(omittedBefore.get(s.subnetId) ?? 0)) {
      out.push({
        kind: 'validators_capped',
        level: 'warn',
        message: 'validator set larger than --watch.max-validators: the rest are not exported',
        detail: { subnet: s.subnetId, omitted: String(s.omitted), exported: String(s.validators.length) },
      });
    }
  }
  if (prev === undefined) return out;
  const before = new Map<string, boolean | undefined>();
  for (const s of prev.subnets) for (const v of s.validators) before.set(`${s.subnetId}/${v.nodeId}`, v.connected);
  for (const s of next.subnets) {
    for (const v of s.validators) {
      const was = before.get(`${s.subnetId}/${v.nodeId}`);
      if (was === undefined || v.connected === undefined || was === v.connected) continue;
      out.push(
        v.connected
          ? { kind: 'validator_connected', level: 'info', message: 'validator connected', detail: { node_id: v.nodeId, subnet: s.subnetId } }
          : { kind: 'validator_disconnected', level: 'warn', message: 'validator disconnected', detail: { node_id: v.nodeId, subnet: s.subnetId } },
      );
    }
  }
  return out;
}
