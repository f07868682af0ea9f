import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import type { FakeNodeState } from './fakes/fake-node.js';
import { PRIMARY_NETWORK_ID } from '../src/sources/node/validators/index.js';
import { NODE_SOURCES } from '../src/sources/catalog.js';
import { FAILURE_REASONS } from '../src/http/errors.js';
import { START_SPACING_MS, startSpread, type PollerHandle } from '../src/scheduler.js';
import { callsInOneRound, eventually, scrape, scrapeGzipRaw, seriesOf, perTestResources, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const SELF = FIXTURE_IDS.nodeId;
const L1 = FIXTURE_IDS.l1SubnetId;
const SOURCES = NODE_SOURCES.map((s) => s.name);
const NODE_SOURCES_NO_SUBNET = SOURCES.filter((s) => s !== 'l1_uptime' && s !== 'l1_health' && s !== 'blockchain_status');

const { fakeNode, daemonFor } = perTestResources();

/** The fixture world's recorded info.uptime (undefined when the world computes it). */
const givenUptime = (u: FakeNodeState['uptime']) => (u === 'computed' ? undefined : u);

describe('end to end against a fake AvalancheGo node', () => {
  it('serves what the node reports', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { subnet_ids: [L1] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    const n = { node: 'fake' };
    expect(
      valueOf(text, 'avax_node_info', {
        ...n,
        node_id: SELF,
        version: node.state.version,
        network: 'mainnet',
        database_version: node.state.databaseVersion,
        git_commit: node.state.gitCommit,
      }),
    ).toBe(1);
    expect(valueOf(text, 'avax_node_network_id', n)).toBe(1);
    for (const m of ['avax_node_healthy', 'avax_node_ready', 'avax_node_live']) expect(valueOf(text, m, n)).toBe(1);
    expect(valueOf(text, 'avax_node_health_check_passing', { ...n, check: 'network' })).toBe(1);
    expect(valueOf(text, 'avax_node_peers', n)).toBe(node.state.peers.length);
    expect(valueOf(text, 'avax_chain_height', { ...n, chain: 'P' })).toBe(Number(node.state.heights.P));
    expect(valueOf(text, 'avax_chain_height', { ...n, chain: 'X' })).toBe(Number(node.state.heights.X));
    expect(valueOf(text, 'avax_chain_height', { ...n, chain: 'C' })).toBe(Number(node.state.heights.C));
    for (const chain of ['P', 'X', 'C', FIXTURE_IDS.l1ChainId]) expect(valueOf(text, 'avax_node_bootstrapped', { ...n, chain })).toBe(1);
    expect(valueOf(text, 'avax_node_uptime_weighted_average_ratio', n)).toBeCloseTo(
      (givenUptime(node.state.uptime)?.weightedAveragePercentage ?? NaN) / 100,
      6,
    );
    expect(valueOf(text, 'avax_node_is_validator', n)).toBe(1);
    const self = node.state.primaryValidators.find((v) => v.nodeId === SELF);
    const v = { ...n, node_id: SELF, subnet: PRIMARY_NETWORK_ID };
    expect(valueOf(text, 'avax_validator_active', v)).toBe(1);
    expect(valueOf(text, 'avax_validator_uptime_ratio', v)).toBeCloseTo((self?.uptime ?? NaN) / 100, 4);
    expect(valueOf(text, 'avax_validator_end_timestamp_seconds', v)).toBe(self?.endTime);
    // Only the watched (own) validator is exported from the primary network by default.
    expect(seriesOf(text, 'avax_validator_active', { subnet: PRIMARY_NETWORK_ID })).toHaveLength(1);
    expect(valueOf(text, 'avax_l1_validator_balance_avax', { ...n, node_id: SELF, subnet: L1, validation_id: FIXTURE_IDS.l1ValidationId })).toBeGreaterThan(0);
    expect(seriesOf(text, 'avax_validator_end_timestamp_seconds', { subnet: L1 })).toEqual([]);
    for (const source of SOURCES) {
      expect(valueOf(text, 'avax_source_up', { ...n, source }), source).toBe(1);
      expect(valueOf(text, 'avax_source_polls_total', { ...n, source })).toBeGreaterThanOrEqual(1);
      // Every failure reason is exported from the start (0 until it happens), so rate() works on the first failure.
      for (const reason of FAILURE_REASONS) expect(valueOf(text, 'avax_source_poll_failures_total', { ...n, source, reason }), reason).toBeDefined();
    }
    expect(valueOf(text, 'avax_exporter_ready')).toBe(1);
    expect(seriesOf(text, 'avax_exporter_build_info')).toHaveLength(1);
    expect(text).not.toMatch(/^avax_\S+ \S+ \d+$/m); // no sample timestamps
  });

  it('follows state changes, with one log line per change', async () => {
    const node = await fakeNode();
    const { daemon, logs } = await daemonFor({
      nodes: [{ name: 'fake', url: node.url }],
      watch: { node_ids: [SELF, FIXTURE_IDS.disconnectedValidatorNodeId] },
    });
    await waitUntilAllUp(daemon);
    const self = node.state.primaryValidators.find((v) => v.nodeId === SELF);
    if (!self) throw new Error('fixture world has no self validator');
    self.connected = false;
    self.uptime = 75;
    node.failCheck('network', 'not connected to enough stake');
    node.state.heights.P += 5n;
    await testHandle(daemon).waitForRounds(2);
    const text = await scrape(daemon);
    const v = { node: 'fake', node_id: SELF, subnet: PRIMARY_NETWORK_ID };
    expect(valueOf(text, 'avax_validator_connected', v)).toBe(0);
    expect(valueOf(text, 'avax_validator_uptime_ratio', v)).toBe(0.75);
    expect(valueOf(text, 'avax_node_healthy', { node: 'fake' })).toBe(0);
    expect(valueOf(text, 'avax_node_health_check_passing', { node: 'fake', check: 'network' })).toBe(0);
    expect(valueOf(text, 'avax_node_health_check_contiguous_failures', { node: 'fake', check: 'network' })).toBe(1);
    expect(valueOf(text, 'avax_node_health_check_failing_since_timestamp_seconds', { node: 'fake', check: 'network' })).toBeGreaterThan(0);
    expect(valueOf(text, 'avax_chain_height', { node: 'fake', chain: 'P' })).toBe(Number(node.state.heights.P));
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'health' })).toBe(1); // 503 is an answer
    expect(logs.withMsg('validator disconnected')).toHaveLength(1);
    expect(logs.withMsg('validator disconnected')[0]).toMatchObject({ node: 'fake', node_id: SELF });
    expect(logs.withMsg('node unhealthy')).toHaveLength(1);
    expect(logs.withMsg('node unhealthy')[0]).toMatchObject({ failing_checks: 'network' });

    // A validator that leaves the set: watched, so active 0 and nothing else; recovery logs once.
    node.state.primaryValidators = node.state.primaryValidators.filter((x) => x.nodeId !== FIXTURE_IDS.disconnectedValidatorNodeId);
    node.passCheck('network');
    await testHandle(daemon).waitForRounds(2);
    const after = await scrape(daemon);
    const gone = { node: 'fake', node_id: FIXTURE_IDS.disconnectedValidatorNodeId, subnet: PRIMARY_NETWORK_ID };
    expect(valueOf(after, 'avax_validator_active', gone)).toBe(0);
    expect(seriesOf(after, 'avax_validator_weight', gone)).toEqual([]);
    expect(valueOf(after, 'avax_node_healthy', { node: 'fake' })).toBe(1);
    expect(seriesOf(after, 'avax_node_health_check_failing_since_timestamp_seconds', { node: 'fake' })).toEqual([]);
    expect(logs.withMsg('node healthy')).toHaveLength(1);
  });

  it('with --watch.all-validators exports every validator, and one that leaves disappears', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { all_validators: true } }] });
    await waitUntilAllUp(daemon);
    const before = await scrape(daemon);
    expect(seriesOf(before, 'avax_validator_active', { subnet: PRIMARY_NETWORK_ID })).toHaveLength(node.state.primaryValidators.length);
    const leaving = FIXTURE_IDS.disconnectedValidatorNodeId;
    expect(valueOf(before, 'avax_validator_active', { node_id: leaving })).toBe(1);
    node.state.primaryValidators = node.state.primaryValidators.filter((x) => x.nodeId !== leaving);
    await testHandle(daemon).waitForRounds(2);
    const after = await scrape(daemon);
    expect(seriesOf(after, 'avax_validator_active', { node_id: leaving })).toEqual([]);
    expect(after).not.toContain(leaving);
    // platform.getCurrentValidators is fetched once per round, without a nodeIDs filter.
    const calls = node.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.every((c) => JSON.stringify(c.params) === '{}')).toBe(true);
  });

  it('a node that goes away: up 0 with the reason counted, stale series gone after max age, recovery after restart', async () => {
    const node = await fakeNode();
    const { daemon, logs } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }], poll: { interval: '500ms', timeout: '400ms', max_age: '1500ms' } });
    await waitUntilAllUp(daemon);
    expect(valueOf(await scrape(daemon), 'avax_chain_height', { node: 'fake', chain: 'P' })).toBeGreaterThan(0);
    await node.stop();
    await testHandle(daemon).waitForRounds(2); // the round in flight may have finished before the stop
    const down = await scrape(daemon);
    for (const source of NODE_SOURCES_NO_SUBNET) expect(valueOf(down, 'avax_source_up', { node: 'fake', source }), source).toBe(0);
    // A source with nothing to ask of this node (no watched subnet) is not polled, so it reports nothing at all.
    expect(seriesOf(down, 'avax_source_up', { node: 'fake', source: 'l1_uptime' })).toEqual([]);
    // A request caught in flight by the stop may end as a timeout; the next ones are refused connections.
    await eventually(
      async () => (valueOf(await scrape(daemon), 'avax_source_poll_failures_total', { node: 'fake', source: 'peers', reason: 'connect' }) ?? 0) >= 1,
      10_000,
    );
    // The last values are kept for the max age (one failed poll must not blank dashboards)...
    // ...and once the last success is older than the max age they are gone, while the self-metrics stay.
    // (A source caught mid-round by the stop may have succeeded a moment later than the others: wait for all.)
    const dataMetrics = ['avax_chain_height', 'avax_node_info', 'avax_node_healthy', 'avax_node_peers', 'avax_validator_active', 'avax_node_bootstrapped'];
    await eventually(async () => {
      const text = await scrape(daemon);
      return dataMetrics.every((m) => seriesOf(text, m).length === 0);
    }, 8_000);
    const stale = await scrape(daemon);
    for (const m of dataMetrics) expect(seriesOf(stale, m), m).toEqual([]);
    expect(valueOf(stale, 'avax_source_up', { node: 'fake', source: 'info' })).toBe(0);
    expect(valueOf(stale, 'avax_source_last_success_timestamp_seconds', { node: 'fake', source: 'info' })).toBeGreaterThan(0);
    expect(logs.withMsg('source down').filter((l) => l['source'] === 'peers')).toHaveLength(1);
    expect(logs.withMsg('source down')[0]).toMatchObject({ reason: 'connect' });

    await node.restart();
    await eventually(async () => valueOf(await scrape(daemon), 'avax_chain_height', { node: 'fake', chain: 'P' }) === Number(node.state.heights.P), 8_000);
    await eventually(async () => valueOf(await scrape(daemon), 'avax_source_up', { node: 'fake', source: 'peers' }) === 1, 8_000);
    expect(logs.withMsg('source up').filter((l) => l['source'] === 'peers')).toHaveLength(1);
  });

  it('two nodes give two node label values, and one failing leaves the other untouched', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    b.state.heights.P = 777n;
    const { daemon } = await daemonFor({
      nodes: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
      ],
    });
    await waitUntilAllUp(daemon);
    let text = await scrape(daemon);
    expect(
      seriesOf(text, 'avax_node_info')
        .map((s) => s.labels['node'])
        .sort(),
    ).toEqual(['a', 'b']);
    expect(valueOf(text, 'avax_chain_height', { node: 'b', chain: 'P' })).toBe(777);
    a.setFault('*', { kind: 'status', status: 502 });
    await testHandle(daemon).waitForRounds(2);
    text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'a', source: 'info' })).toBe(0);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'a', source: 'info', reason: 'http_status' })).toBeGreaterThanOrEqual(1);
    for (const source of NODE_SOURCES_NO_SUBNET) expect(valueOf(text, 'avax_source_up', { node: 'b', source })).toBe(1);
  });

  it('a node that switches network is a failure, not new data', async () => {
    const node = await fakeNode();
    const { daemon, logs } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await waitUntilAllUp(daemon);
    node.state.networkId = 5;
    node.state.heights.P = 1n;
    await testHandle(daemon).waitForRounds(2);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'info' })).toBe(0);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'fake', source: 'info', reason: 'network_mismatch' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'p_chain' })).toBe(0);
    expect(valueOf(text, 'avax_chain_height', { node: 'fake', chain: 'P' })).not.toBe(1);
    expect(valueOf(text, 'avax_node_network_id', { node: 'fake' })).toBe(1);
    expect(logs.withMsg('source down').find((l) => l['source'] === 'info')).toMatchObject({ reason: 'network_mismatch' });
  });

  it('a node that is not a validator: state, not failure', async () => {
    const node = await fakeNode();
    node.state.uptime = null;
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_node_is_validator', { node: 'fake' })).toBe(0);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'uptime' })).toBe(1);
    expect(seriesOf(text, 'avax_node_uptime_weighted_average_ratio')).toEqual([]);
  });

  it('serves gzip, health, readiness, the landing page, and refuses other methods', async () => {
    const node = await fakeNode();
    node.setFault('info.peers', { kind: 'status', status: 500, body: '<b>boom</b>' });
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await testHandle(daemon).waitForRounds(1);
    const gz = await scrapeGzipRaw(daemon);
    expect(gz.encoding).toBe('gzip');
    expect(gz.text).toBe(await scrape(daemon));
    expect((await fetch(`${daemon.url}/-/healthy`)).status).toBe(200);
    expect((await fetch(`${daemon.url}/-/ready`)).status).toBe(200);
    const landing = await fetch(`${daemon.url}/`);
    expect(landing.headers.get('content-type')).toMatch(/text\/html/);
    const html = await landing.text();
    expect(html).toContain('href="/metrics"');
    expect(html).toContain('href="/-/healthy"');
    expect(html).toMatch(/<td>peers<\/td><td>down<\/td>/);
    expect(html).toContain('http_status');
    expect(html).not.toContain('<b>boom</b>'); // upstream text is escaped
    expect((await fetch(`${daemon.url}/metrics`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${daemon.url}/nope`)).status).toBe(404);
    const head = await fetch(`${daemon.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('is not ready before the first round; /metrics still answers 200 while the node hangs', async () => {
    const node = await fakeNode();
    node.setFault('*', { kind: 'hang' });
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }], poll: { interval: '2s', timeout: '1500ms' } });
    expect((await fetch(`${daemon.url}/-/ready`)).status).toBe(503);
    const res = await fetch(`${daemon.url}/metrics`);
    expect(res.status).toBe(200);
    expect(valueOf(await res.text(), 'avax_exporter_ready')).toBe(0);
    await testHandle(daemon).waitForRounds(1);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'fake', source: 'info', reason: 'timeout' })).toBe(1);
    expect(valueOf(text, 'avax_source_poll_duration_seconds', { node: 'fake', source: 'info' })).toBeLessThan(1.9);
    expect((await fetch(`${daemon.url}/-/ready`)).status).toBe(200);
  });

  it('promtool check metrics accepts the exposition', async () => {
    const node = await fakeNode();
    node.failCheck('router', 'too many outstanding requests');
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { all_validators: true, subnet_ids: [L1] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-')), 'metrics.txt');
    writeFileSync(file, text);
    // promtool reads the exposition on stdin; exit 0 means no problems (lint warnings exit non-zero).
    const out = execFileSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('');
  });
});

describe('upstream calls', () => {
  it('one call per method per node per round, shared by every consumer', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { subnet_ids: [L1] } }] });
    await waitUntilAllUp(daemon);
    const perRound = await callsInOneRound(node, daemon);
    expect(perRound('info.getNetworkID')).toBe(1);
    expect(perRound('info.peers')).toBe(1);
    expect(perRound('info.uptime')).toBe(1);
    expect(perRound('platform.getHeight')).toBe(1);
    expect(perRound('avm.getHeight')).toBe(1);
    expect(perRound('eth_blockNumber')).toBe(1);
    expect(perRound('GET /ext/health')).toBe(1); // shared by the health and bootstrapped sources
    // A healthy node's passing `bootstrapped` health check stands for P, X, C and the L1 chain.
    expect(perRound('info.isBootstrapped')).toBe(0);
    expect(perRound('platform.getCurrentValidators')).toBe(2); // primary + the watched L1
    // Identity that rarely changes is not asked every round.
    expect(perRound('info.getNodeVersion')).toBe(0);
    expect(perRound('info.upgrades')).toBe(0);
    // Read-only: no admin method, nothing that changes state.
    expect(node.calls.every((c) => !c.rpcMethod?.startsWith('admin.'))).toBe(true);
  });

  it('nodes started together begin their first rounds one after another, not at once', async () => {
    const fleet = await Promise.all([0, 1, 2, 3].map(() => fakeNode()));
    const { daemon } = await daemonFor({ nodes: fleet.map((n, i) => ({ name: `n${i}`, url: n.url })) });
    await waitUntilAllUp(daemon);
    // Each node's first request, in config order. The rounds begin START_SPACING_MS apart (the unit
    // tests below pin the delays); a request takes its own few ms to arrive, hence the margin.
    const firsts = fleet.map((n) => Math.min(...n.calls.map((c) => c.at)));
    for (let i = 1; i < firsts.length; i++) expect((firsts[i] as number) - (firsts[i - 1] as number)).toBeGreaterThanOrEqual(START_SPACING_MS / 2);
  });
});

describe('startSpread', () => {
  const record = (n: number) => {
    const delays: number[] = [];
    const pollers = Array.from({ length: n }, (_, i): PollerHandle => ({
      name: `p${i}`,
      completedRounds: 0,
      start: (d = 0) => void delays.push(d),
      stop: async () => {},
    }));
    return { pollers, delays };
  };

  it('one poller starts at once', () => {
    const { pollers, delays } = record(1);
    startSpread(pollers, 15_000);
    expect(delays).toEqual([0]);
  });

  it('a few pollers start START_SPACING_MS apart, in order', () => {
    const { pollers, delays } = record(4);
    startSpread(pollers, 15_000);
    expect(delays).toEqual([0, 1, 2, 3].map((i) => i * START_SPACING_MS));
  });

  it('a large fleet closes up, so every first round begins within half an interval', () => {
    const { pollers, delays } = record(1_000);
    startSpread(pollers, 15_000);
    expect(delays[0]).toBe(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(7_500);
    expect(Math.max(...delays)).toBeGreaterThan(7_400);
    for (let i = 1; i < delays.length; i++) expect((delays[i] as number) >= (delays[i - 1] as number)).toBe(true);
  });
});
