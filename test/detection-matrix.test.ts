/**
 * The detection matrix (issue 15, point 8): the shipped alert rules, in a real
 * Prometheus, against real deployments. Each row of test/helpers/detection-rows.ts
 * is a deployment: fake AvalancheGo nodes in a real-behaviour mode
 * (test/fakes/real-modes.ts), the exporter polling them, and one Prometheus
 * scraping every row's exporter with the row's name as the `cluster` label
 * (so the rows also show that the rules keep environments apart). Each row
 * asserts which alerts are raised (pending or firing) and which never are
 * during its observation window, sampled all along and checked once more at
 * the end from the ALERTS series over the whole window; the node-unreachable
 * row also shows that pages stay raised after their data is gone and that a
 * real Alertmanager, with the shipped configuration (examples/alertmanager), silences the source-level
 * warning while the node-down page fires.
 *
 * The rules are the shipped file with every time duration divided by
 * {@link FACTOR} (test/helpers/scale-rules.ts: `for`, `keep_firing_for`, PromQL
 * ranges and offsets); thresholds are data and stay as shipped. The time each
 * incident takes to detect at the shipped durations is in docs/detection.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeNode, type FakeNodeState } from './fakes/fake-node.js';
import { FIXTURE_IDS, PRIMARY_NETWORK_ID } from './fakes/fake-data.js';
import { FakeDataApi, fixtureActiveValidation, fixtureDeniedValidation } from './fakes/fake-data-api.js';
import {
  autoRenewing,
  failedChainStart,
  inactiveL1Validator,
  ipChangedMode,
  observedOutage,
  partialSyncMode,
  pluginVmMode,
  poaSubnet,
  removedL1Validation,
  restartBootstrapping,
  restartedAfterOutage,
  stalledChain,
  subnetValidatorsOffline,
  untrackedSubnet,
} from './fakes/real-modes.js';
import { diskSpaceMode, networkActivityMode, processingMode } from './fakes/vitals-modes.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { checkPrometheusInstalled, startPrometheus, stopProcess, type Prometheus, waitFor as waitUntil } from './helpers/prometheus.js';
import { checkAlertmanagerInstalled, startAlertmanager, type Alertmanager } from './helpers/alertmanager.js';
import { ALERTS_DIR, ROOT } from './helpers/promql-contract.js';
import { formatPromDuration, parsePromDuration, scaleDuration, scaleExpr, scaleRulesText } from './helpers/scale-rules.js';
import { DETECTION_DOC_PATH, humanDuration, renderDetectionDoc, timeToDetect } from './tools/detection-doc.js';
import { FACTOR, LIVE_POLL, MATRIX, MIN_RANGE_MS, type AlertRef, type MatrixRow } from './helpers/detection-rows.js';
import {
  addL1Stranger,
  advanceChains,
  DAY,
  liveWorld,
  nonValidatorWorld,
  recordConnectivity,
  SELF,
  unreachableStake,
  smallL1,
  unhealthyStrangers,
  upgradeTime,
  validatorOf,
  WATCHER_A,
  WATCHER_B,
} from './helpers/matrix-worlds.js';

const RULES_FILE = join(ALERTS_DIR, 'avax-exporter.rules.yml');
const AM_CONFIG_FILE = join(ROOT, 'examples', 'alertmanager', 'alertmanager.yml');
const JOB = 'avax-exporter';
/** When each row's exporter was first scraped with data. */
const readyAt = new Map<string, number>();
/** How long every row is watched for alerts that must never be raised, from its exporter's first data. */
const WINDOW_MS = 40_000;
/** Ceiling of one wait (an alert to rise, data to appear). Generous: the suite runs on 2 busy cores. */
const WAIT_MS = 45_000;
/** Offline share of the offline-for-hours validator: 25 of its 100 days. */
const OFFLINE_SECONDS = 25 * DAY;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------- scaling, unit

describe('scaling the rules for a live test (test/helpers/scale-rules.ts)', () => {
  it('parses and formats Prometheus durations', () => {
    expect(parsePromDuration('1h30m')).toBe(5_400_000);
    expect(parsePromDuration('500ms')).toBe(500);
    expect(parsePromDuration('7d')).toBe(7 * 86_400_000);
    expect(parsePromDuration('300')).toBe(300_000);
    expect(() => parsePromDuration('5 minutes')).toThrow(/not a Prometheus duration/);
    expect(formatPromDuration(90_000)).toBe('1m30s');
    expect(formatPromDuration(2_500)).toBe('2s500ms');
    expect(formatPromDuration(0)).toBe('0s');
    expect(scaleDuration('15m', 60)).toBe('15s');
    expect(scaleDuration('5m', 120)).toBe('2s500ms');
    expect(scaleDuration('1m', 60, 4_000)).toBe('4s');
  });

  it('scales ranges, subquery ranges and steps, and offsets; never a threshold or a string', () => {
    const opts = { factor: 60, minRangeMs: 4_000 };
    expect(scaleExpr('rate(a{x=~"[0-9]{5m}"}[10m] offset 1h) > 600', opts)).toBe('rate(a{x=~"[0-9]{5m}"}[10s] offset 1m) > 600');
    expect(scaleExpr('max_over_time(b[7d:5m]) and changes(c[1m]) == 0', opts)).toBe('max_over_time(b[2h48m:5s]) and changes(c[4s]) == 0');
    expect(scaleExpr('d offset -2m < on () group_left () avax:threshold:x', opts)).toBe('d offset -2s < on () group_left () avax:threshold:x');
    expect(scaleExpr('time() - e > 86400', opts)).toBe('time() - e > 86400');
  });

  it('scales for and keep_firing_for of every rule, and nothing else', () => {
    const text = [
      'groups:',
      '  - name: g',
      '    rules:',
      '      - record: r:x',
      '        expr: max_over_time(x[7d])',
      '      - alert: A',
      '        expr: changes(y[15m]) == 0 and z > 604800',
      '        for: 10m',
      '        keep_firing_for: 15m',
      '        labels: { severity: critical, window: 10m }',
      '        annotations: { summary: "down for 10m" }',
    ].join('\n');
    const out = parseYaml(scaleRulesText(text, { factor: 60, minRangeMs: 4_000 })) as { groups: { rules: Record<string, unknown>[] }[] };
    expect(out.groups[0]?.rules).toEqual([
      { record: 'r:x', expr: 'max_over_time(x[2h48m])' },
      {
        alert: 'A',
        expr: 'changes(y[15s]) == 0 and z > 604800',
        for: '10s',
        keep_firing_for: '15s',
        labels: { severity: 'critical', window: '10m' },
        annotations: { summary: 'down for 10m' },
      },
    ]);
  });

  it('the shipped rules scale without error and keep every rule', () => {
    type Doc = { groups: { rules: Record<string, unknown>[] }[] };
    const shipped = parseYaml(readFileSync(RULES_FILE, 'utf8')) as Doc;
    const scaled = parseYaml(scaleRulesText(readFileSync(RULES_FILE, 'utf8'), { factor: FACTOR, minRangeMs: MIN_RANGE_MS })) as Doc;
    const names = (d: Doc) => d.groups.flatMap((g) => g.rules.map((r) => String(r['alert'] ?? r['record'])));
    expect(names(scaled)).toEqual(names(shipped));
    const strip = (d: Doc) => d.groups.flatMap((g) => g.rules.map(({ for: _f, keep_firing_for: _k, expr: _e, ...rest }) => rest));
    expect(strip(scaled)).toEqual(strip(shipped));
  });
});

describe('docs/detection.md', () => {
  it('is what the matrix and the shipped rules generate (npm run docs:detection)', () => {
    expect(readFileSync(join(ROOT, DETECTION_DOC_PATH), 'utf8')).toBe(renderDetectionDoc());
  });

  it('gives a time to detect for every raised alert of every incident row, from a rule that exists', () => {
    const doc = renderDetectionDoc();
    expect(doc).not.toContain('no such rule');
    for (const r of MATRIX.filter((x) => x.incident)) for (const a of r.raised) expect(doc).toContain(`(\`${r.cluster}\`) | ${a.alertname}`);
  });

  it('computes the time to detect from for, the poll and the Prometheus intervals', () => {
    const t = { pollMs: 15_000, pollTimeoutMs: 10_000, maxAgeMs: 45_000, dataApiMs: 60_000, scrapeMs: 15_000, evaluationMs: 30_000 };
    expect(timeToDetect({ expr: 'x == 0', for: '5m' }, 'poll', t).totalMs).toBe(15_000 + 15_000 + 30_000 + 300_000);
    expect(timeToDetect({ expr: 'x == 0', for: '3m' }, 'failed-poll', t).totalMs).toBe(25_000 + 15_000 + 30_000 + 180_000);
    expect(timeToDetect({ expr: 'changes(h[15m]) == 0 and rate(y[5m]) > 0', for: '5m' }, 'range', t).totalMs).toBe(
      15_000 + 900_000 + 15_000 + 30_000 + 300_000,
    );
    expect(timeToDetect({ expr: 'x == 1' }, 'data-api-poll', t).totalMs).toBe(60_000 + 15_000 + 30_000);
    expect(humanDuration(3_930_000)).toBe('1h 5m 30s');
  });
});

// ------------------------------------------------------------ Prometheus API

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}
interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

let prom: Prometheus | undefined;
let am: Alertmanager | undefined;

async function api<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  if (!prom) throw new Error('Prometheus is not running');
  const res = await fetch(`${prom.url}/api/v1/${path}?${new URLSearchParams(params).toString()}`);
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error ?? res.status}`);
  return body.data;
}

async function query(expr: string): Promise<Sample[]> {
  return (await api<{ result: Sample[] }>('query', { query: expr })).result;
}

/** The active alerts, fetched at most every 400 ms whatever the number of rows asking. */
let alertsCache: { at: number; alerts: Promise<Alert[]> } | undefined;
function activeAlerts(): Promise<Alert[]> {
  if (!alertsCache || Date.now() - alertsCache.at > 400) {
    const p = api<{ alerts: Alert[] }>('alerts').then((d) => d.alerts);
    p.catch(() => undefined);
    alertsCache = { at: Date.now(), alerts: p };
  }
  return alertsCache.alerts;
}

const matches = (labels: Record<string, string>, ref: AlertRef & { labels?: Record<string, string> }) =>
  labels['alertname'] === ref.alertname &&
  (ref.severity === undefined || labels['severity'] === ref.severity) &&
  Object.entries(ref.labels ?? {}).every(([k, v]) => labels[k] === v);

const describeAlert = (l: Record<string, string>) =>
  `${l['alertname']}{${Object.entries(l)
    .filter(([k]) => k !== 'alertname')
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

async function alertsOf(cluster: string): Promise<Alert[]> {
  return (await activeAlerts()).filter((a) => a.labels['cluster'] === cluster);
}

/** Polls `fn` until it returns a value (see the helper), within this file's wait. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = WAIT_MS, stepMs = 250): Promise<T> {
  return waitUntil(what, fn, timeoutMs, stepMs);
}

/** Waits until an alert of the cluster matching `ref` is raised (or firing); returns it. */
async function waitRaised(cluster: string, ref: AlertRef & { labels?: Record<string, string> }, firing = false): Promise<Alert> {
  return waitFor(`${ref.alertname}${ref.severity ? `{severity="${ref.severity}"}` : ''} ${firing ? 'firing' : 'raised'} in ${cluster}`, async () => {
    const found = (await alertsOf(cluster)).find((a) => matches(a.labels, ref) && (!firing || a.state === 'firing'));
    return found;
  });
}

/** Every alert of the cluster raised (pending or firing) at any evaluation in the last `ms`, from the ALERTS series. */
async function raisedDuring(cluster: string, ms: number): Promise<Record<string, string>[]> {
  const range = formatPromDuration(Math.ceil(ms / 1000) * 1000 + 2_000);
  return (await query(`last_over_time(ALERTS{cluster="${cluster}"}[${range}])`)).map((s) => s.metric);
}

/** Violations of a row's `never` and `silent` lists among these alert label sets. */
function violations(row: MatrixRow, labelSets: Record<string, string>[]): string[] {
  const out: string[] = [];
  for (const l of labelSets) {
    if (row.never.some((n) => matches(l, n))) out.push(`never: ${describeAlert(l)}`);
    else if (row.silent.includes(l['severity'] as never) && !row.raised.some((r) => matches(l, r))) out.push(`silent ${l['severity']}: ${describeAlert(l)}`);
  }
  return [...new Set(out)];
}

// ------------------------------------------------------------- deployments

/** One row's deployment: its fake nodes, its exporter, and the chains that move on each node. */
interface Deployment {
  nodes: Record<string, FakeNode>;
  exporter: TestDaemon;
  moving: { node: FakeNode; chains: string[] }[];
  /** Node ids that are strangers (not watched) in this row. */
  strangers: string[];
  /** The row's fake Data API, when it has one. */
  dataApi?: FakeDataApi;
  /** Run every second with the chains' ticker (e.g. the Data API's own head moving). */
  onTick?: () => void;
  /** The subnet a row is about, when it builds one (a PoA subnet). */
  subnetId?: string;
}

async function deploy(
  nodes: Record<string, { state: FakeNodeState; watch?: Record<string, unknown>; moving?: string[] }>,
  strangers: string[] = [],
  dataApi?: Record<string, unknown>,
): Promise<Deployment> {
  const started: Record<string, FakeNode> = {};
  for (const [name, n] of Object.entries(nodes)) started[name] = await FakeNode.start({ state: n.state, maxCalls: 1000 });
  const exporter = await startTestDaemon({
    nodes: Object.entries(nodes).map(([name, n]) => ({ name, url: (started[name] as FakeNode).url, ...(n.watch ? { watch: n.watch } : {}) })),
    poll: LIVE_POLL,
    ...(dataApi ? { data_api: dataApi } : {}),
  });
  return {
    nodes: started,
    exporter,
    moving: Object.entries(nodes).map(([name, n]) => ({ node: started[name] as FakeNode, chains: n.moving ?? ['P', 'C'] })),
    strangers,
  };
}

/** A deployment with its own fake Data API (the fake's default world, changed by `edit`), polled every second. */
async function withDataApi(nodes: Parameters<typeof deploy>[0], edit: (s: FakeDataApi['state']) => void = () => undefined): Promise<Deployment> {
  const dataApi = await FakeDataApi.start({ maxCalls: 1000 });
  edit(dataApi.state);
  return deployWith(dataApi, nodes);
}

/** Deploys `nodes` with the exporter's Data API section on `dataApi`: polled every 2 s, under a rate limit no row reaches. */
async function deployWith(dataApi: FakeDataApi, nodes: Parameters<typeof deploy>[0]): Promise<Deployment> {
  const d = await deploy(nodes, [], { url: dataApi.url, network: 'mainnet', interval: LIVE_POLL.interval, rate_limit: 6_000 });
  d.dataApi = dataApi;
  return d;
}

const OTHER_PROPOSER = 'NodeID-Lrn2ZrcnusnEQwVBU8i7spYM1G3V9ZVW9';

/**
 * A validator with the Data API whose C-Chain head moves a block a second
 * (with the node's own C-Chain, so the node is not behind it), each block
 * proposed by `proposer`: the validator itself (it proposes) or another one
 * (a drought: its last C-Chain block stays the fixture's, months old).
 */
async function proposerDeployment(now: number, proposer: string, edit: (s: FakeNodeState) => void = () => undefined): Promise<Deployment> {
  const s = liveWorld(now);
  edit(s);
  const v = validatorOf(s, SELF);
  const active = { ...fixtureActiveValidation(SELF), startTimestamp: v.startTime, endTimestamp: v.endTime };
  // No L1 validations: this row is about the primary network (an unwatched active L1 validation would raise its own warning).
  const dataApi = await FakeDataApi.start({ state: { validations: { [SELF]: [active] }, l1Validators: [] }, maxCalls: 5000 });
  const d = await deployWith(dataApi, { validator: { state: s } });
  d.onTick = () => void dataApi.addBlock('c-chain', proposer);
  return d;
}

/** The database volume of the disk rows: 1 TB. */
const DISK_BYTES = 1e12;

/** Builds the deployment of each row of the matrix. */
const DEPLOY: Record<string, (now: number) => Promise<Deployment>> = {
  'healthy-validator': (now) => deploy({ validator: { state: liveWorld(now) } }),
  'offline-for-hours': (now) => {
    const watcher = observedOutage(nonValidatorWorld(now, WATCHER_A), SELF, OFFLINE_SECONDS, false, now);
    return deploy({
      validator: { state: restartedAfterOutage(liveWorld(now), OFFLINE_SECONDS, now) },
      watcher: { state: watcher, watch: { node_ids: [SELF] } },
    });
  },
  'node-unreachable': (now) => deploy({ validator: { state: liveWorld(now) } }),
  'rpc-node': (now) => deploy({ rpc: { state: nonValidatorWorld(now) } }),
  'all-validators': (now) => {
    const s = liveWorld(now);
    const strangers = unhealthyStrangers(now);
    s.primaryValidators.push(...strangers);
    const ids = [...strangers.map((v) => v.nodeId), FIXTURE_IDS.disconnectedValidatorNodeId];
    return deploy({ validator: { state: s, watch: { all_validators: true } } }, ids);
  },
  'renewing-near-end': (now) => {
    const s = liveWorld(now);
    validatorOf(s, SELF).endTime = now + 3 * DAY;
    return deploy({ validator: { state: autoRenewing(s, SELF, 14 * DAY, 500_000) } });
  },
  'ending-without-renewal': (now) => {
    const s = liveWorld(now);
    validatorOf(s, SELF).endTime = now + 3 * DAY;
    return deploy({ validator: { state: s } });
  },
  'p-chain-only': (now) => deploy({ l1validator: { state: partialSyncMode(liveWorld(now)), moving: ['P'] } }),
  'acp267-at-86': (now) => {
    const s = liveWorld(now);
    s.upgrades.heliconTime = upgradeTime(now - 60 * DAY);
    const v = validatorOf(s, SELF);
    v.startTime = now - 30 * DAY;
    v.endTime = now + 335 * DAY;
    // What the network sees (the peers; info.uptime is computed from them); the node's own view after a restart stays high.
    for (const p of s.peers) p.observedUptime = 86;
    v.uptime = 99.9;
    return deploy({ validator: { state: s } });
  },
  'one-bad-observer': (now) => {
    const bad = nonValidatorWorld(now, WATCHER_A);
    const seenBadly = validatorOf(bad, SELF);
    seenBadly.uptime = 60;
    seenBadly.connected = false;
    // A badly connected node also lists the validator as disconnected in its chains' health checks.
    for (const c of ['P', 'X', 'C']) {
      const msg = bad.health[c]?.message as { networking?: { disconnectedValidators: string[] } } | undefined;
      msg?.networking?.disconnectedValidators.push(SELF);
    }
    const good = nonValidatorWorld(now, WATCHER_B);
    validatorOf(good, SELF).uptime = 99.5;
    return deploy({ a: { state: bad, watch: { node_ids: [SELF] } }, b: { state: good, watch: { node_ids: [SELF] } } });
  },
  'quiet-chain': (now) => deploy({ validator: { state: liveWorld(now), moving: ['P', 'C'] } }),
  'validation-ended': (now) => deploy({ validator: { state: liveWorld(now) } }),
  'reward-denied': async (now) => {
    const s = liveWorld(now);
    const v = validatorOf(s, SELF);
    v.startTime = now - 2 * DAY;
    v.endTime = now + 363 * DAY;
    const active = { ...fixtureActiveValidation(SELF), startTimestamp: v.startTime, endTimestamp: v.endTime };
    const denied = { ...fixtureDeniedValidation(SELF), startTimestamp: now - 367 * DAY, endTimestamp: now - 2 * DAY };
    // This row is about the primary network: the Data API lists no L1 validation of the node (the l1-unwatched row has one).
    const dataApi = await FakeDataApi.start({ state: { validations: { [SELF]: [active, denied] }, l1Validators: [] }, maxCalls: 1000 });
    return deployWith(dataApi, { validator: { state: s } });
  },
  'healthy-proposer': (now) => proposerDeployment(now, SELF),
  'proposer-drought': (now) => proposerDeployment(now, OTHER_PROPOSER),
  'l1-validator-runs-dry': (now) => deploy({ validator: { state: liveWorld(now), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } } }),
  'l1-stranger-runs-dry': (now) => {
    const s = liveWorld(now);
    const stranger = addL1Stranger(s, now, 5_000_000_000n);
    return deploy({ validator: { state: s, watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId], all_validators: true } } }, [
      stranger.nodeId,
      FIXTURE_IDS.l1InactiveNodeId,
      FIXTURE_IDS.disconnectedValidatorNodeId,
    ]);
  },
  'public-ip-changed': (now) => deploy({ validator: { state: liveWorld(now) } }),
  'l1-plugin-versions': (now) => {
    const watch = { subnet_ids: [FIXTURE_IDS.l1SubnetId] };
    const behind = nonValidatorWorld(now, WATCHER_B);
    pluginVmMode(behind, FIXTURE_IDS.subnetEvmVmId, 'v0.7.4');
    behind.nodeIp = '203.0.113.12:9651';
    return deploy({ a: { state: liveWorld(now), watch }, b: { state: behind, watch } });
  },
  'l1-unwatched': (now) => withDataApi({ validator: { state: liveWorld(now) } }),
  'l1-watched-data-api': (now) => withDataApi({ validator: { state: liveWorld(now), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } } }),
  'l1-runway-node-bootstrapping': (now) =>
    withDataApi({ validator: { state: liveWorld(now), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } } }, (st) => {
      const mine = st.l1Validators?.find((v) => v.validationId === FIXTURE_IDS.l1ValidationId);
      if (!mine) throw new Error("no L1 validation of the node in the fake Data API's world");
      mine.remainingBalance = 125_000_000;
    }),
  'l1-chain-not-validating': (now) => deploy({ validator: { state: liveWorld(now), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } } }),
  'stalled-chain': (now) => deploy({ a: { state: liveWorld(now), moving: ['P'] }, b: { state: nonValidatorWorld(now, WATCHER_B), moving: ['P', 'C'] } }),
  // The node's vitals (issue 25): the figures move with the wall clock, recomputed every second by the ticker.
  'disk-filling': async (now) => {
    const s = liveWorld(now);
    const d = await deploy({ validator: { state: s } });
    // 20 % of 1 TB available, 17 % of it used in 10 hours: 3 % left then.
    const fill = () => diskSpaceMode(s, { totalBytes: DISK_BYTES, availableBytes: DISK_BYTES * (0.2 - (0.17 * (Date.now() / 1000 - now)) / (10 * 3600)) });
    fill();
    d.onTick = fill;
    return d;
  },
  'disk-steady-15': (now) => deploy({ validator: { state: diskSpaceMode(liveWorld(now), { totalBytes: DISK_BYTES, availableBytes: DISK_BYTES * 0.155 }) } }),
  'consensus-stuck': async (now) => {
    const s = liveWorld(now);
    // Processing since 5 minutes before the row starts (a block "processing for minutes").
    const stuck = () => processingMode(s, 'C', { blocks: 1, oldestSeconds: Date.now() / 1000 - (now - 300) });
    stuck();
    const d = await deploy({ a: { state: s, moving: ['P'] }, b: { state: nonValidatorWorld(now, WATCHER_B), moving: ['P', 'C'] } });
    d.onTick = stuck;
    return d;
  },
  'network-silent': async (now) => {
    const s = liveWorld(now);
    // Nothing received since 150 s before the row starts; it still sends. Its chains do not move.
    const silent = () => networkActivityMode(s, { receivedAgoSeconds: Date.now() / 1000 - (now - 150), sentAgoSeconds: 0.004, sendFailRate: 0.0004 });
    silent();
    const d = await deploy({ validator: { state: s, moving: [] } });
    d.onTick = silent;
    return d;
  },
  // Issue 22.
  'unreachable-stake': (now) => {
    const s = liveWorld(now);
    s.upgrades.heliconTime = upgradeTime(now - 200 * DAY);
    unreachableStake(s, 0.12);
    return deploy({ validator: { state: s } });
  },
  'l1-validation-removed': (now) => deploy({ validator: { state: liveWorld(now), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } } }),
  'poa-validator-expired': async (now) => {
    const s = liveWorld(now);
    const subnetId = poaSubnet(s, 'matrix', now + 200 * DAY, now);
    const d = await deploy({ validator: { state: s, watch: { subnet_ids: [subnetId] } } });
    d.subnetId = subnetId;
    return d;
  },
  'renewing-under-requirement': (now) => {
    const s = liveWorld(now);
    const v = validatorOf(s, SELF);
    v.startTime = now - 11 * DAY;
    v.endTime = now + 3 * DAY;
    // The connected stake sees it at 60 %; its own view of itself stays near 100 %.
    for (const p of s.peers) p.observedUptime = 60;
    return deploy({ validator: { state: autoRenewing(s, SELF, 14 * DAY, 500_000) } });
  },
  'restaked-hours-ago': (now) =>
    proposerDeployment(now, OTHER_PROPOSER, (s) => {
      // 3 million AVAX on each peer: the validator holds 0.02 % of the stake, a block every ~75 minutes.
      const peers = new Set(s.peers.map((p) => p.nodeId));
      for (const v of s.primaryValidators) if (peers.has(v.nodeId)) v.weight = 3_000_000_000_000_000n;
      recordConnectivity(s);
      const v = validatorOf(s, SELF);
      v.startTime = now - 3 * 3600;
      v.endTime = v.startTime + 365 * DAY;
    }),
  'dead-validator-watched': (now) =>
    deploy({ validator: { state: liveWorld(now) }, watcher: { state: nonValidatorWorld(now, WATCHER_A), watch: { node_ids: [SELF] } } }),
  'single-node-p-chain-down': async (now) => {
    const s = restartedAfterOutage(liveWorld(now), 25 * DAY, now);
    const v = validatorOf(s, SELF);
    const active = { ...fixtureActiveValidation(SELF), startTimestamp: v.startTime, endTimestamp: v.endTime, uptimePerformance: 75 };
    const dataApi = await FakeDataApi.start({ state: { validations: { [SELF]: [active] }, l1Validators: [] }, maxCalls: 5000 });
    return deployWith(dataApi, { validator: { state: s } });
  },
  // Issue 22 (points 2, 5, 6).
  'small-l1-validator-offline': (now) => {
    const s = liveWorld(now);
    const others = smallL1(s, now);
    return deploy({
      validator: { state: subnetValidatorsOffline(s, FIXTURE_IDS.l1SubnetId, others.slice(0, 1)), watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] } },
    });
  },
  'slow-restart': (now) => deploy({ validator: { state: liveWorld(now) } }),
  'l1-chain-failed-to-start': (now) =>
    deploy({
      validator: {
        state: failedChainStart(liveWorld(now), FIXTURE_IDS.l1ChainId, 'plugin speaks RPCChainVM protocol 39, node speaks 41'),
        watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] },
      },
    }),
  'l1-chain-stalled': async (now) => {
    const s = liveWorld(now);
    const others = smallL1(s, now);
    const d = await deploy({ validator: { state: s, watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId] }, moving: ['P', 'C', FIXTURE_IDS.l1ChainId] } }, others);
    return d;
  },
};

// -------------------------------------------------------------------- setup

const deployments = new Map<string, Deployment>();
let dir = '';
let ticker: NodeJS.Timeout | undefined;
let setupError: Error | undefined;
const processExitGuard = () => {
  prom?.child.kill('SIGKILL');
  am?.child.kill('SIGKILL');
};

/**
 * The shipped Alertmanager configuration (examples/alertmanager/alertmanager.yml, whose
 * inhibitions test/alertmanager.test.ts holds equal to the runbook's), with its receivers'
 * notifications left out as they are there, and groups sent at once.
 */
function shippedAlertmanagerConfig(): Record<string, unknown> {
  const config = parseYaml(readFileSync(AM_CONFIG_FILE, 'utf8')) as { route: Record<string, unknown>; inhibit_rules?: unknown[] };
  if (!Array.isArray(config.inhibit_rules) || config.inhibit_rules.length === 0) throw new Error(`${AM_CONFIG_FILE} has no inhibit_rules`);
  return { ...config, route: { ...config.route, group_wait: '1s', group_interval: '1s' } };
}

async function start(): Promise<void> {
  checkPrometheusInstalled();
  checkAlertmanagerInstalled();
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-matrix-'));
  const now = Math.floor(Date.now() / 1000);
  const missing = MATRIX.filter((r) => !DEPLOY[r.cluster]).map((r) => r.cluster);
  if (missing.length) throw new Error(`no deployment for rows ${missing.join(', ')}`);
  await Promise.all(
    MATRIX.map(async (r) => {
      deployments.set(r.cluster, await (DEPLOY[r.cluster] as (n: number) => Promise<Deployment>)(now));
    }),
  );
  loopDelay.enable();
  ticker = setInterval(() => {
    for (const d of deployments.values()) {
      for (const m of d.moving) advanceChains(m.node.state, m.chains);
      d.onTick?.();
    }
  }, 1000);

  writeFileSync(join(dir, 'alertmanager.yml'), JSON.stringify(shippedAlertmanagerConfig(), null, 2));
  process.once('exit', processExitGuard);
  am = await startAlertmanager(dir, join(dir, 'alertmanager.yml'));

  writeFileSync(join(dir, 'rules.yml'), scaleRulesText(readFileSync(RULES_FILE, 'utf8'), { factor: FACTOR, minRangeMs: MIN_RANGE_MS }));
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [join(dir, 'rules.yml')],
    alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(am.url).host] }] }] },
    scrape_configs: [
      {
        job_name: JOB,
        static_configs: MATRIX.map((r) => ({
          targets: [new URL((deployments.get(r.cluster) as Deployment).exporter.daemon.url).host],
          labels: { cluster: r.cluster },
        })),
      },
    ],
  };
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  prom = await startPrometheus(dir, join(dir, 'prometheus.yml'));
}

/** Each row's run, started together once everything is up (rows are independent, so they overlap in time). */
const rowRuns = new Map<string, Promise<void>>();

beforeAll(async () => {
  try {
    await start();
  } catch (err) {
    setupError = err as Error;
    return;
  }
  for (const row of MATRIX) {
    const run = runRow(row);
    // Handled here so a row that fails before its test awaits it is not an unhandled rejection; the test rethrows it.
    run.catch(() => undefined);
    rowRuns.set(row.cluster, run);
  }
}, 90_000);

afterAll(async () => {
  loopDelay.disable();
  if (ticker) clearInterval(ticker);
  const children = [prom?.child, am?.child];
  for (const c of children) if (c) await stopProcess(c);
  process.off('exit', processExitGuard);
  await Promise.all(
    [...deployments.values()].map(async (d) => {
      await d.exporter.daemon.stop();
      await Promise.all(Object.values(d.nodes).map((n) => n.stop()));
      await d.dataApi?.stop();
    }),
  );
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

function setUp(): void {
  if (setupError) throw setupError;
}

/** Waits until Prometheus scrapes the row's exporter and the exporter has polled every node once; returns when. */
async function waitReady(cluster: string): Promise<number> {
  await waitFor(`${cluster}: its exporter scraped and ready`, async () =>
    (await query(`avax_exporter_ready{cluster="${cluster}"} == 1`)).length === 1 ? true : undefined,
  );
  return Date.now();
}

/** The value of an instant query that must return exactly one series. */
async function valueOf(expr: string): Promise<number> {
  const r = await waitFor(`${expr} to return one series`, async () => {
    const s = await query(expr);
    return s.length === 1 ? s : undefined;
  });
  return Number(r[0]?.value[1]);
}

/**
 * This process's event-loop delay while the matrix runs. Every row's exporter and fake nodes run in it: a stall
 * longer than a poll's timeout fails polls that no node caused, and the source alerts that follow are the test
 * machine's, not the rules'. A failing check says how long the longest stall was, so such a run is told apart.
 */
const loopDelay = monitorEventLoopDelay({ resolution: 20 });

/**
 * Fails with `bad` when it is not empty, adding what tells a starved test process from a real incident: the
 * row's failed polls of the last 30 s by reason, and this process's longest event-loop stalls.
 */
async function expectNone(bad: string[], cluster: string, what: string): Promise<void> {
  if (bad.length === 0) return;
  const failed = await query(`sum by (node, source, reason) (increase(avax_source_poll_failures_total{cluster="${cluster}"}[30s])) > 0`).catch(() => []);
  const context = [
    ...failed.map(
      (f) => `(context) failed polls in the last 30 s: ${f.metric['node']}/${f.metric['source']}, ${f.metric['reason']}: ${Number(f.value[1]).toFixed(1)}`,
    ),
    `(context) this process's event-loop delay since the matrix started: p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms`,
  ];
  expect([...bad, ...context], `${cluster}: ${what}`).toEqual([]);
}

/**
 * Watches a row until `until` (ms since epoch): every second, no active alert
 * may break its `never` or `silent` lists.
 */
async function watchRow(row: MatrixRow, until: number, extra: (a: Alert) => string | undefined = () => undefined): Promise<void> {
  while (Date.now() < until) {
    const alerts = await alertsOf(row.cluster);
    const bad = [
      ...violations(
        row,
        alerts.map((a) => a.labels),
      ),
      ...alerts.flatMap((a) => extra(a) ?? []),
    ];
    await expectNone(bad, row.cluster, 'alerts raised that must not be');
    await sleep(1000);
  }
}

// -------------------------------------------------------------------- rows

/** Premises: the row's deployment really is what it claims (checked through Prometheus). */
const PREMISES: Record<string, () => Promise<void>> = {
  'unreachable-stake': async () => {
    const c = 'cluster="unreachable-stake"';
    // info.uptime (AvalancheGo's computation) is under the 90 % requirement; the stake that sees the node says 99 %+.
    expect(await valueOf(`avax_node_uptime_weighted_average_ratio{${c}}`)).toBeLessThan(0.9);
    expect(await valueOf(`avax_node_stake_observed_uptime_ratio{${c},stake_quantile="0.5"}`)).toBeGreaterThanOrEqual(0.99);
    expect(await valueOf(`avax_validator_reward_uptime_threshold_ratio{${c},node_id="${SELF}"}`)).toBeCloseTo(0.9, 6);
    expect(await valueOf(`avax_node_connected_stake_ratio{${c},chain="P"}`)).toBeCloseTo(0.88, 2);
  },
  'renewing-under-requirement': async () => {
    const c = `cluster="renewing-under-requirement",node_id="${SELF}"`;
    expect(await valueOf(`avax_validator_renews{${c}}`)).toBe(1);
    expect(await valueOf(`avax_validator:uptime_ratio:network{${c}}`)).toBeCloseTo(0.6, 2);
  },
  'restaked-hours-ago': async () => {
    const c = `cluster="restaked-hours-ago",node_id="${SELF}"`;
    expect(await valueOf(`avax_validator_stake_share_ratio{${c}}`)).toBeLessThan(0.001);
    expect(await valueOf(`time() - avax_validator_last_proposed_block_timestamp_seconds{${c},chain="C"}`)).toBeGreaterThan(DAY);
    expect(await valueOf(`time() - avax_validator_start_timestamp_seconds{${c},subnet="${PRIMARY_NETWORK_ID}"}`)).toBeLessThan(4 * 3600);
  },
  'offline-for-hours': async () => {
    const c = 'cluster="offline-for-hours"';
    // The node's own view stays near 100 % and connected; the network's view shows the outage.
    expect(await valueOf(`avax_validator_uptime_ratio{${c},node="validator",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"}`)).toBeGreaterThan(0.99);
    expect(await valueOf(`avax_validator_connected{${c},node="validator",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"}`)).toBe(1);
    // info.uptime is computed from the peers (75 %) over the total stake, the unreachable part counting 0 %.
    expect(await valueOf(`avax_node_uptime_weighted_average_ratio{${c},node="validator"}`)).toBeLessThan(0.75);
    expect(await valueOf(`avax_node_stake_observed_uptime_ratio{${c},node="validator",stake_quantile="0.5"}`)).toBeCloseTo(0.75, 2);
    expect(await valueOf(`avax_validator_uptime_ratio{${c},node="watcher",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"}`)).toBeCloseTo(0.75, 2);
  },
  'rpc-node': async () => {
    expect(await valueOf('avax_node_is_validator{cluster="rpc-node"}')).toBe(0);
  },
  'acp267-at-86': async () => {
    const c = `cluster="acp267-at-86",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"`;
    expect(await valueOf(`avax_validator_reward_uptime_threshold_ratio{${c}}`)).toBeCloseTo(0.9, 6);
    expect(await valueOf('avax_node_stake_observed_uptime_ratio{cluster="acp267-at-86",stake_quantile="0.5"}')).toBeCloseTo(0.86, 6);
  },
  'one-bad-observer': async () => {
    const c = `cluster="one-bad-observer",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"`;
    expect(await valueOf(`avax_validator_uptime_ratio{${c},node="a"}`)).toBeCloseTo(0.6, 4);
    expect(await valueOf(`avax_validator_connected{${c},node="a"}`)).toBe(0);
    expect(await valueOf(`avax_validator_uptime_ratio{${c},node="b"}`)).toBeCloseTo(0.995, 4);
  },
  'renewing-near-end': async () => {
    expect(await valueOf(`avax_validator_renews{cluster="renewing-near-end",node_id="${SELF}"}`)).toBe(1);
  },
  'ending-without-renewal': async () => {
    expect(await valueOf(`avax_validator_renews{cluster="ending-without-renewal",node_id="${SELF}"}`)).toBe(0);
    expect(await valueOf(`avax_validator_end_timestamp_seconds{cluster="ending-without-renewal",node_id="${SELF}"} - time()`)).toBeLessThan(7 * DAY);
  },
  'reward-denied': async () => {
    expect(await valueOf(`avax_data_api_validator_last_reward_denied{cluster="reward-denied",node_id="${SELF}"}`)).toBe(1);
  },
  'l1-unwatched': async () => {
    expect(await valueOf(`avax_data_api_l1_validator_active{cluster="l1-unwatched",node_id="${SELF}",subnet="${FIXTURE_IDS.l1SubnetId}"}`)).toBe(1);
    expect(await query('avax_exporter_watched_subnet{cluster="l1-unwatched"}')).toEqual([]);
  },
  'l1-watched-data-api': async () => {
    expect(await valueOf(`avax_exporter_watched_subnet{cluster="l1-watched-data-api",subnet="${FIXTURE_IDS.l1SubnetId}"}`)).toBe(1);
    expect(await valueOf(`avax_data_api_l1_validator_active{cluster="l1-watched-data-api",subnet="${FIXTURE_IDS.l1SubnetId}"}`)).toBe(1);
  },
  'l1-runway-node-bootstrapping': async () => {
    // While the node answers, its own runway (months) is the one judged, whatever the Data API's balance says.
    const c = 'cluster="l1-runway-node-bootstrapping"';
    expect(await valueOf(`avax_validator:l1_balance_runway_seconds:min{${c},node_id="${SELF}"}`)).toBeGreaterThan(30 * DAY);
    expect(await valueOf(`avax_validator:l1_balance_runway_seconds:data_api{${c},node_id="${SELF}"}`)).toBeLessThan(3 * DAY);
  },
  'healthy-proposer': async () => {
    const c = `cluster="healthy-proposer",node_id="${SELF}"`;
    expect(await valueOf(`avax_validator_stake_share_ratio{${c}}`)).toBeGreaterThan(0);
    await waitFor('healthy-proposer: the validator proposing C-Chain blocks', async () =>
      (await query(`increase(avax_validator_proposed_blocks_total{${c},chain="C"}[5s]) > 0`)).length === 1 ? true : undefined,
    );
  },
  'proposer-drought': async () => {
    const c = `cluster="proposer-drought",node_id="${SELF}"`;
    expect(await valueOf(`avax_validator_stake_share_ratio{${c}}`)).toBeGreaterThan(0);
    expect(await valueOf(`time() - avax_validator_last_proposed_block_timestamp_seconds{${c},chain="C"}`)).toBeGreaterThan(DAY);
  },
  'p-chain-only': async () => {
    expect(await valueOf('avax_node_partial_sync{cluster="p-chain-only"}')).toBe(1);
  },
  'all-validators': async () => {
    const strangers = (deployments.get('all-validators') as Deployment).strangers;
    const exported = await query('avax_validator_uptime_ratio{cluster="all-validators"}');
    for (const id of strangers)
      expect(
        exported.map((s) => s.metric['node_id']),
        'strangers are exported for dashboards',
      ).toContain(id);
  },
  'disk-filling': async () => {
    const c = 'cluster="disk-filling",node="validator"';
    // AvalancheGo still reports the disk as fine: 19 % (rounded down), the node healthy.
    expect(await valueOf(`avax_node_disk_available_ratio{${c}}`)).toBe(0.19);
    expect(await valueOf(`avax_node_healthy{${c}}`)).toBe(1);
  },
  'disk-steady-15': async () => {
    expect(await valueOf('avax_node_disk_available_ratio{cluster="disk-steady-15"}')).toBe(0.15);
  },
  'consensus-stuck': async () => {
    const c = 'cluster="consensus-stuck",node="a"';
    expect(await valueOf(`avax_node_is_validator{${c}}`)).toBe(1);
    expect(await valueOf(`avax_node_chain_processing_blocks{${c},chain="C"}`)).toBe(1);
    expect(await valueOf(`avax_node_chain_longest_processing_block_seconds{${c},chain="C"}`)).toBeGreaterThan(300);
  },
  'network-silent': async () => {
    expect(await valueOf('avax_node_network_last_message_received_age_seconds{cluster="network-silent"}')).toBeGreaterThan(150);
    expect(await valueOf('avax_node_network_last_message_sent_age_seconds{cluster="network-silent"}')).toBeLessThan(1);
  },
  'small-l1-validator-offline': async () => {
    const c = 'cluster="small-l1-validator-offline",node="validator"';
    // The whole report fails, the node's own does not.
    expect(await valueOf(`avax_node_healthy{${c}}`)).toBe(0);
    expect(await valueOf(`avax_node_primary_network_healthy{${c}}`)).toBe(1);
    expect(await valueOf(`avax_node_connected_stake_ratio{${c},chain="${FIXTURE_IDS.l1ChainId}"}`)).toBeCloseTo(0.75, 6);
  },
  'l1-chain-failed-to-start': async () => {
    const c = `cluster="l1-chain-failed-to-start",node="validator"`;
    expect(await valueOf(`avax_l1_chain_failed_to_start{${c},chain="${FIXTURE_IDS.l1ChainId}"}`)).toBe(1);
    expect(await valueOf(`avax_node_blockchain_status{${c},chain="${FIXTURE_IDS.l1ChainId}",status="Created"}`)).toBe(1);
    // The bootstrapped source stays up: P, X and C keep their bootstrap state; the failed chain has none. Waited
    // for rather than read once: on two cores shared with promtool, one round can miss its 1 s deadline (the
    // source is then down for that round), while a source the failed chain broke would stay down.
    await waitFor(`${c}: the bootstrapped source up`, async () => ((await valueOf(`avax_source_up{${c},source="bootstrapped"}`)) === 1 ? true : undefined));
    expect(await valueOf(`count(avax_node_bootstrapped{${c}} == 1)`)).toBe(3);
    expect(await query(`avax_node_bootstrapped{${c},chain="${FIXTURE_IDS.l1ChainId}"}`)).toEqual([]);
    expect(await valueOf(`avax_node_ready{${c}}`)).toBe(0);
  },
  'quiet-chain': async () => {
    // X does not move while P does (it does move on a real network, slowly; here nothing shows it moving).
    await sleep(5_000);
    expect(await valueOf('changes(avax_chain_height{cluster="quiet-chain",chain="X"}[5s])')).toBe(0);
    expect(await valueOf('changes(avax_chain_height{cluster="quiet-chain",chain="P"}[5s])')).toBeGreaterThan(0);
  },
};

/** Waits until the recording rule holds the validator as active (so "was in the set" is on record). */
async function waitActiveOnRecord(cluster: string, nodeId: string, subnet: string): Promise<void> {
  await waitFor(`${cluster}: ${nodeId} active on record`, async () =>
    (await query(`avax_validator:active:max{cluster="${cluster}",node_id="${nodeId}",subnet="${subnet}"} == 1`)).length === 1 ? true : undefined,
  );
}

/** Incidents that start during the window, once the row is running (the alerts to raise are awaited after). */
const ACTIONS: Record<string, (d: Deployment) => Promise<void>> = {
  'l1-validation-removed': async (d) => {
    await waitActiveOnRecord('l1-validation-removed', SELF, FIXTURE_IDS.l1SubnetId);
    removedL1Validation((d.nodes['validator'] as FakeNode).state, FIXTURE_IDS.l1ValidationId);
  },
  'poa-validator-expired': async (d) => {
    const subnetId = d.subnetId as string;
    await waitActiveOnRecord('poa-validator-expired', SELF, subnetId);
    // The P-Chain's time reaches the staker's end time: the fake's clock removes it from the subnet's set.
    const staker = (d.nodes['validator'] as FakeNode).state.subnets[subnetId]?.validators.find((v) => v.nodeId === SELF);
    if (!staker || !('endTime' in staker)) throw new Error('no PoA staker of the node');
    staker.endTime = Math.floor(Date.now() / 1000);
  },
  'dead-validator-watched': (d) => deadValidatorWatched(d),
  'single-node-p-chain-down': (d) => singleNodePChainDown(d),
  'validation-ended': async (d) => {
    await waitActiveOnRecord('validation-ended', SELF, PRIMARY_NETWORK_ID);
    const s = (d.nodes['validator'] as FakeNode).state;
    // The validation ended and nothing renewed it: the P-Chain drops it from the set, info.uptime says "not a validator".
    s.primaryValidators = s.primaryValidators.filter((v) => v.nodeId !== SELF);
    s.uptime = null;
  },
  'public-ip-changed': async (d) => {
    // The old address on record first, so the new one is a change and not the first sample.
    await waitFor('public-ip-changed: the first address on record', async () =>
      (await query('avax_node_ip_info{cluster="public-ip-changed",ip="203.0.113.10:9651"}')).length === 1 ? true : undefined,
    );
    ipChangedMode((d.nodes['validator'] as FakeNode).state, '198.51.100.7');
  },
  'l1-validator-runs-dry': async (d) => {
    await waitActiveOnRecord('l1-validator-runs-dry', SELF, FIXTURE_IDS.l1SubnetId);
    inactiveL1Validator((d.nodes['validator'] as FakeNode).state, FIXTURE_IDS.l1ValidationId);
  },
  'l1-runway-node-bootstrapping': (d) => {
    // P-Chain bootstrapping again (a resync): every /ext/bc/P call answers 503 "not done bootstrapping".
    (d.nodes['validator'] as FakeNode).state.bootstrapped['P'] = false;
    return Promise.resolve();
  },
  'l1-chain-not-validating': async (d) => {
    await waitActiveOnRecord('l1-chain-not-validating', SELF, FIXTURE_IDS.l1SubnetId);
    await waitFor('l1-chain-not-validating: the L1 chain Validating on record', async () =>
      (await query(`avax_node_blockchain_status{cluster="l1-chain-not-validating",subnet="${FIXTURE_IDS.l1SubnetId}",status="Validating"} == 1`)).length === 1
        ? true
        : undefined,
    );
    // The node is restarted without the L1 in --track-subnets: its chain reads Created, it stays in the set.
    untrackedSubnet((d.nodes['validator'] as FakeNode).state, FIXTURE_IDS.l1SubnetId);
  },
  'slow-restart': async (d) => {
    const c = 'cluster="slow-restart",node="validator"';
    const s = (d.nodes['validator'] as FakeNode).state;
    restartBootstrapping(s);
    // The node's own health fails while its chains bootstrap: the page is held, not missed.
    await waitFor('slow-restart: unhealthy and bootstrapping on record', async () =>
      (await query(`avax_node_primary_network_healthy{${c}} == 0 and on (cluster, node) (avax_node_bootstrapped{${c},chain="P"} == 0)`)).length === 1
        ? true
        : undefined,
    );
    // 20 minutes of bootstrapping at the matrix's scale.
    await sleep((20 * 60_000) / FACTOR);
    for (const chain of ['P', 'X', 'C']) s.bootstrapped[chain] = true;
    await waitFor('slow-restart: healthy again', async () =>
      (await query(`avax_node_primary_network_healthy{${c}} == 1 and avax_node_ready{${c}} == 1`)).length === 1 ? true : undefined,
    );
  },
  'l1-chain-stalled': async (d) => {
    const c = 'cluster="l1-chain-stalled",node="validator"';
    const chain = FIXTURE_IDS.l1ChainId;
    await waitFor('l1-chain-stalled: the L1 chain moving and Validating on record', async () =>
      (
        await query(
          `increase(avax_node_chain_last_accepted_height{${c},chain="${chain}"}[5s]) > 0 and on (cluster, node) (avax_node_blockchain_status{${c},chain="${chain}",status="Validating"} == 1)`,
        )
      ).length === 1
        ? true
        : undefined,
    );
    const s = (d.nodes['validator'] as FakeNode).state;
    const moving = d.moving.find((m) => m.node.state === s);
    if (moving) moving.chains = moving.chains.filter((x) => x !== chain);
    subnetValidatorsOffline(s, FIXTURE_IDS.l1SubnetId, d.strangers.slice(0, 2));
    stalledChain(s, chain, 3, 95);
  },
  'l1-stranger-runs-dry': async (d) => {
    const stranger = d.strangers[0] as string;
    await waitActiveOnRecord('l1-stranger-runs-dry', stranger, FIXTURE_IDS.l1SubnetId);
    const s = (d.nodes['validator'] as FakeNode).state;
    const entry = s.subnets[FIXTURE_IDS.l1SubnetId]?.validators.find((v) => v.nodeId === stranger);
    if (!entry || !('validationId' in entry)) throw new Error('no L1 stranger in the world');
    inactiveL1Validator(s, entry.validationId);
  },
};

/**
 * The dead-validator-watched row: the validator node dies, the second node sees it disconnected;
 * both pages rise in Prometheus, and the shipped Alertmanager delivers one: AvaxNodeDown, which
 * carries the node's id, inhibits AvaxValidatorNotConnected about the same validator.
 */
async function deadValidatorWatched(d: Deployment): Promise<void> {
  const cluster = 'dead-validator-watched';
  await waitActiveOnRecord(cluster, SELF, PRIMARY_NETWORK_ID);
  await waitFor(`${cluster}: the validator's id on record`, async () =>
    (await query(`avax_node_info{cluster="${cluster}",node="validator",node_id="${SELF}"}`)).length === 1 ? true : undefined,
  );
  await (d.nodes['validator'] as FakeNode).stop();
  validatorOf((d.nodes['watcher'] as FakeNode).state, SELF).connected = false;
  const down = await waitRaised(cluster, { alertname: 'AvaxNodeDown', severity: 'critical', labels: { node: 'validator' } }, true);
  expect(down.labels['node_id']).toBe(SELF);
  await waitRaised(cluster, { alertname: 'AvaxValidatorNotConnected', severity: 'critical', labels: { node_id: SELF } }, true);
  const pages = await waitFor(`${cluster}: Alertmanager to deliver one page for the dead validator`, async () => {
    if (!am) throw new Error('Alertmanager is not running');
    const res = await fetch(`${am.url}/api/v2/alerts?${new URLSearchParams([['filter', `cluster="${cluster}"`]]).toString()}`);
    const list = (await res.json()) as { labels: Record<string, string>; status: { state: string; inhibitedBy: string[] } }[];
    const notConnected = list.find((a) => a.labels['alertname'] === 'AvaxValidatorNotConnected');
    const active = list.filter((a) => a.labels['severity'] === 'critical' && a.status.state === 'active');
    return notConnected?.status.state === 'suppressed' && notConnected.status.inhibitedBy.length > 0 && active.length > 0 ? active : undefined;
  });
  expect(pages.map((a) => a.labels['alertname'])).toEqual(['AvaxNodeDown']);
}

/**
 * The single-node-p-chain-down row: the network sees the validator under its requirement; then
 * the node's P-Chain API fails. Its validator series go after the max age, and the page holds on
 * the Data API's marker and the validation's times on record, past keep_firing_for.
 */
async function singleNodePChainDown(d: Deployment): Promise<void> {
  const cluster = 'single-node-p-chain-down';
  const page = { alertname: 'AvaxValidatorUptimeLow', severity: 'critical' as const, labels: { node_id: SELF } };
  await waitRaised(cluster, page, true);
  (d.nodes['validator'] as FakeNode).setFault('/ext/bc/P', { kind: 'status', status: 503 });
  await waitFor(`${cluster}: the node's validator series gone`, async () =>
    (await query(`avax_validator_watched{cluster="${cluster}"} or avax_validator_start_timestamp_seconds{cluster="${cluster}"}`)).length === 0
      ? true
      : undefined,
  );
  expect(await valueOf(`avax_data_api_validator_status{cluster="${cluster}",node_id="${SELF}",status="active"}`)).toBe(1);
  expect(await valueOf(`avax_validator:watched:max{cluster="${cluster}",node_id="${SELF}"}`)).toBe(1);
  // keep_firing_for is 10 s here: 20 s of firing after the node's series went is the Data API's doing.
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const a = (await alertsOf(cluster)).find((x) => matches(x.labels, page));
    expect(a?.state, 'AvaxValidatorUptimeLow keeps firing while the P-Chain API is down').toBe('firing');
    await sleep(500);
  }
}

/** The node-unreachable row's incident, step by step. */
async function nodeUnreachable(row: MatrixRow, t0: number): Promise<void> {
  const cluster = row.cluster;
  const d = deployments.get(cluster) as Deployment;
  const node = d.nodes['validator'] as FakeNode;
  const c = `cluster="${cluster}"`;

  // 1. The node says it is unhealthy: the page fires.
  node.failCheck('network', 'network layer is unhealthy reason: not connected to a minimum of 80% of the stake');
  await waitRaised(cluster, { alertname: 'AvaxNodeUnhealthy', severity: 'critical' }, true);

  // 2. The node stops answering: its series go after the max age, and the page does not resolve with them.
  await node.stop();
  await waitFor(`${cluster}: avax_node_healthy gone`, async () => ((await query(`avax_node_healthy{${c}}`)).length === 0 ? true : undefined));
  // keep_firing_for is 10 s here (10m scaled): 4 s of samples leave room for a slow query on a busy machine.
  const keptUntil = Date.now() + 4_000;
  while (Date.now() < keptUntil) {
    const unhealthy = (await alertsOf(cluster)).find((a) => matches(a.labels, { alertname: 'AvaxNodeUnhealthy', severity: 'critical' }));
    expect(unhealthy?.state, 'AvaxNodeUnhealthy keeps firing after avax_node_healthy is gone (keep_firing_for)').toBe('firing');
    await sleep(500);
  }

  // 3. The node-down page fires; the source-level warning is raised too, and the shipped Alertmanager inhibition silences it.
  const down = await waitRaised(cluster, { alertname: 'AvaxNodeDown', severity: 'critical', labels: { node: 'validator' } }, true);
  const sourceDown = await waitRaised(cluster, { alertname: 'AvaxSourceDown', severity: 'warning', labels: { node: 'validator' } }, true);
  expect(down.labels['cluster']).toBe(cluster);
  expect(sourceDown.labels['cluster']).toBe(cluster);
  // Every source of the node is down (the exporter fails the whole round): every one of its warnings is muted.
  const muted = await waitFor(`${cluster}: Alertmanager to hold every AvaxSourceDown of the node inhibited by AvaxNodeDown`, async () => {
    if (!am) throw new Error('Alertmanager is not running');
    const res = await fetch(`${am.url}/api/v2/alerts?${new URLSearchParams([['filter', `cluster="${cluster}"`]]).toString()}`);
    const list = (await res.json()) as { labels: Record<string, string>; status: { state: string; inhibitedBy: string[] } }[];
    const sources = list.filter((a) => a.labels['alertname'] === 'AvaxSourceDown' && a.labels['node'] === 'validator');
    const page = list.find((a) => a.labels['alertname'] === 'AvaxNodeDown' && a.labels['node'] === 'validator');
    const firing = (await alertsOf(cluster)).filter(
      (a) => a.state === 'firing' && matches(a.labels, { alertname: 'AvaxSourceDown', labels: { node: 'validator' } }),
    );
    const allThere = firing.every((f) => sources.some((s) => s.labels['source'] === f.labels['source']));
    return allThere &&
      sources.length > 0 &&
      sources.every((s) => s.status.state === 'suppressed' && s.status.inhibitedBy.length > 0) &&
      page?.status.state === 'active'
      ? sources
      : undefined;
  });
  expect(muted.map((a) => a.labels['source'])).toContain(sourceDown.labels['source']);
  // The same, label by label: the inhibition's `equal` labels carry the same values on the page and the warning.
  type Inhibit = { source_matchers?: string[]; equal?: string[] };
  const rule = ((shippedAlertmanagerConfig()['inhibit_rules'] ?? []) as Inhibit[]).find((r) => r.source_matchers?.includes('alertname="AvaxNodeDown"'));
  expect(rule?.equal).toEqual(expect.arrayContaining(['cluster', 'node']));
  for (const l of rule?.equal ?? []) expect(sourceDown.labels[l] ?? '', `label ${l}`).toBe(down.labels[l] ?? '');

  // 4. The exporter itself goes away: every series of the row goes stale, and the node-down page still fires.
  await d.exporter.daemon.stop();
  await waitFor(`${cluster}: avax_source_up gone`, async () => ((await query(`avax_source_up{${c}}`)).length === 0 ? true : undefined));
  const until = Date.now() + 4_000;
  while (Date.now() < until) {
    const page = (await alertsOf(cluster)).find((a) => matches(a.labels, { alertname: 'AvaxNodeDown', severity: 'critical' }));
    expect(page?.state, 'AvaxNodeDown keeps firing after its data is gone (keep_firing_for)').toBe('firing');
    await sleep(500);
  }
  await waitRaised(cluster, { alertname: 'AvaxExporterDown', severity: 'critical' });
  const seen = await raisedDuring(cluster, Date.now() - t0);
  await expectNone(violations(row, seen), cluster, 'raised during the window');
}

/**
 * One row: from its exporter's first data, the alerts it must raise are raised and, through the
 * whole window, none it must never raise is.
 */
async function runRow(row: MatrixRow): Promise<void> {
  const t0 = await waitReady(row.cluster);
  readyAt.set(row.cluster, t0);
  await PREMISES[row.cluster]?.();
  if (row.cluster === 'node-unreachable') return nodeUnreachable(row, t0);

  const strangers = new Set(deployments.get(row.cluster)?.strangers ?? []);
  const aboutStranger = (a: Alert) => (a.labels['node_id'] && strangers.has(a.labels['node_id']) ? `about a stranger: ${describeAlert(a.labels)}` : undefined);
  await Promise.all([
    watchRow(row, t0 + WINDOW_MS, aboutStranger),
    (async () => {
      await ACTIONS[row.cluster]?.(deployments.get(row.cluster) as Deployment);
      for (const r of row.raised) await waitRaised(row.cluster, r, r.firing);
    })(),
  ]);
  const seen = await raisedDuring(row.cluster, Date.now() - t0);
  await expectNone(violations(row, seen), row.cluster, 'raised during the window');
  expect(seen.flatMap((l) => aboutStranger({ labels: l } as Alert) ?? [])).toEqual([]);
  for (const r of row.raised)
    expect(
      seen.some((l) => matches(l, r)),
      `${r.alertname} in ALERTS`,
    ).toBe(true);
}

describe('the detection matrix: the shipped rules in a real Prometheus, one deployment per row', { timeout: 120_000 }, () => {
  it('every scaled rule evaluates without error', async () => {
    setUp();
    type RuleState = { name: string; health: string; lastError?: string };
    const rules = await waitFor('every rule to be evaluated', async () => {
      const { groups } = await api<{ groups: { name: string; rules: RuleState[] }[] }>('rules');
      const all = groups.flatMap((g) => g.rules.map((r) => ({ ...r, group: g.name })));
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    });
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.group}/${r.name}: ${r.lastError ?? r.health}`)).toEqual([]);
  });

  for (const row of MATRIX) {
    it(`${row.cluster}: ${row.incident ?? 'healthy, quiet'}`, async () => {
      setUp();
      await rowRuns.get(row.cluster);
    });
  }

  it('every alert raised in the matrix names its cluster (the rules keep the label through their aggregations)', async () => {
    setUp();
    expect(readyAt.size).toBe(MATRIX.length);
    // From the moment every row was scraped with data (before that, no target at all may be a fact).
    const since = Math.max(...readyAt.values());
    const all = (await query(`last_over_time(ALERTS[${formatPromDuration(Date.now() - since)}])`)).map((s) => s.metric);
    expect(all.length, 'the matrix raised alerts').toBeGreaterThan(0);
    // AvaxExporterAbsent is `absent(avax_exporter:up:selected)`: no target at all, so no target labels; it must not have been raised.
    expect(all.filter((l) => !l['cluster']).map(describeAlert)).toEqual([]);
    expect(MATRIX.map((r) => r.cluster)).toEqual(expect.arrayContaining([...new Set(all.map((l) => l['cluster'] as string))]));
  });
});
