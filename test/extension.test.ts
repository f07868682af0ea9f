/**
 * The extension point's promise: a source defined in one folder
 * (test/extension-source/) and added to the registry with one line shows up
 * on /metrics (with its own HELP and TYPE), in /-/status and on the status
 * page, with nothing else touched.
 */
import { describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { CONFIGURED_NODE_SOURCES, NODE_SOURCES } from '../src/sources/index.js';
import type { SourceDef } from '../src/sources/source.js';
import { nodeIpSource } from './extension-source/index.js';
import { scrape, startTestDaemon, valueOf, waitUntilAllUp } from './helpers/daemon.js';

describe('a new source is one folder plus one registry line', () => {
  it('shows on /metrics, in /-/status and on the status page', async () => {
    const node = await FakeNode.start();
    // The one registry line.
    const registry = [...NODE_SOURCES, nodeIpSource as SourceDef<unknown>, ...CONFIGURED_NODE_SOURCES];
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }] }, { sources: registry });
    try {
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(text).toContain(
        '# HELP avax_example_node_ip_info Always 1: the public IP and port the node advertises (an example source).\n# TYPE avax_example_node_ip_info gauge\n',
      );
      expect(valueOf(text, 'avax_example_node_ip_info', { node: 'n', ip: node.state.nodeIp })).toBe(1);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'example_node_ip' })).toBe(1);
      const status = (await (await fetch(`${daemon.url}/-/status`)).json()) as { sources: { node: string; source: string; up: boolean }[] };
      expect(status.sources).toContainEqual(expect.objectContaining({ node: 'n', source: 'example_node_ip', up: true }));
      const page = await (await fetch(`${daemon.url}/`)).text();
      expect(page).toContain(`advertises ${node.state.nodeIp}`);
      expect(page).toContain('<h3>Advertised address</h3>');
    } finally {
      await daemon.stop();
      await node.stop();
    }
  });
});
