/**
 * Peer-reported values as labels (issue 23, point 4): a hostile peer list
 * (every peer with its own version, upgrade time and benched chains, and
 * garbage among them) makes a bounded number of series: versions validated
 * and the top MAX_PEER_LABEL_VALUES kept, upgrade times those the network
 * defines plus a few plausible unknown ones, benched chains validated and
 * bounded; the rest under `other`, so the counts still add up.
 */
import { describe, expect, it } from 'vitest';
import { fixtureValidatorFor, generatePeers } from '../fakes/fake-data.js';
import {
  MAX_BENCHED_PEERS,
  MAX_PEER_LABEL_VALUES,
  MAX_UNKNOWN_UPGRADE_TIMES,
  OTHER,
  peersValueFrom,
  validPeerVersion,
} from '../../src/sources/node/peers/index.js';
import { perTestResources, scrape, seriesOf, waitUntilAllUp } from '../helpers/daemon.js';

const { fakeNode, daemonFor } = perTestResources();

/** A CB58-looking chain id, distinct per `i`. */
const chainId = (i: number) => `${String(i).padStart(6, '2')}${'z'.repeat(44)}`.replace(/0/g, 'a');

describe('a hostile peer list', () => {
  it('3,000 peers with distinct versions, upgrade times and benched chains make at most the stated number of series', async () => {
    const node = await fakeNode();
    const peers = generatePeers(3_000, 23);
    const graniteish = peers[0]?.upgradeTime ?? 0;
    peers.forEach((p, i) => {
      // A third garbage (quotes, newlines, a huge string), the rest well-formed but all different.
      p.version = i % 3 === 0 ? `evil"\n{version=${i}}${'x'.repeat(i % 100)}` : `avalanchego/1.${i}.0`;
      // Distinct upgrade times: whole minutes (plausible) and odd seconds (not).
      p.upgradeTime = graniteish + (i % 2 === 0 ? i * 60 : i * 61 + 1);
      p.benched = [chainId(i), chainId(i + 1), `bad chain ${i}`];
    });
    // Enough of them validators that the stake view sees many versions too.
    for (const p of peers.slice(0, 300)) node.state.primaryValidators.push(fixtureValidatorFor(p.nodeId, 1_000_000_000_000n + BigInt(p.nodeId.length)));
    node.state.peers = peers;
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);

    const byVersion = seriesOf(text, 'avax_node_peers_by_version', { node: 'n' });
    expect(byVersion.length).toBeLessThanOrEqual(MAX_PEER_LABEL_VALUES + 1);
    expect(byVersion.reduce((a, s) => a + s.value, 0)).toBe(3_000);
    expect(byVersion.find((s) => s.labels['version'] === OTHER)?.value).toBeGreaterThanOrEqual(1_000);
    for (const s of byVersion) expect(s.labels['version'] === OTHER || validPeerVersion(s.labels['version'] ?? '')).toBe(true);

    const byTime = seriesOf(text, 'avax_node_peers_by_upgrade_time', { node: 'n' });
    // The node's own schedule (the fake's info.upgrades) plus at most four plausible unknown times, plus `other`.
    const scheduled = Object.keys(node.state.upgrades ?? {}).length;
    expect(byTime.length).toBeLessThanOrEqual(Math.min(MAX_PEER_LABEL_VALUES, scheduled + MAX_UNKNOWN_UPGRADE_TIMES) + 1);
    expect(byTime.reduce((a, s) => a + s.value, 0)).toBe(3_000);
    for (const s of byTime) if (s.labels['upgrade_time'] !== OTHER) expect(Number(s.labels['upgrade_time']) % 60).toBe(0);

    const benched = seriesOf(text, 'avax_node_peers_benched', { node: 'n' });
    expect(benched.length).toBeLessThanOrEqual(MAX_PEER_LABEL_VALUES + 1);
    expect(benched.some((s) => s.labels['chain']?.includes(' '))).toBe(false);
    const perPeer = seriesOf(text, 'avax_node_peer_benched', { node: 'n' });
    expect(perPeer.length).toBeLessThanOrEqual(MAX_BENCHED_PEERS * (MAX_PEER_LABEL_VALUES + 1));

    const byStake = seriesOf(text, 'avax_network_stake_by_version_ratio', { node: 'n' });
    expect(byStake.length).toBeGreaterThan(0);
    expect(byStake.length).toBeLessThanOrEqual(MAX_PEER_LABEL_VALUES + 1);
    expect(byStake.reduce((a, s) => a + s.value, 0)).toBeCloseTo(1, 6);

    // What docs/security.md states: the peers source's label sets stay under 1,000 series per node whatever peers say.
    const peerSeries = [
      'avax_node_peers_by_version',
      'avax_node_peers_by_upgrade_time',
      'avax_node_peers_benched',
      'avax_node_peer_benched',
      'avax_network_stake_by_version_ratio',
    ];
    expect(peerSeries.reduce((a, m) => a + seriesOf(text, m, { node: 'n' }).length, 0)).toBeLessThan(1_000);
  }, 30_000);

  it('upgrade times: the network’s own are kept however rare; unknown ones only the four most common plausible', () => {
    const schedule = [1_700_000_000 - (1_700_000_000 % 60), 1_750_000_000 - (1_750_000_000 % 60)];
    const peers = [
      ...Array.from({ length: 2 }, (_, i) => ({ nodeID: `a${i}`, version: 'avalanchego/1.14.2', upgradeTime: schedule[0] })),
      ...Array.from({ length: 30 }, (_, i) => ({
        nodeID: `b${i}`,
        version: 'avalanchego/1.14.2',
        upgradeTime: 1_800_000_000 + (i % 6) * 60 + (i < 6 ? 0 : 0),
      })),
      { nodeID: 'c', version: 'avalanchego/1.14.2', upgradeTime: 1_800_000_007 },
    ];
    const v = peersValueFrom({ numPeers: peers.length, peers }, schedule);
    const keys = Object.keys(v.byUpgradeTime ?? {});
    expect(keys).toContain(String(schedule[0]));
    expect(keys.filter((k) => k !== OTHER && !schedule.map(String).includes(k))).toHaveLength(MAX_UNKNOWN_UPGRADE_TIMES);
    expect(v.byUpgradeTime?.[OTHER]).toBe(30 - 4 * 5 + 1);
  });
});
