import type { Sample } from '../../../metrics/metric-defs.js';
import type { PeersValue } from './value.js';
import { bit, sample } from '../../sample.js';

/** Quantiles exported of the peers' view of this node's uptime. */
export const OBSERVED_UPTIME_QUANTILES = [0.1, 0.5, 0.9] as const;

/**
 * Peer counts → samples. Versions, chains and peers that vanish simply stop
 * being emitted. The benched list and the stake view are emitted only when
 * the poll computed them (they need the watched ids and the validator set).
 */
export function collectPeers(v: PeersValue, node: string): Sample[] {
  const out: Sample[] = [sample('avax_node_peers', { node }, v.numPeers)];
  for (const [version, n] of Object.entries(v.byVersion)) out.push(sample('avax_node_peers_by_version', { node, version }, n));
  for (const [upgradeTime, n] of Object.entries(v.byUpgradeTime ?? {}))
    out.push(sample('avax_node_peers_by_upgrade_time', { node, upgrade_time: upgradeTime }, n));
  for (const [chain, n] of Object.entries(v.benchedByChain)) out.push(sample('avax_node_peers_benched', { node, chain }, n));
  if (v.benched) {
    for (const p of v.benched.peers) for (const chain of p.chains) out.push(sample('avax_node_peer_benched', { node, peer_node_id: p.nodeId, chain }, 1));
    // Always present (0 when nothing is left out), so "the list is complete" is a query, not an absence.
    out.push(sample('avax_node_peers_benched_omitted', { node }, v.benched.omitted));
  }
  for (const w of v.benchedWatched ?? []) out.push(sample('avax_validator_benched_chains', { node, node_id: w.nodeId }, w.chains));
  for (const q of v.observedUptimeByPeers ?? [])
    out.push(sample('avax_node_peers_observed_uptime_ratio', { node, peer_quantile: String(q.quantile) }, q.ratio));
  for (const s of v.stakeShares ?? []) out.push(sample('avax_validator_stake_share_ratio', { node, node_id: s.nodeId }, s.ratio));
  for (const q of v.observedUptimeByStake ?? [])
    out.push(sample('avax_node_stake_observed_uptime_ratio', { node, stake_quantile: String(q.quantile) }, q.ratio));
  const vs = v.versionStake;
  if (vs) {
    for (const [version, r] of Object.entries(vs.ratioByVersion)) out.push(sample('avax_network_stake_by_version_ratio', { node, version }, r));
    out.push(sample('avax_network_stake_majority_version_info', { node, version: vs.majorityVersion }, 1));
    if (vs.behindMajority !== undefined) out.push(sample('avax_node_version_behind_stake_majority', { node }, bit(vs.behindMajority)));
  }
  return out;
}
