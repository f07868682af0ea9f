import { describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { defaultFakeState } from './fakes/fake-data.js';
import { partialSyncMode } from './fakes/real-modes.js';
import { callsInOneRound, perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';

/** Runs one JSON-RPC call against the fake and returns the parsed body. */
async function rpc(url: string, path: string, method: string, params: unknown = {}): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

describe('a partial-sync node (--partial-sync-primary-network)', () => {
  const { daemonFor } = perTestResources();
  const partialNode = (): Promise<FakeNode> => FakeNode.start({ state: partialSyncMode(defaultFakeState()) });

  it('the fake behaves as AvalancheGo: no X or C routes, isBootstrapped false for them, a `validation` check', async () => {
    const node = await partialNode();
    try {
      expect((await fetch(`${node.url}/ext/bc/X`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
      expect((await fetch(`${node.url}/ext/bc/C/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
      expect((await rpc(node.url, '/ext/info', 'info.isBootstrapped', { chain: 'X' })).result).toEqual({ isBootstrapped: false });
      expect((await rpc(node.url, '/ext/info', 'info.isBootstrapped', { chain: 'P' })).result).toEqual({ isBootstrapped: true });
      expect((await rpc(node.url, '/ext/bc/P', 'platform.getHeight')).result).toEqual({ height: expect.any(String) as unknown });
      const health = (await (await fetch(`${node.url}/ext/health`)).json()) as {
        checks: Record<string, { message?: unknown; error?: unknown }>;
        healthy: boolean;
      };
      expect(Object.keys(health.checks)).toContain('validation');
      expect(Object.keys(health.checks)).not.toContain('X');
      expect(Object.keys(health.checks)).not.toContain('C');
      expect(health.checks['validation']?.message).toBe('node is not a primary network validator');
      expect(health.healthy).toBe(true);
    } finally {
      await node.stop();
    }
  });

  it('is exported as partial sync, every source is up, only the chains it runs are reported, X and C are never asked', async () => {
    const node = await partialNode();
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_partial_sync', { node: 'n' })).toBe(1);
      for (const s of seriesOf(text, 'avax_source_up', { node: 'n' })) expect(s.value, s.labels['source']).toBe(1);
      expect(seriesOf(text, 'avax_node_bootstrapped', { node: 'n' }).map((s) => [s.labels['chain'], s.value])).toEqual([['P', 1]]);
      expect(seriesOf(text, 'avax_chain_height', { node: 'n' }).map((s) => s.labels['chain'])).toEqual(['P']);
      const count = await callsInOneRound(node, daemon);
      expect(count('avm.getHeight')).toBe(0);
      expect(count('eth_blockNumber')).toBe(0);
      expect(count('platform.getHeight')).toBe(1);
    } finally {
      await node.stop();
    }
  });

  it('while its health report fails, bootstrapped asks P alone, not X and C (which would say false forever)', async () => {
    const node = await partialNode();
    try {
      node.failCheck('bootstrapped', 'subnets not bootstrapped');
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const count = await callsInOneRound(node, daemon);
      expect(count('info.isBootstrapped')).toBe(1);
      const text = await scrape(daemon);
      expect(seriesOf(text, 'avax_node_bootstrapped', { node: 'n' }).map((s) => s.labels['chain'])).toEqual(['P']);
    } finally {
      await node.stop();
    }
  });

  it('configured on a primary-network validator, the `validation` check fails and the node is unhealthy', async () => {
    const node = await FakeNode.start({ state: partialSyncMode(defaultFakeState(), { primaryValidator: true }) });
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_partial_sync', { node: 'n' })).toBe(1);
      expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_health_check_passing', { node: 'n', check: 'validation' })).toBe(0);
    } finally {
      await node.stop();
    }
  });

  it('a full node is not partial sync and reports P, X and C', async () => {
    const node = await FakeNode.start();
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_partial_sync', { node: 'n' })).toBe(0);
      expect(
        seriesOf(text, 'avax_chain_height', { node: 'n' })
          .map((s) => s.labels['chain'])
          .sort(),
      ).toEqual(['C', 'P', 'X']);
    } finally {
      await node.stop();
    }
  });
});
