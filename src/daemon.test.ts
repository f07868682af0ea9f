import { describe, expect, it } from 'vitest';
import { testHandle } from './daemon.js';
import { perTestResources, scrape, valueOf, waitUntilAllUp } from '../test/helpers/daemon.js';

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

  it('has no handle for an object startDaemon did not return', () => {
    expect(() => testHandle({})).toThrow('not a daemon started by startDaemon');
  });
});
