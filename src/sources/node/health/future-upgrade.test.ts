import { describe, expect, it } from 'vitest';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { futureUpgradeFrom, healthSource, healthValueFrom, type HealthAnswer } from './index.js';
import { peersResult, peersValueFrom, peersSource } from '../peers/index.js';
import { fixtureResult, loadFixture } from '../../../../test/helpers/fixtures.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from '../../../../test/helpers/daemon.js';

const answer = (variant?: string): HealthAnswer => {
  const f = loadFixture('node.health.GET.json', variant);
  return { ok: f.response.status === 200, body: f.response.body as HealthAnswer['body'] };
};

describe("the futureupgrade health check and the peers' upgrade times", () => {
  it('reads the fixture: the local and the stake-mode upgrade time, its share, the distinct times', () => {
    const v = healthValueFrom(answer(), answer('readiness'), answer('liveness'));
    expect(v.futureUpgrade).toEqual({
      localTime: Date.parse('2025-11-19T16:00:00Z') / 1000,
      stakeModeTime: Date.parse('2025-11-19T16:00:00Z') / 1000,
      stakeModeRatio: 0.9941236417,
      distinctTimes: 2,
    });
    const samples = healthSource.collect(v, 'n');
    const get = (name: string) => samples.find((s) => s.name === name)?.value;
    expect(get('avax_node_future_upgrade_stake_mode_ratio')).toBeCloseTo(0.9941236417, 12);
    expect(get('avax_node_future_upgrade_times')).toBe(2);
    // The node knows the upgrade most stake runs: nothing pending.
    expect(get('avax_node_future_upgrade_unknown')).toBe(0);
  });

  it('an upgrade most of the stake knows and this node does not: unknown 1; under half the stake: 0', () => {
    const check = (pct: number) => ({
      futureupgrade: {
        message: {
          localUpgradeTime: '2025-11-19T16:00:00Z',
          modeUpgradeTime: '2026-12-01T16:00:00Z',
          modeUpgradeWeightPercentage: pct,
          numUpgradeTimes: 2,
          timeUntilUpgrade: '168h0m0s',
        },
      },
    });
    const unknown = (pct: number) => {
      const fu = futureUpgradeFrom(check(pct));
      return healthSource
        .collect({ healthy: true, partialSync: false, ready: true, live: true, checks: [], ...(fu ? { futureUpgrade: fu } : {}) }, 'n')
        .find((s) => s.name === 'avax_node_future_upgrade_unknown')?.value;
    };
    expect(unknown(72.5)).toBe(1);
    expect(unknown(50)).toBe(1);
    expect(unknown(49.9)).toBe(0);
  });

  it('each field on its own: an odd value drops that series only; no details, no series', () => {
    const fu = futureUpgradeFrom({
      futureupgrade: { message: { localUpgradeTime: 'soon', modeUpgradeTime: '2026-12-01T16:00:00Z', modeUpgradeWeightPercentage: 250, numUpgradeTimes: 3 } },
    });
    expect(fu).toEqual({ localTime: undefined, stakeModeTime: Date.parse('2026-12-01T16:00:00Z') / 1000, stakeModeRatio: undefined, distinctTimes: 3 });
    expect(futureUpgradeFrom({ futureupgrade: {} })).toBeUndefined();
    expect(futureUpgradeFrom({})).toBeUndefined();
  });

  it('peers are counted per upgrade time; an odd upgradeTime drops that field, not the peer or the source', () => {
    const raw = fixtureResult('node.info.peers.json') as { numPeers: string; peers: Record<string, unknown>[] };
    const v = peersValueFrom(peersResult.parse(raw));
    expect(Object.values(v.byUpgradeTime ?? {}).reduce((a, b) => a + b, 0)).toBe(raw.peers.length);
    const odd = { ...raw, peers: raw.peers.map((p, i) => (i === 0 ? { ...p, upgradeTime: 'later' } : p)) };
    const parsed = peersResult.safeParse(odd);
    expect(parsed.success).toBe(true);
    const w = peersValueFrom(parsed.success ? parsed.data : { numPeers: 0, peers: [] });
    expect(Object.values(w.byUpgradeTime ?? {}).reduce((a, b) => a + b, 0)).toBe(raw.peers.length - 1);
    expect(peersSource.collect(w, 'n').filter((s) => s.name === 'avax_node_peers_by_upgrade_time').length).toBeGreaterThan(0);
  });

  const { fakeNode, daemonFor } = perTestResources();
  it('against the fake node: a peer on an older upgrade time shows, and so does an upgrade this node does not know', async () => {
    const node: FakeNode = await fakeNode();
    const later = Date.parse('2026-12-01T16:00:00Z') / 1000;
    const first = node.state.peers[0];
    if (!first) throw new Error('the fixture world has peers');
    first.upgradeTime = later;
    node.state.health['futureupgrade'] = {
      message: {
        localUpgradeTime: '2025-11-19T16:00:00Z',
        modeUpgradeTime: '2026-12-01T16:00:00Z',
        modeUpgradeWeightPercentage: 81.5,
        numUpgradeTimes: 2,
        timeUntilUpgrade: '168h0m0s',
      },
      timestamp: '2026-11-24T00:00:00Z',
      duration: 1000,
    };
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_node_peers_by_upgrade_time', { node: 'n', upgrade_time: String(later) })).toBe(1);
    expect(seriesOf(text, 'avax_node_peers_by_upgrade_time', { node: 'n' }).reduce((a, s) => a + s.value, 0)).toBe(node.state.peers.length);
    expect(valueOf(text, 'avax_node_future_upgrade_unknown', { node: 'n' })).toBe(1);
    expect(valueOf(text, 'avax_node_future_upgrade_stake_mode_timestamp_seconds', { node: 'n' })).toBe(later);
  });
});
