/**
 * The info.peers reduction on edge cases its allocation-light loops must keep
 * as they were: a chain listed twice by one peer, a watched id listed twice
 * (the last entry counts), versions checked once per distinct string,
 * upgrade times counted by number, and the observed-uptime quantiles kept
 * in the value instead of every peer's figure.
 */
import { describe, expect, it } from 'vitest';
import { collectPeers } from '../src/sources/node/peers/collect.js';
import { benchedPeersFrom, peersValueFrom, versionStakeFrom, watchedBenchedFrom, OTHER } from '../src/sources/node/peers/index.js';

const CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';

describe('info.peers reduction', () => {
  const peers = [
    { nodeID: 'NodeID-A', version: 'avalanchego/1.14.2', benched: ['C', 'C', CHAIN], observedUptime: 90, upgradeTime: 1_763_568_000 },
    { nodeID: 'NodeID-B', version: 'avalanchego/1.14.2', benched: [], observedUptime: 10, upgradeTime: 1_700_000_040 },
    { nodeID: 'NodeID-C', version: 'not a version', benched: null, observedUptime: 50, upgradeTime: 1_763_568_000 },
    { nodeID: 'NodeID-D', version: 'avalanchego/1.14.1', benched: ['bad id'], observedUptime: 100 },
    { nodeID: 'NodeID-A', version: 'avalanchego/1.14.2', benched: ['X'] },
  ];

  it('counts each chain once per peer, versions and upgrade times as before, and keeps only the uptime quantiles', () => {
    const v = peersValueFrom({ numPeers: peers.length, peers });
    expect(v.byVersion).toEqual({ 'avalanchego/1.14.2': 3, 'avalanchego/1.14.1': 1, [OTHER]: 1 });
    expect(v.benchedByChain).toEqual({ C: 1, [CHAIN]: 1, X: 1, [OTHER]: 1 });
    expect(v.byUpgradeTime).toEqual({ '1763568000': 2, '1700000040': 1 });
    expect(v.observedUptimeByPeers).toEqual([
      { quantile: 0.1, ratio: 0.1 },
      { quantile: 0.5, ratio: 0.5 },
      { quantile: 0.9, ratio: 1 },
    ]);
    expect(collectPeers(v, 'n').filter((s) => s.name === 'avax_node_peers_observed_uptime_ratio')).toEqual([
      { name: 'avax_node_peers_observed_uptime_ratio', labels: { node: 'n', peer_quantile: '0.1' }, value: 0.1 },
      { name: 'avax_node_peers_observed_uptime_ratio', labels: { node: 'n', peer_quantile: '0.5' }, value: 0.5 },
      { name: 'avax_node_peers_observed_uptime_ratio', labels: { node: 'n', peer_quantile: '0.9' }, value: 1 },
    ]);
    expect(peersValueFrom({ numPeers: 0, peers: [] }).observedUptimeByPeers).toBeUndefined();
  });

  it('lists benched peers with their chains deduplicated and sorted, skipping peers benched nowhere', () => {
    expect(benchedPeersFrom(peers, new Set(), undefined)).toEqual({
      peers: [
        { nodeId: 'NodeID-A', chains: [CHAIN, 'C'] },
        { nodeId: 'NodeID-D', chains: [OTHER] },
        { nodeId: 'NodeID-A', chains: ['X'] },
      ],
      omitted: 0,
    });
  });

  it('counts the chains of a watched id from its last entry, 0 for an id not connected, each id once', () => {
    expect(watchedBenchedFrom(peers, ['NodeID-A', 'NodeID-Z', 'NodeID-A', 'NodeID-D'])).toEqual([
      { nodeId: 'NodeID-A', chains: 1 },
      { nodeId: 'NodeID-Z', chains: 0 },
      { nodeId: 'NodeID-D', chains: 1 },
    ]);
    expect(watchedBenchedFrom(peers, [])).toEqual([]);
  });

  it('splits the connected stake by version, an invalid version under other, each node once', () => {
    const stake = new Map([
      ['NodeID-A', 30n],
      ['NodeID-B', 10n],
      ['NodeID-C', 20n],
      ['NodeID-D', 40n],
    ]);
    expect(versionStakeFrom(peers, stake, undefined)).toEqual({
      ratioByVersion: { 'avalanchego/1.14.2': 0.4, 'avalanchego/1.14.1': 0.4, [OTHER]: 0.2 },
      majorityVersion: 'avalanchego/1.14.2',
    });
  });
});
