import type { Sample } from '../../../metrics/metric-defs.js';
import type { HealthValue } from './value.js';
import { bit, sample } from '../../sample.js';

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
  if (v.primaryHealthy !== undefined) out.push(sample('avax_node_primary_network_healthy', { node }, bit(v.primaryHealthy)));
  for (const subnet of v.bootstrappingSubnets ?? []) out.push(sample('avax_node_subnet_bootstrapping', { node, subnet }, 1));
  for (const c of v.checks) {
    const labels = { node, check: c.name };
    out.push(sample('avax_node_health_check_passing', labels, bit(c.passing)));
    out.push(sample('avax_node_health_check_contiguous_failures', labels, c.contiguousFailures));
    if (!c.passing && c.failingSince !== undefined) {
      out.push(sample('avax_node_health_check_failing_since_timestamp_seconds', labels, c.failingSince));
    }
  }
  const fu = v.futureUpgrade;
  if (fu) {
    if (fu.localTime !== undefined) out.push(sample('avax_node_future_upgrade_local_timestamp_seconds', { node }, fu.localTime));
    if (fu.stakeModeTime !== undefined) out.push(sample('avax_node_future_upgrade_stake_mode_timestamp_seconds', { node }, fu.stakeModeTime));
    if (fu.stakeModeRatio !== undefined) out.push(sample('avax_node_future_upgrade_stake_mode_ratio', { node }, fu.stakeModeRatio));
    if (fu.distinctTimes !== undefined) out.push(sample('avax_node_future_upgrade_times', { node }, fu.distinctTimes));
    // AvalancheGo's own rule (node/node.go): an upgrade is pending for this
    // node when most of the stake runs a later upgrade time than it knows.
    if (fu.localTime !== undefined && fu.stakeModeTime !== undefined && fu.stakeModeRatio !== undefined) {
      out.push(sample('avax_node_future_upgrade_unknown', { node }, bit(fu.localTime < fu.stakeModeTime && fu.stakeModeRatio >= 0.5)));
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
