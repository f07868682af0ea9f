/**
 * The bootstrapped source reads the node's `bootstrapped` health check first
 * (the /ext/health GET the health source makes anyway, shared per round) and
 * asks info.isBootstrapped chain by chain only when that check does not say
 * "everything bootstrapped". Against the real FakeNode over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../src/config/load.js';
import { FIXTURE_IDS, PRIMARY_NETWORK_ID } from './fakes/fake-data.js';
import type { FakeNode } from './fakes/fake-node.js';
import { HttpTransport, type HttpResponse } from '../src/http/transport.js';
import { NodePoller } from '../src/scheduler.js';
import { healthSaysAllBootstrapped } from '../src/sources/node/bootstrapped/index.js';
import { defineNodeSource } from '../src/sources/node/source.js';
import { StateStore } from '../src/state/store.js';
import { loadFixture } from './helpers/fixtures.js';
import { callsInOneRound, perTestResources, scrape, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const L1 = FIXTURE_IDS.l1SubnetId;
const L1_CHAIN = FIXTURE_IDS.l1ChainId;
const { fakeNode, daemonFor } = perTestResources();

const isBootstrappedChains = (node: FakeNode) =>
  node.calls.filter((c) => c.rpcMethod === 'info.isBootstrapped').map((c) => (c.params as { chain: string }).chain);

describe('bootstrapped from the health report', () => {
  it('a healthy node: one GET /ext/health per round, no info.isBootstrapped, every chain 1', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
    await waitUntilAllUp(daemon);
    const perRound = await callsInOneRound(node, daemon);
    expect(perRound('info.isBootstrapped')).toBe(0);
    // Shared with the health source: one request for both.
    expect(perRound('GET /ext/health')).toBe(1);
    const text = await scrape(daemon);
    for (const chain of ['P', 'X', 'C', L1_CHAIN]) expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain }), chain).toBe(1);
    expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'bootstrapped' })).toBe(1);
  });

  it('a bootstrapping node: the failing check sends every chain to info.isBootstrapped, and its answers are the values', async () => {
    const node = await fakeNode();
    node.state.bootstrapped['C'] = false;
    // Rounds only through pollNow (C's own APIs answer 503 while it bootstraps, so not every source comes up).
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }], poll: { interval: '1h', timeout: '2s' } });
    await testHandle(daemon).waitForRounds(1);
    node.clearCalls();
    await testHandle(daemon).pollNow();
    expect(isBootstrappedChains(node).sort()).toEqual(['C', 'P', 'X', L1_CHAIN].sort());
    let text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'bootstrapped' })).toBe(1);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'P' })).toBe(1);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'X' })).toBe(1);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'C' })).toBe(0);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: L1_CHAIN })).toBe(1);
    // The fake's report agrees with its state, as AvalancheGo's does (the fixture's bootstrapping variant).
    expect(valueOf(text, 'avax_node_health_check_passing', { node: 'n', check: 'bootstrapped' })).toBe(0);
    expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
    expect(valueOf(text, 'avax_node_ready', { node: 'n' })).toBe(0);

    // An L1 chain still bootstrapping fails the check just as well (its subnet is listed).
    node.state.bootstrapped['C'] = true;
    node.state.bootstrapped[L1_CHAIN] = false;
    node.clearCalls();
    await testHandle(daemon).pollNow();
    expect(isBootstrappedChains(node)).toHaveLength(4);
    text = await scrape(daemon);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'C' })).toBe(1);
    expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: L1_CHAIN })).toBe(0);

    // Done bootstrapping: the check passes and the chains are no longer asked one by one.
    node.state.bootstrapped[L1_CHAIN] = true;
    node.clearCalls();
    await testHandle(daemon).pollNow();
    expect(isBootstrappedChains(node)).toEqual([]);
    text = await scrape(daemon);
    for (const chain of ['P', 'X', 'C', L1_CHAIN]) expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain }), chain).toBe(1);
    expect(valueOf(text, 'avax_node_health_check_passing', { node: 'n', check: 'bootstrapped' })).toBe(1);
  });

  it('the fake lists the subnets still bootstrapping in the failing check, as AvalancheGo does', async () => {
    const node = await fakeNode();
    node.state.bootstrapped['X'] = false;
    node.state.bootstrapped[L1_CHAIN] = false;
    const res = await fetch(`${node.url}/ext/health`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, Record<string, unknown>>; healthy: boolean };
    const check = body.checks['bootstrapped'];
    expect(Object.keys(check ?? {})).toEqual(['message', 'error', 'timestamp', 'duration', 'contiguousFailures', 'timeOfFirstFailure']);
    expect(check?.['message']).toEqual([PRIMARY_NETWORK_ID, L1].sort());
    expect(check?.['error']).toBe('subnets not bootstrapped');
    const readiness = (await (await fetch(`${node.url}/ext/health/readiness`)).json()) as { checks: Record<string, Record<string, unknown>>; healthy: boolean };
    expect(readiness.healthy).toBe(false);
    expect(readiness.checks['bootstrapped']?.['error']).toBe('subnets not bootstrapped');
  });

  for (const [what, fault] of [
    ['answers 500', { kind: 'status', status: 500 }],
    ['answers invalid JSON', { kind: 'body', body: '{"checks": nope' }],
    ['answers a 200 of another shape', { kind: 'body', body: '{"ok":true}' }],
    ['never answers', { kind: 'hang' }],
  ] as const) {
    it(`health endpoint ${what}: bootstrapped still comes from info.isBootstrapped`, async () => {
      const node = await fakeNode();
      node.state.bootstrapped['C'] = false;
      node.setFault('GET /ext/health', fault);
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '1h', timeout: '1s' } });
      await testHandle(daemon).waitForRounds(1);
      node.clearCalls();
      await testHandle(daemon).pollNow();
      expect(isBootstrappedChains(node).sort()).toEqual(['C', 'P', 'X']);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'bootstrapped' })).toBe(1);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'P' })).toBe(1);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'C' })).toBe(0);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'health' })).toBe(0);
    });
  }

  it('reads only a passing check with an empty array as "all bootstrapped"', () => {
    const main = loadFixture('node.health.GET.json').response.body;
    const booting = loadFixture('node.health.GET.json', 'unhealthy-bootstrapping-503').response.body;
    const tagged = loadFixture('node.health.GET.json', `tag-filtered-L1-unhealthy-503`).response.body;
    expect(healthSaysAllBootstrapped(main, [])).toBe(true);
    expect(healthSaysAllBootstrapped(booting, [])).toBe(false);
    // A 503 for another check: the bootstrapped check still passes.
    expect(healthSaysAllBootstrapped(tagged, [L1_CHAIN])).toBe(true);
    // A watched chain the node runs no check for (the main capture does not track the L1): ask it.
    expect(healthSaysAllBootstrapped(main, [L1_CHAIN])).toBe(false);
    const withCheck = (check: unknown) => ({ checks: { bootstrapped: check }, healthy: true });
    const at = { timestamp: '2026-08-22T15:40:31.201342108Z', duration: 1 };
    expect(healthSaysAllBootstrapped(withCheck({ message: [], ...at }), [])).toBe(true);
    expect(healthSaysAllBootstrapped(withCheck({ message: [], error: null, ...at }), [])).toBe(true);
    expect(healthSaysAllBootstrapped(withCheck({ message: [PRIMARY_NETWORK_ID], ...at }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck({ message: [], error: 'subnets not bootstrapped', ...at }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck({ error: 'not yet run', timestamp: '0001-01-01T00:00:00Z', duration: 0 }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck({ ...at }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck({ message: null, ...at }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck({ message: {}, ...at }), [])).toBe(false);
    expect(healthSaysAllBootstrapped(withCheck('ok'), [])).toBe(false);
    expect(healthSaysAllBootstrapped({ checks: {}, healthy: true }, [])).toBe(false);
    expect(healthSaysAllBootstrapped({ checks: { bootstrapped: { message: [], ...at } } }, [])).toBe(false);
    expect(healthSaysAllBootstrapped(undefined, [])).toBe(false);
    expect(healthSaysAllBootstrapped('[]', [])).toBe(false);
  });
});

describe('GETs are single-flight per round', () => {
  const transports: HttpTransport[] = [];
  afterEach(async () => {
    for (const t of transports.splice(0)) await t.close();
  });

  it('two sources asking the same path in one round make one upstream GET and get the same response', async () => {
    const node = await fakeNode();
    const transport = new HttpTransport();
    transports.push(transport);
    const seen: Record<string, HttpResponse[]> = { a: [], b: [] };
    const asker = (name: 'a' | 'b') =>
      defineNodeSource<number>({
        name,
        async poll(ctx) {
          const [health, readiness] = await Promise.all([ctx.get('/ext/health'), ctx.get('/ext/health/readiness')]);
          seen[name]?.push(health, readiness);
          // The body stays intact for the other asker.
          return (JSON.parse(health.body.toString('utf8')) as { healthy?: unknown }).healthy === true ? 1 : 0;
        },
        collect: () => [],
      });
    const config = buildConfig({ nodes: [{ name: 'n', url: node.url }] });
    const nodeConfig = config.nodes[0];
    if (!nodeConfig) throw new Error('no node in the config');
    const store = new StateStore();
    const poller = new NodePoller(nodeConfig, {
      intervalMs: 60_000,
      timeoutMs: 2_000,
      sources: [asker('a'), asker('b')],
      transport,
      store,
      onRound: () => {},
    });
    await poller.runRound();
    const gets = (path: string) => node.calls.filter((c) => c.httpMethod === 'GET' && c.path === path).length;
    expect(gets('/ext/health')).toBe(1);
    expect(gets('/ext/health/readiness')).toBe(1);
    expect(seen['a']?.[0]).toBe(seen['b']?.[0]);
    expect(seen['a']?.[1]).toBe(seen['b']?.[1]);
    expect(seen['a']?.[0]).not.toBe(seen['a']?.[1]);
    expect(store.get('n', 'a').value).toBe(1);
    expect(store.get('n', 'b').value).toBe(1);

    // A new round asks again.
    await poller.runRound();
    expect(gets('/ext/health')).toBe(2);
  });
});
