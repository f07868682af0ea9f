import type { HealthValue } from '../sources/health/index.js';
import type { ValidatorsValue } from '../sources/validators/index.js';

/** A change in what a node reports, worth one log line. */
export interface ValueChange {
  kind: 'node_unhealthy' | 'node_healthy' | 'validator_disconnected' | 'validator_connected' | 'validators_capped';
  detail: Record<string, string>;
}

function healthChanges(prev: HealthValue, next: HealthValue): ValueChange[] {
  if (prev.healthy === next.healthy) return [];
  if (next.healthy) return [{ kind: 'node_healthy', detail: {} }];
  const failing = next.checks.filter((c) => !c.passing).map((c) => c.name);
  return [{ kind: 'node_unhealthy', detail: { failing_checks: failing.join(',') } }];
}

function validatorChanges(prev: ValidatorsValue, next: ValidatorsValue): ValueChange[] {
  const before = new Map<string, boolean | undefined>();
  for (const s of prev.subnets) for (const v of s.validators) before.set(`${s.subnetId}/${v.nodeId}`, v.connected);
  const out: ValueChange[] = [];
  const omittedBefore = new Map(prev.subnets.map((s) => [s.subnetId, s.omitted]));
  for (const s of next.subnets) {
    if (s.omitted > 0 && !(omittedBefore.get(s.subnetId) ?? 0)) {
      out.push({ kind: 'validators_capped', detail: { subnet: s.subnetId, omitted: String(s.omitted), exported: String(s.validators.length) } });
    }
  }
  for (const s of next.subnets) {
    for (const v of s.validators) {
      const was = before.get(`${s.subnetId}/${v.nodeId}`);
      if (was === undefined || v.connected === undefined || was === v.connected) continue;
      out.push({ kind: v.connected ? 'validator_connected' : 'validator_disconnected', detail: { node_id: v.nodeId, subnet: s.subnetId } });
    }
  }
  return out;
}

/**
 * The changes between two successive values of a source that an operator
 * wants in the log (one line per change, not one per poll). Pure.
 */
export function describeChanges(source: string, prev: unknown, next: unknown): ValueChange[] {
  if (next === undefined) return [];
  // The cap is worth a warning on the very first poll too.
  if (prev === undefined)
    return source === 'validators' ? validatorChanges({ subnets: [] }, next as ValidatorsValue).filter((c) => c.kind === 'validators_capped') : [];
  if (source === 'health') return healthChanges(prev as HealthValue, next as HealthValue);
  if (source === 'validators') return validatorChanges(prev as ValidatorsValue, next as ValidatorsValue);
  return [];
}
