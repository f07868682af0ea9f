import { describe, expect, it } from 'vitest';
import { testHandle } from './daemon.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from '../test/helpers/daemon.js';

const { fakeNode, daemonFor } = perTestResources();

describe('the daemon as the CLI and operators see it', () => {
  it('carries only url, port, reload, stop, ready and exposition; the test hooks are on a separate handle', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
    expect(Object.keys(daemon).sort()).toEqual(['exposition', 'port', 'ready', 'reload', 'stop', 'url']);
    const hooks = testHandle(daemon);
    await waitUntilAllUp(daemon);
    expect(hooks.pollers.map((p) => p.name)).toEqual(['n']);
    expect(hooks.store.all().every((s) => s.node === 'n')).toBe(true);
    node.state.heights.P += 5n;
    await hooks.pollNow();
    expect(valueOf(await scrape(daemon), 'avax_chain_height', { node: 'n', chain: 'P' })).toBe(Number(node.state.heights.P));
  });

  it("counts a round its own busy loop held past the timeout as an extension, not as the node's timeout (src/http/round-deadline.ts)", async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '2s', timeout: '500ms' } });
    const hooks = testHandle(daemon);
    await waitUntilAllUp(daemon);
    const timeouts = (text: string) => seriesOf(text, 'avax_source_poll_failures_total', { reason: 'timeout' }).reduce((n, s) => n + s.value, 0);
    const before = await scrape(daemon);
    const extended = valueOf(before, 'avax_exporter_poll_deadline_extensions_total') ?? NaN;
    const round = hooks.pollNow();
    // The round's requests are out; the process has something else to do for longer than the timeout.
    const end = Date.now() + 1_200;
    let spins = 0;
    while (Date.now() < end) spins++;
    await round;
    expect(spins).toBeGreaterThan(0);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_exporter_poll_deadline_extensions_total')).toBeGreaterThanOrEqual(extended + 1);
    expect(
      hooks.store
        .all()
        .filter((s) => s.up !== true)
        .map((s) => s.source),
    ).toEqual([]);
    expect(timeouts(text)).toBe(timeouts(before));
  });

  it('has no handle for an object startDaemon did not return', () => {
    expect(() => testHandle({})).toThrow('not a daemon started by startDaemon');
  });
});
