/**
 * A health report from the first seconds after a node starts: checks the health worker has not run yet read
 * `"error": "not yet run"` with Go's zero time as their timestamp and a zero duration (api/health/result.go
 * notYetRunResult, set by worker.go RegisterCheck), and no `contiguousFailures` or `timeOfFirstFailure`. The
 * bodies below are what the real AvalancheGo v1.14.2 answered 0.3 s after it started (the stuck node of
 * test/real-network/conformance.test.ts, its P-Chain bootstrapping): the P-Chain's check and `bootstrapped`
 * not run yet, the rest run once. The exporter must read them as failing checks with no failure start, take no
 * year-1 timestamp for a time, and export no NaN.
 */
import { describe, expect, it } from 'vitest';
import { testHandle } from '../../../daemon.js';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { defaultFakeState } from '../../../../test/fakes/fake-data.js';
import { restartBootstrapping } from '../../../../test/fakes/real-modes.js';
import { parseExposition, perTestResources, scrape, seriesOf, valueOf } from '../../../../test/helpers/daemon.js';
import { healthSaysAllBootstrapped } from '../bootstrapped/index.js';
import { nodeVitalsFrom } from '../node-vitals/index.js';
import { bootstrappingSubnetsFrom, healthBodySchema, healthSource, healthValueFrom, primaryHealthFrom, type HealthAnswer } from './index.js';

/** GET /ext/health (503) of the real node 0.3 s after start-up; `?tag=<primary network id>` answered the same body. */
const FIRST_HEALTH =
  '{"checks":{"P":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0},"bls":{"message":"node is not a validator","timestamp":"2026-12-02T06:37:49.287498039Z","duration":15393},"bootstrapped":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0},"database":{"timestamp":"2026-12-02T06:37:49.28737766Z","duration":19740},"diskspace":{"message":{"availableDiskBytes":78140645376,"availableDiskPercentage":28},"timestamp":"2026-12-02T06:37:49.287466572Z","duration":3625},"futureupgrade":{"error":"no validators in the current validator set","timestamp":"2026-12-02T06:37:49.287527944Z","duration":4417,"contiguousFailures":1,"timeOfFirstFailure":"2026-12-02T06:37:49.287527944Z"},"network":{"message":{"connectedPeers":0,"sendFailRate":0},"error":"network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0, no messages received from network, no messages sent to network","timestamp":"2026-12-02T06:37:49.28754562Z","duration":16464,"contiguousFailures":1,"timeOfFirstFailure":"2026-12-02T06:37:49.28754562Z"},"router":{"message":{"longestRunningRequest":"0s","outstandingRequests":0},"timestamp":"2026-12-02T06:37:49.287553141Z","duration":6861}},"healthy":false}\n';
/** GET /ext/health/readiness (503) at the same moment. */
const FIRST_READINESS = '{"checks":{"bootstrapped":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0}},"healthy":false}\n';
/** GET /ext/health/liveness (200): AvalancheGo registers no liveness check. */
const FIRST_LIVENESS = '{"checks":{},"healthy":true}\n';

const answer = (body: string, ok: boolean): HealthAnswer => ({ ok, body: healthBodySchema.parse(JSON.parse(body)) });
/** 2020-01-01: any time a node really reports is later. */
const SOME_REAL_TIME = Date.parse('2020-01-01T00:00:00Z') / 1000;

describe('a health report of checks not yet run (the first seconds after start-up)', () => {
  it('reads them as failing, with no failures counted and no failure start: not the year 1', () => {
    const v = healthValueFrom(answer(FIRST_HEALTH, false), answer(FIRST_READINESS, false), answer(FIRST_LIVENESS, true));
    expect([v.healthy, v.ready, v.live, v.partialSync]).toEqual([false, false, true, false]);
    const byName = Object.fromEntries(v.checks.map((c) => [c.name, c]));
    for (const name of ['P', 'bootstrapped']) expect(byName[name], name).toEqual({ name, passing: false, contiguousFailures: 0, failingSince: undefined });
    // A check that has run keeps its real figures beside them.
    expect(byName['network']).toEqual({
      name: 'network',
      passing: false,
      contiguousFailures: 1,
      failingSince: Date.parse('2026-12-02T06:37:49.28754562Z') / 1000,
    });
    expect(byName['router']?.passing).toBe(true);
    // `futureupgrade` failed without details (no validators known yet): nothing to read, rather than zeros.
    expect(v.futureUpgrade).toBeUndefined();
  });

  it('exports finite values only, and a failure start only for the checks that have failed', () => {
    const v = healthValueFrom(answer(FIRST_HEALTH, false), answer(FIRST_READINESS, false), answer(FIRST_LIVENESS, true));
    const samples = healthSource.collect(v, 'n');
    for (const s of samples) expect(Number.isFinite(s.value), `${s.name} ${JSON.stringify(s.labels)}`).toBe(true);
    const since = samples.filter((s) => s.name === 'avax_node_health_check_failing_since_timestamp_seconds');
    expect(since.map((s) => s.labels['check']).sort()).toEqual(['futureupgrade', 'network']);
    for (const s of since) expect(s.value).toBeGreaterThan(SOME_REAL_TIME);
    const passing = (check: string) => samples.find((s) => s.name === 'avax_node_health_check_passing' && s.labels['check'] === check)?.value;
    expect([passing('P'), passing('bootstrapped'), passing('database')]).toEqual([0, 0, 1]);
  });

  it('the `bootstrapped` check not yet run: no subnet said to be bootstrapping, the node not healthy on its own, bootstrap asked chain by chain', () => {
    const body = healthBodySchema.parse(JSON.parse(FIRST_HEALTH));
    // Its message is no list: which subnets bootstrap is unknown, not "none".
    expect(bootstrappingSubnetsFrom(body.checks)).toBeUndefined();
    // The tagged report (the same body here) fails on P and on the application-wide checks alike.
    expect(primaryHealthFrom(body)).toBe(false);
    expect(healthSaysAllBootstrapped(JSON.parse(FIRST_HEALTH), [])).toBe(false);
  });

  it('the vitals: what was measured is read, a check not yet run gives no chain series and no bootstrapping count', () => {
    const v = nodeVitalsFrom(healthBodySchema.parse(JSON.parse(FIRST_HEALTH)).checks);
    expect(v.disk).toEqual({ availableBytes: 78_140_645_376, availableRatio: 0.28 });
    // No message received or sent yet: the node leaves those ages out, and so does the exporter (not 0 s).
    expect(v.network).toEqual({
      connectedPeers: 0,
      sendFailRatio: 0,
      lastReceivedAgeSeconds: undefined,
      lastSentAgeSeconds: undefined,
      ingressConnections: undefined,
    });
    expect(v.router).toEqual({ outstandingRequests: 0, longestRunningRequestSeconds: 0 });
    expect(v.bootstrappingSubnets).toBeUndefined();
    expect(v.chains).toEqual([]);
  });
});

describe('the exporter against a node in its first seconds', () => {
  const { daemonFor } = perTestResources();

  it('health and node_vitals stay up, and /metrics and the status page show no NaN and no year-1 time', async () => {
    // The world of a node just restarted, its P-Chain bootstrapping, answering the real report of that moment.
    const node = await FakeNode.start({ state: restartBootstrapping(defaultFakeState()) });
    try {
      node.setFault('GET /ext/health', { kind: 'body', status: 503, body: FIRST_HEALTH });
      node.setFault('readiness', { kind: 'body', status: 503, body: FIRST_READINESS });
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await testHandle(daemon).waitForRounds(2);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'health' })).toBe(1);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'node_vitals' })).toBe(1);
      expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_ready', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_live', { node: 'n' })).toBe(1);
      expect(valueOf(text, 'avax_node_primary_network_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_health_check_passing', { node: 'n', check: 'P' })).toBe(0);
      expect(valueOf(text, 'avax_node_health_check_contiguous_failures', { node: 'n', check: 'P' })).toBe(0);
      expect(seriesOf(text, 'avax_node_health_check_failing_since_timestamp_seconds', { node: 'n', check: 'P' })).toEqual([]);
      expect(seriesOf(text, 'avax_node_subnet_bootstrapping', { node: 'n' })).toEqual([]);
      expect(seriesOf(text, 'avax_node_bootstrapping_subnets', { node: 'n' })).toEqual([]);
      expect(seriesOf(text, 'avax_node_chain_last_accepted_height', { node: 'n' })).toEqual([]);
      // The bootstrapped source asks chain by chain: X is not created yet, so not bootstrapped.
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: 'X' })).toBe(0);
      // The exporter's own series (the Node.js runtime's, such as the event loop lag, are not read from the node).
      for (const [series, value] of [...parseExposition(text)].filter(([series]) => series.startsWith('avax_'))) {
        expect(Number.isNaN(value), series).toBe(false);
        if (/_timestamp_seconds\{/.test(series)) expect(value, series).toBeGreaterThan(SOME_REAL_TIME);
      }
      const page = await (await fetch(`${daemon.url}/`)).text();
      expect(page).toContain('data-check="P"');
      expect(page).not.toMatch(/NaN|0001-01-01|Invalid Date/);
    } finally {
      await node.stop();
    }
  });
});
