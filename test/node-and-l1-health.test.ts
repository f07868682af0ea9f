/**
 * Issue 22, points 2, 5 and 6: the node's own health apart from each L1's, an
 * L1 chain that failed to start, an L1 chain that stalls, and the bootstrap
 * state per chain; the fake node computing what AvalancheGo computes (health
 * results by tag, monotonic readiness, failed chain creation).
 */
import { describe, expect, it } from 'vitest';
import { defaultFakeState, FIXTURE_IDS, PRIMARY_NETWORK_ID } from './fakes/fake-data.js';
import type { FakeNode } from './fakes/fake-node.js';
import {
  addL1Chain,
  bootstrappingChain,
  failedChainStart,
  restartBootstrapping,
  stalledChain,
  subnetValidatorsOffline,
  untrackedSubnet,
} from './fakes/real-modes.js';
import { primaryHealthFrom } from '../src/sources/node/health/index.js';
import { l1ChainHealthFrom } from '../src/sources/node/l1-health/index.js';
import { collectL1Health } from '../src/sources/node/l1-health/collect.js';
import { nodeVitalsFrom } from '../src/sources/node/node-vitals/index.js';
import { runningChains } from '../src/sources/node/bootstrapped/index.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp, withFakeNode } from './helpers/daemon.js';
import { smallL1 } from './helpers/matrix-worlds.js';
import { testHandle } from '../src/daemon.js';

const L1 = FIXTURE_IDS.l1SubnetId;
const CHAIN = FIXTURE_IDS.l1ChainId;

type Report = { checks: Record<string, { error?: string; message?: unknown }>; healthy: boolean };
async function report(node: FakeNode, path: string): Promise<{ status: number; body: Report }> {
  const res = await fetch(`${node.url}${path}`);
  return { status: res.status, body: (await res.json()) as Report };
}
async function rpc(node: FakeNode, path: string, method: string, params: unknown): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  const res = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { message: string } };
}

const APPLICATION = ['bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'];

describe('the fake node computes health by tag, readiness and failed chain creation as AvalancheGo does', () => {
  it('?tag= returns the tagged chains plus the application-wide checks, the tag computed from the chain list (api/health/worker.go Results)', async () => {
    const s = defaultFakeState();
    const second = addL1Chain(s, L1, 'second', []);
    // Nothing lists the chains under their subnet: the fake places them from the P-Chain's chain list.
    s.healthTags = {};
    await withFakeNode(s, async (node) => {
      expect(Object.keys((await report(node, `/ext/health?tag=${PRIMARY_NETWORK_ID}`)).body.checks).sort()).toEqual([...APPLICATION, 'C', 'P', 'X'].sort());
      expect(Object.keys((await report(node, `/ext/health?tag=${L1}`)).body.checks).sort()).toEqual([...APPLICATION, CHAIN, second].sort());
      expect(Object.keys((await report(node, '/ext/health?tag=application')).body.checks).sort()).toEqual(APPLICATION);
      // Two tags: the union.
      expect(Object.keys((await report(node, `/ext/health?tag=${L1}&tag=${PRIMARY_NETWORK_ID}`)).body.checks)).toHaveLength(APPLICATION.length + 5);
    });
  });

  it('offline validators of a small L1 fail that chain check only: /ext/health 503, ?tag=<primary network> 200', async () => {
    const s = defaultFakeState();
    const others = smallL1(s, Math.floor(Date.now() / 1000));
    subnetValidatorsOffline(s, L1, [others[0] as string]);
    await withFakeNode(s, async (node) => {
      const all = await report(node, '/ext/health');
      expect(all.status).toBe(503);
      expect(all.body.checks[CHAIN]?.error).toBe('not connected to enough stake: connected to 75.000000%; required at least 80.000000%');
      expect(all.body.checks[CHAIN]?.message).toMatchObject({ networking: { percentConnected: 0.75, disconnectedValidators: [others[0]] } });
      expect((await report(node, `/ext/health?tag=${PRIMARY_NETWORK_ID}`)).status).toBe(200);
      const v = await rpc(node, `/ext/bc/${CHAIN}/validators`, 'validators.getCurrentValidators', { nodeIDs: [] });
      const listed = (v.result?.['validators'] as { nodeID: string; isConnected: boolean }[]).find((x) => x.nodeID === others[0]);
      expect(listed?.isConnected).toBe(false);
    });
  });

  it('readiness is monotonic within a process and starts over at a restart (api/health/worker.go RegisterMonotonicCheck)', async () => {
    const s = defaultFakeState();
    restartBootstrapping(s, ['C']);
    await withFakeNode(s, async (node) => {
      expect((await report(node, '/ext/health/readiness')).status).toBe(503);
      node.state.bootstrapped['C'] = true;
      expect((await report(node, '/ext/health/readiness')).status).toBe(200);
      // A chain bootstrapping again in the same process: health fails, readiness stays passed.
      bootstrappingChain(node.state, CHAIN);
      expect((await report(node, '/ext/health')).body.checks['bootstrapped']?.error).toBe('subnets not bootstrapped');
      expect((await report(node, '/ext/health/readiness')).status).toBe(200);
      // A restart: readiness must pass anew.
      restartBootstrapping(node.state);
      const r = await report(node, '/ext/health/readiness');
      expect(r.status).toBe(503);
      expect(r.body.checks['bootstrapped']?.message).toEqual([L1, PRIMARY_NETWORK_ID].sort());
    });
  });

  it('while the P-Chain bootstraps no other chain is created (chains/manager.go): no X, C or L1 check, 404, isBootstrapped false by alias and no chain by id', async () => {
    const s = defaultFakeState();
    const failing = addL1Chain(s, L1, 'second', []);
    failedChainStart(s, failing);
    restartBootstrapping(s);
    await withFakeNode(s, async (node) => {
      const all = await report(node, '/ext/health');
      expect(all.status).toBe(503);
      // Only P of the chains: X, C, the L1 chain and even the failing check of the chain that will fail to start
      // come with the chain creator, which waits for the P-Chain's bootstrap.
      expect(Object.keys(all.body.checks).sort()).toEqual([...APPLICATION, 'P'].sort());
      // The bootstrapper's part of P's check (snow/engine/snowman/bootstrap/bootstrapper.go HealthCheck).
      expect(all.body.checks['P']?.message).toMatchObject({ engine: { consensus: {}, vm: null } });
      expect((all.body.checks['P']?.message as { engine: { consensus: object } }).engine.consensus).toEqual({});
      // Every subnet the node runs is listed: the P-Chain's Initialize queued their chains.
      expect(all.body.checks['bootstrapped']?.message).toEqual([L1, PRIMARY_NETWORK_ID].sort());
      expect(Object.keys((await report(node, `/ext/health?tag=${L1}`)).body.checks).sort()).toEqual(APPLICATION);
      for (const path of ['/ext/bc/X', '/ext/X', '/ext/bc/C/rpc', `/ext/bc/${CHAIN}/rpc`])
        expect((await fetch(`${node.url}${path}`, { method: 'POST' })).status, path).toBe(404);
      expect((await fetch(`${node.url}/ext/bc/P`, { method: 'POST' })).status).toBe(503);
      // node/node.go initChainAliases registers X and C at start-up; a chain's own id is aliased only when it is created.
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: 'X' })).result).toEqual({ isBootstrapped: false });
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: 'evm' })).result).toEqual({ isBootstrapped: false });
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: node.state.chainIds.X })).error?.message).toBe(
        `there is no chain with alias/ID '${node.state.chainIds.X}'`,
      );
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: CHAIN })).error?.message).toBe(`there is no chain with alias/ID '${CHAIN}'`);
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: node.state.chainIds.P })).result).toEqual({ isBootstrapped: false });

      // P done: the chains are created (X and C still bootstrapping, so consensus {} and 503), the failed one fails.
      node.state.bootstrapped['P'] = true;
      const after = await report(node, '/ext/health');
      expect(Object.keys(after.body.checks).sort()).toEqual([...APPLICATION, 'C', 'P', 'X', CHAIN, failing].sort());
      expect((after.body.checks['X']?.message as { engine: { consensus: object } }).engine.consensus).toEqual({});
      expect((after.body.checks['P']?.message as { engine: { consensus: object } }).engine.consensus).toHaveProperty('lastAcceptedHeight');
      expect(after.body.checks[CHAIN]?.error).toBeUndefined();
      expect(after.body.checks[failing]?.error).toBe(`failed to create chain on subnet ${L1}: plugin not found`);
      expect((await fetch(`${node.url}/ext/bc/X`, { method: 'POST' })).status).toBe(503);
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: node.state.chainIds.X })).result).toEqual({ isBootstrapped: false });
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: CHAIN })).result).toEqual({ isBootstrapped: true });
      expect((await fetch(`${node.url}/ext/bc/${CHAIN}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(
        200,
      );
    });
  });

  it('a chain that failed to start: no alias, no route, a failing check under its id, Created, its subnet bootstrapping for good (chains/manager.go createChain)', async () => {
    const s = failedChainStart(defaultFakeState(), CHAIN, 'plugin not found');
    await withFakeNode(s, async (node) => {
      const tagged = await report(node, `/ext/health?tag=${L1}`);
      expect(tagged.body.checks[CHAIN]).toMatchObject({ error: `failed to create chain on subnet ${L1}: plugin not found` });
      expect(tagged.body.checks[CHAIN]).not.toHaveProperty('message');
      expect(tagged.body.checks['bootstrapped']).toMatchObject({ error: 'subnets not bootstrapped', message: [L1] });
      expect((await report(node, '/ext/health/readiness')).status).toBe(503);
      // The primary network's report does not list the chain, but its bootstrapped check does list the L1.
      const primary = await report(node, `/ext/health?tag=${PRIMARY_NETWORK_ID}`);
      expect(primary.body.checks[CHAIN]).toBeUndefined();
      expect(primary.status).toBe(503);
      expect((await rpc(node, '/ext/info', 'info.isBootstrapped', { chain: CHAIN })).error?.message).toBe(`there is no chain with alias/ID '${CHAIN}'`);
      expect((await rpc(node, '/ext/P', 'platform.getBlockchainStatus', { blockchainID: CHAIN })).result).toEqual({ status: 'Created' });
      expect((await fetch(`${node.url}/ext/bc/${CHAIN}/rpc`, { method: 'POST' })).status).toBe(404);
    });
  });
});

describe('the exporter tells the node apart from its L1s', () => {
  const { daemonFor } = perTestResources();

  it("a small L1's validator offline: the L1 chain is unhealthy, the node's own health is not", async () => {
    const s = defaultFakeState();
    const others = smallL1(s, Math.floor(Date.now() / 1000));
    subnetValidatorsOffline(s, L1, [others[0] as string]);
    await withFakeNode(s, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_primary_network_healthy', { node: 'n' })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_healthy', { node: 'n', subnet: L1, chain: CHAIN })).toBe(0);
      expect(valueOf(text, 'avax_l1_chain_failed_to_start', { node: 'n', subnet: L1, chain: CHAIN })).toBe(0);
      expect(valueOf(text, 'avax_l1_chain_health_check_info', { node: 'n', subnet: L1, chain: CHAIN, check: CHAIN })).toBe(1);
      expect(valueOf(text, 'avax_node_connected_stake_ratio', { node: 'n', chain: CHAIN })).toBe(0.75);
      expect(valueOf(text, 'avax_l1_validator_connected', { node: 'n', node_id: others[0] as string, chain: CHAIN })).toBe(0);
      // The L1 chain's height and its processing blocks, from its check: one series each, node_vitals' (named by
      // the check, here the chain id, which avax_l1_chain_health_check_info joins to the subnet), not a second
      // copy from l1_health.
      expect(valueOf(text, 'avax_node_chain_last_accepted_height', { node: 'n', chain: CHAIN })).toBe(184467);
      expect(valueOf(text, 'avax_node_chain_processing_blocks', { node: 'n', chain: CHAIN })).toBe(0);
      expect(seriesOf(text, 'avax_chain_height', { node: 'n', chain: CHAIN })).toEqual([]);
      expect(seriesOf(text, 'avax_l1_chain_processing_blocks', { node: 'n' })).toEqual([]);
    });
  });

  it('a failed L1 chain: P, X and C keep their bootstrap state, the chain is left out of it and reported failed to start; the node itself is healthy', async () => {
    const s = failedChainStart(defaultFakeState(), CHAIN);
    await withFakeNode(s, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await testHandle(daemon).waitForRounds(2);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'bootstrapped' })).toBe(1);
      expect(
        seriesOf(text, 'avax_node_bootstrapped', { node: 'n' })
          .map((x) => `${x.labels['chain']}=${x.value}`)
          .sort(),
      ).toEqual(['C=1', 'P=1', 'X=1']);
      expect(valueOf(text, 'avax_l1_chain_failed_to_start', { node: 'n', subnet: L1, chain: CHAIN })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_healthy', { node: 'n', subnet: L1, chain: CHAIN })).toBe(0);
      expect(valueOf(text, 'avax_node_blockchain_status', { node: 'n', chain: CHAIN, status: 'Created' })).toBe(1);
      expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_ready', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_primary_network_healthy', { node: 'n' })).toBe(1);
      // Its subnet stays in the bootstrapped check's list for good; the primary network is not in it.
      expect(seriesOf(text, 'avax_node_subnet_bootstrapping', { node: 'n' }).map((x) => x.labels['subnet'])).toEqual([L1]);
    });
  });

  it('a node that stops tracking the L1: the bootstrapped source does not ask for the chain it cached and stays up', async () => {
    const s = defaultFakeState();
    await withFakeNode(s, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      expect(valueOf(await scrape(daemon), 'avax_node_bootstrapped', { node: 'n', chain: CHAIN })).toBe(1);
      untrackedSubnet(node.state, L1);
      // A chain bootstrapping elsewhere makes the source ask chain by chain.
      restartBootstrapping(node.state, ['X']);
      await testHandle(daemon).waitForRounds(3);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'bootstrapped' })).toBe(1);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'X' })).toBe(0);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: CHAIN })).toBeUndefined();
      const asked = node.calls.filter((c) => c.rpcMethod === 'info.isBootstrapped').map((c) => JSON.stringify(c.params));
      expect(asked.some((p) => p.includes('"X"'))).toBe(true);
      expect(asked.filter((p) => p.includes(CHAIN))).toEqual([]);
    });
  });

  it('a stalled L1 chain: blocks processing, the check failing on consensus', async () => {
    const s = stalledChain(defaultFakeState(), CHAIN, 4, 95);
    await withFakeNode(s, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_chain_processing_blocks', { node: 'n', chain: CHAIN })).toBe(4);
      expect(valueOf(text, 'avax_l1_chain_health_check_info', { node: 'n', subnet: L1, chain: CHAIN, check: CHAIN })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_healthy', { node: 'n', subnet: L1, chain: CHAIN })).toBe(0);
      expect(valueOf(text, 'avax_node_primary_network_healthy', { node: 'n' })).toBe(1);
    });
  });
});

describe('pure parts', () => {
  const at = '2026-08-22T15:40:31Z';
  const ok = { timestamp: at, duration: 1 };
  it('primaryHealthFrom counts `bootstrapped` only while it lists the primary network or says nothing readable', () => {
    expect(primaryHealthFrom({ healthy: true, checks: { P: ok, network: ok } })).toBe(true);
    expect(primaryHealthFrom({ healthy: false, checks: { P: ok, bootstrapped: { ...ok, message: [L1], error: 'subnets not bootstrapped' } } })).toBe(true);
    expect(
      primaryHealthFrom({ healthy: false, checks: { bootstrapped: { ...ok, message: [L1, PRIMARY_NETWORK_ID], error: 'subnets not bootstrapped' } } }),
    ).toBe(false);
    expect(primaryHealthFrom({ healthy: false, checks: { bootstrapped: { ...ok, error: 'health check has not run' } } })).toBe(false);
    expect(primaryHealthFrom({ healthy: false, checks: { network: { ...ok, error: 'network layer is unhealthy' } } })).toBe(false);
  });

  it("l1ChainHealthFrom reads the failed creation; the consensus figures are node_vitals' alone, under the check's name", () => {
    const chain = { id: CHAIN, check: 'dexchain' };
    expect(l1ChainHealthFrom(L1, chain, { ...ok, error: `failed to create chain on subnet ${L1}: plugin not found` })).toEqual({
      subnetId: L1,
      chain: CHAIN,
      check: 'dexchain',
      passing: false,
      failedToStart: true,
      error: `failed to create chain on subnet ${L1}: plugin not found`,
    });
    const message = { engine: { consensus: { lastAcceptedHeight: 7, processingBlocks: 2 } } };
    expect(l1ChainHealthFrom(L1, chain, { ...ok, message })).toEqual({ subnetId: L1, chain: CHAIN, check: 'dexchain', passing: true, failedToStart: false });
    // One series per figure: l1_health exports the check's name (which joins it to the chain id and the subnet)
    // and no consensus figure; node_vitals reads those from the same check, named by its alias here.
    expect(collectL1Health({ chains: [l1ChainHealthFrom(L1, chain, { ...ok, message })], subnetChains: {} }, 'n').map((x) => x.name)).toEqual([
      'avax_l1_chain_healthy',
      'avax_l1_chain_failed_to_start',
      'avax_l1_chain_health_check_info',
    ]);
    expect(collectL1Health({ chains: [l1ChainHealthFrom(L1, chain, { ...ok, message })], subnetChains: {} }, 'n')[2]?.labels).toEqual({
      node: 'n',
      subnet: L1,
      chain: CHAIN,
      check: 'dexchain',
    });
    expect(nodeVitalsFrom({ dexchain: { message } }).chains).toEqual([
      { chain: 'dexchain', processingBlocks: 2, longestProcessingSeconds: undefined, lastAcceptedHeight: 7 },
    ]);
  });

  it('runningChains drops a subnet whose cached chain has no check any more', () => {
    const cached = { [L1]: [{ id: CHAIN, check: CHAIN }], other: [] };
    expect(runningChains(cached, { [CHAIN]: {} })).toEqual(cached);
    expect(runningChains(cached, { P: {} })).toEqual({ other: [] });
  });
});
