import type { Sample } from '../exposition/metric-defs.js';
import type { PeersValue } from '../sources/peers.js';
import { sample } from './sample.js';

/** Quantiles exported of the peers' view of this node's uptime. */
export const OBSERVED_UPTIME_QUANTILES = [0.1, 0.5, 0.9] as const;

/** Nearest-rank quantile of an ascending, non-empty list: the smallest value with at least q of the list at or below it. Pure. */
export function nearestRank(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1;
  return sorted[i] ?? NaN;
}

/** Peer counts → samples. Versions and chains that vanish simply stop being emitted. */
export function collectPeers(v: PeersValue, node: string): Sample[] {
  const out: Sample[] = [sample('avax_node_peers', { node }, v.numPeers)];
  for (const [version, n] of Object.entries(v.byVersion)) out.push(sample('avax_node_peers_by_version', { node, version }, n));
  for (const [chain, n] of Object.entries(v.benchedByChain)) out.push(sample('avax_node_peers_benched', { node, chain }, n));
  const seen = v.observedUptimes ?? [];
  if (seen.length > 0) {
    for (const q of OBSERVED_UPTIME_QUANTILES) out.push(sample('avax_node_peers_observed_uptime_ratio', { node, peer_quantile: String(q) }, nearestRank(seen, q)));
  }
  return out;
}
