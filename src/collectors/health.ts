import type { Sample } from '../exposition/metric-defs.js';
import type { HealthValue } from '../sources/health.js';
import { bit, sample } from './sample.js';

/**
 * Health endpoints, every health check and, for chain checks, the stake
 * connected and the validators not connected → samples.
 */
export function collectHealth(v: HealthValue, node: string): Sample[] {
  const out: Sample[] = [
    sample('avax_node_healthy', { node }, bit(v.healthy)),
    sample('avax_node_ready', { node }, bit(v.ready)),
    sample('avax_node_live', { node }, bit(v.live)),
    sample('avax_node_partial_sync', { node }, bit(v.partialSync)),
  ];
  for (const c of v.checks) {
    const labels = { node, check: c.name };
    out.push(sample('avax_node_health_check_passing', labels, bit(c.passing)));
    out.push(sample('avax_node_health_check_contiguous_failures', labels, c.contiguousFailures));
    if (!c.passing && c.failingSince !== undefined) {
      out.push(sample('avax_node_health_check_failing_since_timestamp_seconds', labels, c.failingSince));
    }
  }
  for (const n of v.networking ?? []) {
    const labels = { node, chain: n.chain };
    if (n.connectedStakeRatio !== undefined) out.push(sample('avax_node_connected_stake_ratio', labels, n.connectedStakeRatio));
    if (n.disconnectedCount !== undefined) out.push(sample('avax_node_disconnected_validators', labels, n.disconnectedCount));
    for (const w of n.watched) out.push(sample('avax_validator_disconnected', { node, node_id: w.nodeId, chain: n.chain }, bit(w.disconnected)));
  }
  return out;
}
