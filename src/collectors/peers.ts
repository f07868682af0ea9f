import type { Sample } from '../exposition/metric-defs.js';
import type { PeersValue } from '../sources/peers.js';
import { sample } from './sample.js';

/** Peer counts → samples. Versions and chains that vanish simply stop being emitted. */
export function collectPeers(v: PeersValue, node: string): Sample[] {
  const out: Sample[] = [sample('avax_node_peers', { node }, v.numPeers)];
  for (const [version, n] of Object.entries(v.byVersion)) out.push(sample('avax_node_peers_by_version', { node, version }, n));
  for (const [chain, n] of Object.entries(v.benchedByChain)) out.push(sample('avax_node_peers_benched', { node, chain }, n));
  return out;
}
