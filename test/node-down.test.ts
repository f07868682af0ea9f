import { describe, expect, it } from 'vitest';
import type { Fault } from './fakes/fake-node.js';
import { eventually, perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

/**
 * A node that goes away: whatever the reason its round fails (connection
 * refused, reset, no answer, another network), every one of its sources is
 * down in that round, and none of its values outlives the max age counted
 * from its last good round, even a source polled less often (info.peers).
 */
describe('a node that goes away', () => {
  const { fakeNode, daemonFor } = perTestResources();

  const ways: { name: string; reason: string; fail: (node: Awaited<ReturnType<typeof fakeNode>>) => Promise<void> }[] = [
    { name: 'stops listening (connection refused)', reason: 'connect', fail: (node) => node.stop() },
    { name: 'resets every connection', reason: 'connect', fail: (node) => Promise.resolve(node.setFault('*', { kind: 'reset' } satisfies Fault)) },
    { name: 'hangs', reason: 'timeout', fail: (node) => Promise.resolve(node.setFault('*', { kind: 'hang' } satisfies Fault)) },
    {
      name: 'comes back on another network',
      reason: 'network_mismatch',
      fail: (node) => {
        node.state.networkId = 5;
        return Promise.resolve();
      },
    },
  ];

  for (const way of ways) {
    it(`${way.name}: every source is down and its peers are not served past the max age`, async () => {
      const node = await fakeNode();
      // info.peers is due only every 30 s: without the node-wide rule its series would stay for 30 s + the max age.
      const { daemon } = await daemonFor({
        nodes: [{ name: 'n', url: node.url }],
        poll: { interval: '200ms', timeout: '180ms', max_age: '600ms', peers_interval: '30s' },
      });
      await waitUntilAllUp(daemon);
      let text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_peers', { node: 'n' })).toBe(3);
      const sources = seriesOf(text, 'avax_source_up', { node: 'n' }).map((s) => s.labels['source'] ?? '');
      expect(sources).toContain('peers');

      const failedAt = Date.now();
      await way.fail(node);
      // The first failed round: every source of the node down, peers (not due) included, for the node's reason.
      await eventually(async () => {
        text = await scrape(daemon);
        return seriesOf(text, 'avax_source_up', { node: 'n' }).every((s) => s.value === 0);
      }, 3_000);
      for (const source of sources) {
        expect(valueOf(text, 'avax_source_up', { node: 'n', source })).toBe(0);
        expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'n', source, reason: way.reason })).toBeGreaterThan(0);
      }
      // Then, within the max age of the last good round (plus a round of slack), no value of the node is left.
      await eventually(async () => {
        text = await scrape(daemon);
        return valueOf(text, 'avax_node_peers', { node: 'n' }) === undefined && valueOf(text, 'avax_chain_height', { node: 'n', chain: 'P' }) === undefined;
      }, 3_000);
      expect(Date.now() - failedAt).toBeLessThan(600 + 200 + 1_500);
      expect(seriesOf(text, 'avax_node_peers_by_version', { node: 'n' })).toHaveLength(0);
      expect(seriesOf(text, 'avax_node_health_check_passing', { node: 'n' })).toHaveLength(0);
      // The self-metrics stay: they are how the outage shows.
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'peers' })).toBe(0);
    });
  }

  it('a source failing on its own (the node answers) does not take the others down', async () => {
    const node = await fakeNode();
    node.setFault('info.uptime', { kind: 'status', status: 502 });
    const { daemon } = await daemonFor({
      nodes: [{ name: 'n', url: node.url }],
      poll: { interval: '200ms', timeout: '180ms', max_age: '600ms', peers_interval: '30s' },
    });
    await eventually(async () => valueOf(await scrape(daemon), 'avax_source_up', { node: 'n', source: 'peers' }) === 1, 3_000);
    await testHandle(daemon).waitForRounds(5);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'uptime' })).toBe(0);
    expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'peers' })).toBe(1);
    // Five rounds (1 s) after its one call, info.peers' value is still served: the node answers.
    expect(valueOf(text, 'avax_node_peers', { node: 'n' })).toBe(3);
  });
});
