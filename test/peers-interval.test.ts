import { describe, expect, it } from 'vitest';
import { buildConfig, DEFAULT_PEERS_INTERVAL_MS, ConfigError } from '../src/config/load.js';
import { perTestResources, scrape, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

describe('info.peers at most every poll.peers_interval', () => {
  const { fakeNode, daemonFor } = perTestResources();

  it('is asked once per interval while the other sources poll every round, and its series stay current in between', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '200ms', timeout: '180ms', peers_interval: '1s' } });
    await waitUntilAllUp(daemon);
    node.clearCalls();
    const t0 = Date.now();
    await testHandle(daemon).waitForRounds(12);
    const elapsed = Date.now() - t0;
    const count = (m: string) => node.calls.filter((c) => c.rpcMethod === m).length;
    // One getNetworkID per round; info.peers once per interval (less half a round of slack for jitter),
    // however long the rounds took on a loaded machine.
    expect(count('info.getNetworkID')).toBeGreaterThanOrEqual(12);
    expect(count('info.peers')).toBeGreaterThanOrEqual(Math.max(1, Math.floor(elapsed / 1_000) - 1));
    expect(count('info.peers')).toBeLessThanOrEqual(Math.floor(elapsed / 900) + 1);
    expect(count('info.peers')).toBeLessThan(count('info.getNetworkID') / 2);
    const text = await scrape(daemon);
    // The max age (3 x 200 ms) is stretched by the interval, so the peers series never lapse between calls.
    expect(valueOf(text, 'avax_source_max_age_seconds', { node: 'n', source: 'peers' })).toBeCloseTo(0.6 + 1, 9);
    expect(valueOf(text, 'avax_source_max_age_seconds', { node: 'n', source: 'info' })).toBeCloseTo(0.6, 9);
    for (let i = 0; i < 8; i++) {
      await testHandle(daemon).waitForRounds(1);
      expect(valueOf(await scrape(daemon), 'avax_node_peers', { node: 'n' })).toBe(3);
    }
  });

  it('a failed call is asked again in the next round, not after the interval', async () => {
    const node = await fakeNode();
    node.setFault('info.peers', { kind: 'status', status: 502 });
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '1h', timeout: '2s', peers_interval: '1h' } });
    await testHandle(daemon).waitForRounds(1);
    // Every round asks again (each ask with its retries: a 502 is worth retrying).
    for (let i = 0; i < 2; i++) {
      node.clearCalls();
      await testHandle(daemon).pollNow();
      expect(node.calls.filter((c) => c.rpcMethod === 'info.peers').length).toBeGreaterThan(0);
    }
    expect(valueOf(await scrape(daemon), 'avax_source_up', { node: 'n', source: 'peers' })).toBe(0);
    node.setFault('info.peers', undefined);
    await testHandle(daemon).pollNow();
    expect(valueOf(await scrape(daemon), 'avax_source_up', { node: 'n', source: 'peers' })).toBe(1);
    node.clearCalls();
    await testHandle(daemon).pollNow();
    await testHandle(daemon).pollNow();
    expect(node.calls.filter((c) => c.rpcMethod === 'info.peers')).toHaveLength(0);
    expect(node.calls.filter((c) => c.rpcMethod === 'info.getNetworkID')).toHaveLength(2);
    expect(valueOf(await scrape(daemon), 'avax_node_peers', { node: 'n' })).toBe(3);
  });

  it('is configured by file, flag or variable, 1m by default, 0s for every round', () => {
    expect(DEFAULT_PEERS_INTERVAL_MS).toBe(60_000);
    expect(buildConfig({}).poll.peersIntervalMs).toBe(60_000);
    expect(buildConfig({ poll: { peers_interval: '0s' } }).poll.peersIntervalMs).toBe(0);
    expect(buildConfig({ poll: { peers_interval: '5m' } }).poll.peersIntervalMs).toBe(300_000);
    expect(() => buildConfig({ poll: { peers_interval: 'often' } })).toThrow(ConfigError);
    expect(() => buildConfig({ poll: { peers_interval: 'often' } })).toThrow(/poll\.peers_interval/);
  });
});
