/**
 * The extension point's promise: a source defined in one folder and added to
 * the catalog with one line shows up on /metrics (with its own HELP and
 * TYPE), in /-/status and on the status page, with nothing else touched. Both
 * families: a node source (test/extension-source/) against the fake node, and
 * a Data API source (test/extension-data-api-source/) against the fake Data
 * API.
 */
import { describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { FakeDataApi } from './fakes/fake-data-api.js';
import { CONFIGURED_NODE_SOURCES, DATA_API_SOURCES, NODE_SOURCES, type SourceCatalog } from '../src/sources/catalog.js';
import { nodeIpSource } from './extension-source/index.js';
import { validationCountSource } from './extension-data-api-source/index.js';
import type { NodeSourceDef } from '../src/sources/node/source.js';
import { testHandle } from '../src/daemon.js';
import type { NodeIpValue } from './extension-source/value.js';
import { eventually, scrape, startTestDaemon, valueOf, waitUntilAllUp } from './helpers/daemon.js';

/** The product's catalog with one line more in each family (src/sources/catalog.ts, as a fork would edit it). */
const CATALOG: SourceCatalog = {
  node: [...NODE_SOURCES, nodeIpSource, ...CONFIGURED_NODE_SOURCES],
  dataApi: [...DATA_API_SOURCES, validationCountSource],
};

describe('a new source is one folder plus one catalog line', () => {
  it('a node source shows on /metrics, in /-/status and on the status page', async () => {
    const node = await FakeNode.start();
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }] }, { sources: CATALOG });
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

  it('a Data API source shows on /metrics, in /-/status and on the status page', async () => {
    const node = await FakeNode.start();
    const api = await FakeDataApi.start();
    const { daemon } = await startTestDaemon(
      { nodes: [{ name: 'n', url: node.url }], data_api: { url: api.url, network: 'mainnet', interval: '500ms', rate_limit: 6000 } },
      { sources: CATALOG },
    );
    try {
      const nodeId = node.state.nodeId;
      const listed = api.state.validations[nodeId]?.length ?? 0;
      expect(listed).toBeGreaterThan(0);
      let text = '';
      await eventually(async () => {
        text = await scrape(daemon);
        return valueOf(text, 'avax_source_up', { node: 'data_api', source: 'example_data_api_validations' }) === 1;
      }, 10_000);
      expect(text).toContain(
        '# HELP avax_example_data_api_validations Validations the Data API lists for a watched node id (an example source).\n# TYPE avax_example_data_api_validations gauge\n',
      );
      expect(valueOf(text, 'avax_example_data_api_validations', { network: 'mainnet', node_id: nodeId })).toBe(listed);
      const status = (await (await fetch(`${daemon.url}/-/status`)).json()) as { sources: { node: string; source: string; up: boolean }[] };
      expect(status.sources).toContainEqual(expect.objectContaining({ node: 'data_api', source: 'example_data_api_validations', up: true }));
      const page = await (await fetch(`${daemon.url}/`)).text();
      expect(page).toContain('<h3>Validations the Data API lists</h3>');
      expect(page).toContain(`${nodeId}: ${listed} validations`);
    } finally {
      await daemon.stop();
      await api.stop();
      await node.stop();
    }
  });

  it("a new source's least interval holds: the daemon's pollers and max ages take it from the sources they were given", async () => {
    const node = await FakeNode.start();
    // The example source asked at most once a minute (its own hook, nothing else edited).
    const slowIpSource: NodeSourceDef<NodeIpValue> = { ...nodeIpSource, name: 'example_slow_ip', minIntervalMs: () => 60_000 };
    const catalog: SourceCatalog = { node: [...NODE_SOURCES, slowIpSource, ...CONFIGURED_NODE_SOURCES], dataApi: DATA_API_SOURCES };
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '200ms', timeout: '180ms' } }, { sources: catalog });
    try {
      await waitUntilAllUp(daemon);
      const { store } = testHandle(daemon);
      const first = store.get('n', 'example_slow_ip').lastSuccessMs;
      const info = store.get('n', 'info').lastSuccessMs;
      expect(first).toBeDefined();
      await testHandle(daemon).waitForRounds(4);
      // Not asked again within the minute, while the other sources poll every round...
      expect(store.get('n', 'example_slow_ip').lastSuccessMs).toBe(first);
      expect(store.get('n', 'info').lastSuccessMs).toBeGreaterThan(info ?? 0);
      // ...and its series stay current that much longer (max age 3 x 200 ms, stretched by the minute).
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_max_age_seconds', { node: 'n', source: 'example_slow_ip' })).toBeCloseTo(0.6 + 60, 9);
      expect(valueOf(text, 'avax_example_node_ip_info', { node: 'n', ip: node.state.nodeIp })).toBe(1);
    } finally {
      await daemon.stop();
      await node.stop();
    }
  });
});
