import type { ValueChange } from '../../source.js';
import type { BlockchainStatusValue } from './value.js';

/**
 * A chain of a watched subnet changing status on the node: one log line
 * each, a warning when it stops Validating (the node no longer validates a
 * chain it did). Chains seen for the first time are not changes. Pure.
 */
export function blockchainStatusChanges(prev: BlockchainStatusValue | undefined, next: BlockchainStatusValue): ValueChange[] {
  if (prev === undefined) return [];
  const before = new Map(prev.chains.map((c) => [c.chain, c.status]));
  const out: ValueChange[] = [];
  for (const c of next.chains) {
    const was = before.get(c.chain);
    if (was === undefined || was === c.status) continue;
    out.push({
      kind: 'blockchain_status',
      level: was === 'Validating' ? 'warn' : 'info',
      message: `chain ${c.status === 'Validating' ? 'validating' : 'not validating'}`,
      detail: { subnet: c.subnetId, chain: c.chain, from: was, to: c.status },
    });
  }
  return out;
}
