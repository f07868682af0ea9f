import { describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { defaultFakeState, FIXTURE_IDS } from './fakes/fake-data.js';
import { observedOutage, restartedAfterOutage } from './fakes/real-modes.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';

const PRIMARY = '11111111111111111111111111111111LpoYY';

describe('which validators the operator watches (avax_validator_watched)', () => {
  const { daemonFor } = perTestResources();
  const run = async (state: ReturnType<typeof defaultFakeState>, watch: Record<string, unknown>, check: (text: string) => void): Promise<void> => {
    const node = await FakeNode.start({ state });
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch }] });
      await waitUntilAllUp(daemon);
      check(await scrape(daemon));
    } finally {
      await node.stop();
    }
  };

  it("by default: the node's own id, because it validates", async () => {
    await run(defaultFakeState(), {}, (text) => {
      expect(seriesOf(text, 'avax_validator_watched', { node: 'n' }).map((s) => s.labels['node_id'])).toEqual([FIXTURE_IDS.nodeId]);
    });
  });

  it('by default on an RPC node that does not validate: nothing is watched (active 0 stays, for dashboards)', async () => {
    const state = defaultFakeState();
    state.primaryValidators = state.primaryValidators.filter((v) => v.nodeId !== state.nodeId);
    state.uptime = null;
    await run(state, {}, (text) => {
      expect(seriesOf(text, 'avax_validator_watched', { node: 'n' })).toHaveLength(0);
      expect(valueOf(text, 'avax_validator_active', { node: 'n', node_id: FIXTURE_IDS.nodeId, subnet: PRIMARY })).toBe(0);
      expect(valueOf(text, 'avax_node_is_validator', { node: 'n' })).toBe(0);
    });
  });

  it('explicit ids are watched whether or not they validate; strangers from --watch.all-validators are not', async () => {
    const absent = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
    await run(defaultFakeState(), { node_ids: [FIXTURE_IDS.nodeId, absent], all_validators: true }, (text) => {
      expect(
        seriesOf(text, 'avax_validator_watched', { node: 'n' })
          .map((s) => s.labels['node_id'])
          .sort(),
      ).toEqual([FIXTURE_IDS.nodeId, absent].sort());
      expect(seriesOf(text, 'avax_validator_active', { node: 'n', subnet: PRIMARY }).length).toBeGreaterThan(2);
    });
  });
});

describe('a validator restarted after hours offline (snow/uptime credits the offline time to itself)', () => {
  const { daemonFor } = perTestResources();
  it('its own view stays near 100 % and connected; info.uptime and its peers show the outage; another node sees it too', async () => {
    const now = Math.floor(Date.now() / 1000);
    const restarted = restartedAfterOutage(defaultFakeState(), 30 * 86400, now);
    const self = restarted.primaryValidators.find((v) => v.nodeId === restarted.nodeId);
    if (!self) throw new Error('fixture');
    const observer = observedOutage(defaultFakeState(), FIXTURE_IDS.nodeId, 30 * 86400, false, now);
    observer.nodeId = 'NodeID-8PYXX47kqLDe2wD4oPbvRRchcnSzMA4J4';
    const a = await FakeNode.start({ state: restarted });
    const b = await FakeNode.start({ state: observer });
    try {
      const { daemon } = await daemonFor({
        nodes: [
          { name: 'self', url: a.url },
          { name: 'peer', url: b.url, watch: { node_ids: [FIXTURE_IDS.nodeId] } },
        ],
      });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      const expected = (now - self.startTime - 30 * 86400) / (now - self.startTime);
      const mine = { node_id: FIXTURE_IDS.nodeId, subnet: PRIMARY };
      expect(valueOf(text, 'avax_validator_uptime_ratio', { node: 'self', ...mine })).toBeGreaterThan(0.99);
      expect(valueOf(text, 'avax_validator_connected', { node: 'self', ...mine })).toBe(1);
      expect(valueOf(text, 'avax_node_uptime_weighted_average_ratio', { node: 'self' })).toBeCloseTo(expected, 3);
      expect(valueOf(text, 'avax_node_peers_observed_uptime_ratio', { node: 'self', peer_quantile: '0.5' })).toBeCloseTo(Math.floor(expected * 100) / 100, 6);
      expect(valueOf(text, 'avax_validator_uptime_ratio', { node: 'peer', ...mine })).toBeCloseTo(expected, 3);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
