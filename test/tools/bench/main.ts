/**
 * `npm run bench`: the performance benchmark of issue 6. Prints a table of
 * figures and targets (PASS/MISS) and, after a full run, writes it to
 * docs/performance.md.
 *
 * Every measured server runs in a child process of its own, the fake nodes in
 * another, and the load client (autocannon) in this one, so each server's CPU
 * time is read from its own accounting (the kernel's, per process) and never
 * includes the client's or the upstream's. Only loopback traffic; every loop
 * and wait is bounded, the whole run has a deadline, and every child is killed
 * at the end, on error and on a signal.
 *
 *   npm run bench                      # everything: about 9 minutes on an idle 2-core machine, 11 on a busy one (hard stop at 14)
 *   npm run bench -- --quick           # shorter runs (about 3 minutes), docs not written
 *   npm run bench -- --scenario=a      # one scenario (a: scrape, b: polling, c: scale, d: single executable); repeatable
 *   npm run bench -- --profile         # also --cpu-prof the daemon and print where its time goes
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BenchChild, killAllChildren, useCompiledChildren } from './ipc.js';
import type { CallCounts, FakeInfo } from './role-fake.js';
import type { DaemonInfo, DaemonStatus, MemoryBreakdown, Percentiles, RenderCost, RoundsResult, SyncSteps } from './role-daemon.js';
import type { ServerInfo } from './role-servers.js';
import { L1_SUBNET_ID } from './world.js';
import { formatProfileSummary, summarizeProfileFile } from './cpuprofile.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { benchBinary, binaryRows, type BinaryResult } from './binary.js';

// ---------------------------------------------------------------------------------------------
// Plan
// ---------------------------------------------------------------------------------------------

type ScenarioName = 'a' | 'b' | 'c' | 'd';

interface Plan {
  quick: boolean;
  scenarios: ScenarioName[];
  /** Scenario A: seconds of load per server and cell, warm-up seconds per server, encoding and connection count, connection counts. */
  aSeconds: number;
  aWarmSeconds: number;
  aConnections: number[];
  /** Scenario B: measured rounds, warm-up rounds, pause between rounds, wall-time cap of the measured rounds. */
  bRounds: number;
  bWarmRounds: number;
  bGapMs: number;
  bMaxMs: number;
  /** Event-loop delay histogram resolution (perf_hooks.monitorEventLoopDelay). */
  eldResolutionMs: number;
  /** Scenario C: nodes, poll interval, measured seconds. */
  cNodes: number;
  cInterval: string;
  cSeconds: number;
  profile: boolean;
  /** Extra node options for the daemon processes (experiments, e.g. --max-semi-space-size=4). */
  daemonNodeOptions: string[];
  /** Extra environment for the daemon processes (experiments, e.g. MALLOC_TRIM_THRESHOLD_=0). */
  daemonEnv: Record<string, string>;
  /** Compile the project and run the children from JavaScript, as the exporter runs in production (else through tsx). */
  build: boolean;
  write: boolean;
  strict: boolean;
  /** Deadline of the whole run. */
  deadlineMs: number;
}

const USAGE = `usage: npm run bench -- [--quick] [--scenario=a|b|c ...] [--profile] [--write|--no-write] [--strict]
  --quick          shorter runs (A 3 s per server and cell, B 100 rounds, C 30 s); docs/performance.md is not written
  --scenario=X     run only scenario X (a: scrape, b: polling, c: 50 nodes, d: the single executable's size and start-up); repeatable
  --profile        run the daemons under --cpu-prof and print where their CPU time goes (figures then carry the profiler's overhead; docs not written)
  --daemon-node-option=X  also start the daemon processes with node option X (an experiment; docs not written)
  --daemon-env=K=V also start the daemon processes with environment variable K=V (an experiment; docs not written)
  --no-build       run the children through tsx instead of compiling first (faster start; the loader adds ~30 MB RSS)
  --write          write docs/performance.md even for a partial or quick run
  --no-write       do not write docs/performance.md
  --strict         exit 1 when a target is missed
`;

function makePlan(argv: string[]): Plan {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      profile: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'daemon-node-option': { type: 'string', multiple: true },
      'daemon-env': { type: 'string', multiple: true },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const requested = (values.scenario ?? []).flatMap((s) => s.split(',')).map((s) => s.trim().toLowerCase());
  for (const s of requested) {
    if (s !== 'a' && s !== 'b' && s !== 'c' && s !== 'd') {
      process.stderr.write(`unknown scenario ${s}\n${USAGE}`);
      process.exit(2);
    }
  }
  const scenarios: ScenarioName[] = requested.length ? (['a', 'b', 'c', 'd'] as const).filter((s) => requested.includes(s)) : ['a', 'b', 'c', 'd'];
  const quick = values.quick;
  const full = !quick && scenarios.length === 4 && !values.profile && !values['no-build'] && !values['daemon-node-option'] && !values['daemon-env'];
  const daemonEnv: Record<string, string> = {};
  for (const kv of values['daemon-env'] ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) {
      process.stderr.write(`--daemon-env wants K=V, got ${kv}\n${USAGE}`);
      process.exit(2);
    }
    daemonEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return {
    quick,
    scenarios,
    aSeconds: quick ? 3 : 10,
    aWarmSeconds: 1,
    aConnections: [1, 16, 64],
    bRounds: quick ? 100 : 1000,
    bWarmRounds: quick ? 10 : 20,
    bGapMs: 5,
    bMaxMs: quick ? 60_000 : 300_000,
    eldResolutionMs: 10,
    cNodes: 50,
    cInterval: '15s',
    cSeconds: quick ? 30 : 60,
    profile: values.profile,
    daemonNodeOptions: values['daemon-node-option'] ?? [],
    daemonEnv,
    build: !values['no-build'],
    write: values['no-write'] ? false : (values.write ?? full),
    strict: values.strict,
    deadlineMs: (quick ? 6 : 14) * 60_000,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

function f(n: number, digits = 1): string {
  if (n === Infinity) return '∞';
  if (!Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const mb = (bytes: number) => f(bytes / 2 ** 20, 1);

/** A markdown table with aligned columns (readable as plain text too). */
function table(headers: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const cell = (s: string, i: number) => ((align[i] ?? 'r') === 'l' ? s.padEnd(widths[i] as number) : s.padStart(widths[i] as number));
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => ((align[i] ?? 'r') === 'l' ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

function log(msg: string): void {
  process.stderr.write(`[bench +${((performance.now() - T0) / 1000).toFixed(0)}s] ${msg}\n`);
}

const T0 = performance.now();

/**
 * Waits until every given child uses (almost) no CPU, so no run overlaps the
 * tail of another (the baseline keeps rendering for seconds after its load
 * stops: one request in flight per connection). Bounded.
 */
async function settle(children: readonly BenchChild[], maxMs = 20_000): Promise<void> {
  const end = Date.now() + maxMs;
  for (;;) {
    const a = await Promise.all(children.map((c) => c.cpuMs()));
    await sleep(300);
    const b = await Promise.all(children.map((c) => c.cpuMs()));
    if (b.every((v, i) => v - (a[i] as number) < 15) || Date.now() > end) return;
  }
}

/** A target line of the summary. */
interface Target {
  scenario: string;
  what: string;
  measured: string;
  limit: string;
  pass: boolean;
}

interface Machine {
  cpu: string;
  cores: number;
  memGiB: number;
  node: string;
  os: string;
  loadAvg: string;
}

function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAvg: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

/** Children of the scenario in progress, stopped (then killed) when it ends, whatever happens. */
async function withChildren<T>(fn: (track: (c: BenchChild) => BenchChild) => Promise<T>): Promise<T> {
  const started: BenchChild[] = [];
  try {
    return await fn((c) => {
      started.push(c);
      return c;
    });
  } finally {
    await Promise.all(started.reverse().map((c) => c.stop(8_000)));
  }
}

function daemonNodeArgs(plan: Plan, profileDir: string, scenario: ScenarioName): string[] {
  const prof = plan.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=daemon-${scenario}.cpuprofile`] : [];
  return [...plan.daemonNodeOptions, ...prof];
}

function memoryLine(m: MemoryBreakdown): string {
  const sp = (name: string) => mb(m.spaces[name] ?? 0);
  return `${mb(m.rss)} = heap ${mb(m.heapTotal)} (new ${sp('new_space')}, old ${sp('old_space')}, code ${sp('code_space')}, large objects ${sp('large_object_space')}) + outside the heap ${mb(m.rss - m.heapTotal)} (of which array buffers ${mb(m.arrayBuffers)})`;
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Compiles the bench with the sources it imports (test/tools/tsconfig.json) into
 * .tmp/bench/dist, so the measured processes run JavaScript as `node dist/cli.js`
 * does, without a TypeScript loader. Bounded to two minutes.
 */
function compileForChildren(): string {
  const root = join(REPO, '.tmp', 'bench');
  const out = join(root, 'dist');
  mkdirSync(out, { recursive: true });
  // The daemon (out/src/daemon.js) reads its version from ../package.json; "type": "module" comes with it.
  copyFileSync(join(REPO, 'package.json'), join(out, 'package.json'));
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  try {
    // Incremental: a later run recompiles only what changed (output of since-deleted sources stays, unused).
    const incremental = ['--incremental', '--tsBuildInfoFile', join(root, 'tools.tsbuildinfo')];
    execFileSync(
      process.execPath,
      [tsc, '-p', join(REPO, 'test', 'tools', 'tsconfig.json'), '--noEmit', 'false', '--outDir', out, '--sourceMap', 'false', ...incremental],
      {
        cwd: REPO,
        timeout: 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  } catch (err) {
    // Type errors elsewhere still emit JavaScript; a compiler that was stopped (timeout) or produced nothing is fatal.
    const signal = (err as { signal?: string | null }).signal;
    if (signal) throw new Error(`tsc was stopped (${signal}) before it finished compiling into ${out}`, { cause: err });
    const text = String((err as { stdout?: Buffer }).stdout ?? '')
      .split('\n')
      .slice(0, 5)
      .join('\n');
    log(`tsc reported problems (building anyway):\n${text}`);
  }
  const child = join(out, 'test', 'tools', 'bench', 'child.js');
  if (!existsSync(child)) throw new Error(`the build did not produce ${child}`);
  return child;
}

// ---------------------------------------------------------------------------------------------
// Scenario A: scrape
// ---------------------------------------------------------------------------------------------

type ServerName = 'ours' | 'static' | 'baseline';
type Encoding = 'plain' | 'gzip';

interface ARun {
  server: ServerName;
  enc: Encoding;
  conns: number;
  seconds: number;
  responses: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  kbPerResponse: number;
  cpuMsPerScrape: number;
  /** Server CPU over the run as a share of one core. */
  cpuCores: number;
}

interface AResult {
  /** CPU of each server at rest (ms per second). */
  idleCpuMsPerS: Record<ServerName, number>;
  series: { ours: number; static: number; baseline: number };
  bytes: { plain: number; gzip: number; baselinePlain: number; baselineGzip: number };
  upstreamBytes: number;
  runs: ARun[];
}

/**
 * autocannon appends every response body to a JS string (`req.body += chunk`),
 * which it only needs for body checks this benchmark does not use. For a binary
 * (gzip) body that is a UTF-8 decode of ~0.5 MB of non-text per response, about
 * 10 ms of the load client's CPU: it made the client, not the servers, the limit
 * of every gzip run (static reference included). Keep the byte count, drop the body.
 */
function lightenAutocannon(): void {
  const queue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as { prototype: { addBody?: (data: unknown) => void } };
  if (typeof queue.prototype.addBody !== 'function') throw new Error('autocannon internals changed: pipelinedRequestsQueue.addBody not found');
  queue.prototype.addBody = () => {};
}

/** One autocannon run, with the latency of every response (autocannon's own result only has a summary). */
async function load(url: string, conns: number, seconds: number, enc: Encoding, latencies?: number[]): Promise<autocannon.Result> {
  const run = autocannon({
    url,
    connections: conns,
    duration: seconds,
    timeout: 30,
    headers: enc === 'gzip' ? { 'accept-encoding': 'gzip' } : { 'accept-encoding': 'identity' },
  });
  // The promise autocannon returns is also its event emitter.
  const events = run as unknown as { on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void };
  if (latencies) events.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  return run;
}

/** Sums of one server's share of a cell: one or more runs. */
interface Tally {
  seconds: number;
  responses: number;
  errors: number;
  bytes: number;
  cpuMs: number;
  latencies: number[];
}

const emptyTally = (): Tally => ({ seconds: 0, responses: 0, errors: 0, bytes: 0, cpuMs: 0, latencies: [] });

async function scenarioA(plan: Plan, logDir: string, profileDir: string): Promise<AResult> {
  lightenAutocannon();
  return withChildren(async (track) => {
    log('A: starting the mainnet-scale fake node');
    const fake = await BenchChild.spawn<FakeInfo>('fake', { count: 1 }, { logDir });
    track(fake.child);
    log('A: starting the daemon (--watch.all-validators and the L1)');
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      {
        nodes: [{ name: 'mainnet', url: fake.info.urls[0], watch: { all_validators: true, subnet_ids: [L1_SUBNET_ID] } }],
        // No poll during the scrape runs: what is measured is the cost of a scrape alone (scenario B measures polling).
        interval: '1h',
        timeout: '10s',
      },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'a'), env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 60_000 }, 90_000);
    if (st.sourcesDown.length) throw new Error(`A: sources down after the first round: ${st.sourcesDown.join('; ')}`);
    const metricsUrl = `${d.info.url}/metrics`;
    log(`A: daemon ready, ${st.series} series; starting the static reference and the prom-client baseline`);
    const stat = await BenchChild.spawn<ServerInfo>(
      'static',
      { sourceUrl: metricsUrl },
      {
        logDir,
        nodeArgs: plan.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-name=static-a.cpuprofile'] : [],
      },
    );
    track(stat.child);
    const base = await BenchChild.spawn<ServerInfo>('baseline', { sourceUrl: metricsUrl }, { logDir });
    track(base.child);
    const servers: { name: ServerName; child: BenchChild; url: string }[] = [
      { name: 'ours', child: d.child, url: metricsUrl },
      { name: 'static', child: stat.child, url: stat.info.url },
      { name: 'baseline', child: base.child, url: base.info.url },
    ];
    // Idle cost of each server (timers, background work), then a warm-up of every code path measured.
    const everyone = [fake.child, ...servers.map((s) => s.child)];
    const idleCpuMsPerS: Record<ServerName, number> = { ours: NaN, static: NaN, baseline: NaN };
    for (const s of servers) {
      await settle(everyone);
      const c0 = await s.child.cpuMs();
      await sleep(2_000);
      idleCpuMsPerS[s.name] = ((await s.child.cpuMs()) - c0) / 2;
    }
    for (const s of servers) {
      for (const enc of ['plain', 'gzip'] as const) for (const conns of [1, 16]) await load(s.url, conns, plan.aWarmSeconds, enc);
    }
    const runs: ARun[] = [];
    const measure = async (s: (typeof servers)[number], enc: Encoding, conns: number, seconds: number, t: Tally) => {
      await settle(everyone);
      const c0 = await s.child.cpuMs();
      const r = await load(s.url, conns, seconds, enc, t.latencies);
      t.cpuMs += (await s.child.cpuMs()) - c0;
      t.seconds += r.duration;
      t.responses += r.requests.total;
      t.errors += r.errors + r.timeouts + r.non2xx;
      t.bytes += r.throughput.total;
    };
    for (const enc of ['plain', 'gzip'] as const) {
      for (const conns of plan.aConnections) {
        const tallies: Record<ServerName, Tally> = { ours: emptyTally(), static: emptyTally(), baseline: emptyTally() };
        // Ours and the static reference run in two halves each, ABBA (ours, static, static, ours), so a drift in
        // the shared machine's load lands on both; the baseline (server-bound, seconds per response) runs once.
        const pair = servers.filter((x) => x.name !== 'baseline');
        for (const s of [...pair, ...[...pair].reverse()]) await measure(s, enc, conns, plan.aSeconds / 2, tallies[s.name]);
        const base = servers.find((x) => x.name === 'baseline');
        if (base) await measure(base, enc, conns, plan.aSeconds, tallies.baseline);
        for (const s of servers) {
          const t = tallies[s.name];
          t.latencies.sort((x, y) => x - y);
          const run: ARun = {
            server: s.name,
            enc,
            conns,
            seconds: t.seconds,
            responses: t.responses,
            rps: t.responses / t.seconds,
            p50: pct(t.latencies, 50),
            p99: pct(t.latencies, 99),
            max: t.latencies[t.latencies.length - 1] ?? NaN,
            errors: t.errors,
            kbPerResponse: t.responses ? t.bytes / t.responses / 1024 : NaN,
            cpuMsPerScrape: t.responses ? t.cpuMs / t.responses : NaN,
            cpuCores: t.cpuMs / (t.seconds * 1000),
          };
          runs.push(run);
          log(
            `A: ${enc.padEnd(5)} ${String(conns).padStart(2)} conns ${s.name.padEnd(8)} ${f(run.rps, 0).padStart(6)} req/s  p99 ${f(run.p99, 1)} ms  ` +
              `${f(run.cpuMsPerScrape, 3)} CPU ms/scrape${run.errors ? `  ${run.errors} errors` : ''}`,
          );
        }
      }
    }
    return {
      idleCpuMsPerS,
      series: { ours: st.series, static: stat.info.series, baseline: base.info.series },
      bytes: { plain: stat.info.textBytes, gzip: stat.info.gzipBytes, baselinePlain: base.info.textBytes, baselineGzip: base.info.gzipBytes },
      upstreamBytes: fake.info.allValidatorsBytes,
      runs,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario B: polling
// ---------------------------------------------------------------------------------------------

interface BResult {
  steps: SyncSteps;
  renderCost: RenderCost;
  /** Time the daemon waited for a CPU during the measured rounds (ms). */
  waitMs: number;
  fake: FakeInfo;
  series: number;
  rounds: RoundsResult;
  warmRounds: number;
  calls: { perRound: number; distinct: number; maxPerRound: number; worst: string };
}

async function scenarioB(plan: Plan, logDir: string, profileDir: string): Promise<BResult> {
  return withChildren(async (track) => {
    log('B: starting the mainnet-scale fake node');
    const fake = await BenchChild.spawn<FakeInfo>('fake', { count: 1 }, { logDir });
    track(fake.child);
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      {
        nodes: [{ name: 'mainnet', url: fake.info.urls[0], watch: { all_validators: true, subnet_ids: [L1_SUBNET_ID] } }],
        // The scheduler's next round is an hour away: the rounds below are driven back to back.
        interval: '1h',
        timeout: '10s',
        // Every source in every round, info.peers included: the whole poll, not the steady state's average.
        peersInterval: '0s',
      },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'b'), env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 60_000 }, 90_000);
    if (st.sourcesDown.length) throw new Error(`B: sources down after the first round: ${st.sourcesDown.join('; ')}`);
    log(`B: ${plan.bWarmRounds} warm-up rounds`);
    const roundsArgs = (count: number, maxMs: number) => ({ count, gapMs: plan.bGapMs, maxMs, eldResolutionMs: plan.eldResolutionMs });
    await d.child.request<RoundsResult>('rounds', roundsArgs(plan.bWarmRounds, 60_000), 120_000);
    await fake.child.request<CallCounts>('calls');
    log(`B: ${plan.bRounds} measured rounds (at most ${plan.bMaxMs / 1000} s)`);
    const w0 = d.child.runQueueWaitMs();
    const rounds = await d.child.request<RoundsResult>('rounds', roundsArgs(plan.bRounds, plan.bMaxMs), plan.bMaxMs + 120_000);
    const waitMs = d.child.runQueueWaitMs() - w0;
    const calls = await fake.child.request<CallCounts>('calls');
    let worst = '';
    let worstCount = 0;
    for (const [k, n] of Object.entries(calls.byCall)) {
      if (n > worstCount) {
        worst = k;
        worstCount = n;
      }
    }
    const end = await d.child.request<DaemonStatus>('status');
    // With polling idle: the poll's synchronous steps and one render, each alone.
    const steps = await d.child.request<SyncSteps>('syncSteps', undefined, 60_000);
    const renderCost = await d.child.request<RenderCost>('renderCost', { count: 5 }, 60_000);
    log(`B: ${rounds.rounds} rounds, ${f(rounds.cpuMs / rounds.rounds, 1)} CPU ms/round, event-loop delay p99 ${f(rounds.eld.p99, 1)} ms`);
    return {
      steps,
      renderCost,
      waitMs,
      fake: fake.info,
      series: end.series,
      rounds,
      warmRounds: plan.bWarmRounds,
      calls: {
        perRound: calls.total / rounds.rounds,
        distinct: Object.keys(calls.byCall).length,
        maxPerRound: worstCount / rounds.rounds,
        worst: worst.length > 90 ? `${worst.slice(0, 87)}...` : worst,
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario C: 50 nodes
// ---------------------------------------------------------------------------------------------

interface CResult {
  fakeIdleTimeoutMs: number;
  /** Time the daemon waited for a CPU during the window (ms). */
  waitMs: number;
  nodes: number;
  seconds: number;
  series: number;
  textBytes: number;
  gzipBytes: number;
  cpuMs: number;
  cpuPct: number;
  roundsInWindow: number;
  cpuMsPerNodeRound: number;
  failures: number;
  rssBytes: number;
  maxRssBytes: number;
  /** Peak RSS when the daemon became ready: what the first rounds, all at once, cost. */
  readyMaxRssBytes: number;
  heapUsedBytes: number;
  renders: number;
  /** Round end to render served, over the window's renders. */
  freshness: Percentiles;
  renderCost: RenderCost;
  memory: MemoryBreakdown;
  scrapes: number;
  scrapeErrors: number;
  scrapeP50: number;
  scrapeP99: number;
  scrapeMax: number;
}

/** Scrape period of scenario C: three Prometheus servers scraping every 15 s. */
const C_SCRAPE_EVERY_S = 5;

function scrapeOnce(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { agent, headers: { 'accept-encoding': 'gzip' }, timeout: 10_000 }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('scrape timed out')));
    req.on('error', reject);
  });
}

async function scenarioC(plan: Plan, logDir: string, profileDir: string): Promise<CResult> {
  return withChildren(async (track) => {
    log(`C: starting ${plan.cNodes} mainnet-scale fake nodes`);
    const fleet = await BenchChild.spawn<FakeInfo>('fake', { count: plan.cNodes }, { logDir, startTimeoutMs: 120_000 });
    track(fleet.child);
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      {
        nodes: fleet.info.urls.map((url, i) => ({ name: `node-${String(i + 1).padStart(2, '0')}`, url })),
        interval: plan.cInterval,
        timeout: '10s',
      },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'c'), startTimeoutMs: 120_000, env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 90_000 }, 120_000);
    if (st.sourcesDown.length) throw new Error(`C: sources down after the first round: ${st.sourcesDown.slice(0, 5).join('; ')}`);
    const readyUsage = await d.child.usage();
    log(`C: ready (${st.series} series); measuring for ${plan.cSeconds} s with a gzip scrape every ${C_SCRAPE_EVERY_S} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = `${d.info.url}/metrics`;
    // No event-loop monitor here: its own 10 ms timer would cost about 0.5 % of a core, a tenth of the target.
    const c0 = await d.child.cpuMs();
    const w0 = d.child.runQueueWaitMs();
    const t0 = performance.now();
    const latencies: number[] = [];
    let scrapeErrors = 0;
    const scrapes = Math.floor(plan.cSeconds / C_SCRAPE_EVERY_S);
    for (let i = 0; i < scrapes; i++) {
      try {
        latencies.push(await scrapeOnce(agent, url));
      } catch {
        scrapeErrors++;
      }
      const next = t0 + (i + 1) * C_SCRAPE_EVERY_S * 1000;
      await sleep(Math.max(0, next - performance.now()));
    }
    const c1 = await d.child.cpuMs();
    const waitMs = d.child.runQueueWaitMs() - w0;
    const wall = performance.now() - t0;
    agent.destroy();
    const end = await d.child.request<DaemonStatus>('status');
    const usage = await d.child.usage();
    const memory = await d.child.request<MemoryBreakdown>('memory');
    const freshness = await d.child.request<Percentiles>('freshness', { last: end.renders - st.renders });
    // After the window: what one render of this exposition costs.
    const renderCost = await d.child.request<RenderCost>('renderCost', { count: 5 }, 60_000);
    latencies.sort((a, b) => a - b);
    const roundsInWindow = end.rounds - st.rounds;
    const r: CResult = {
      fakeIdleTimeoutMs: fleet.info.idleTimeoutMs,
      waitMs,
      nodes: plan.cNodes,
      seconds: wall / 1000,
      series: end.series,
      textBytes: end.textBytes,
      gzipBytes: end.gzipBytes,
      cpuMs: c1 - c0,
      cpuPct: ((c1 - c0) / wall) * 100,
      roundsInWindow,
      cpuMsPerNodeRound: roundsInWindow ? (c1 - c0) / roundsInWindow : NaN,
      failures: end.failures - st.failures,
      rssBytes: usage.rssBytes,
      maxRssBytes: usage.maxRssBytes,
      readyMaxRssBytes: readyUsage.maxRssBytes,
      heapUsedBytes: usage.heapUsedBytes,
      renders: end.renders - st.renders,
      freshness,
      renderCost,
      memory,
      scrapes: latencies.length,
      scrapeErrors,
      scrapeP50: pct(latencies, 50),
      scrapeP99: pct(latencies, 99),
      scrapeMax: latencies[latencies.length - 1] ?? NaN,
    };
    log(`C: ${f(r.cpuPct, 2)} % of a core, RSS ${mb(r.rssBytes)} MB, ${roundsInWindow} rounds in the window`);
    return r;
  });
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

interface Results {
  a?: AResult;
  b?: BResult;
  c?: CResult;
  d?: BinaryResult;
  /** Scenarios that failed, with why. */
  failed: { scenario: ScenarioName; error: string }[];
}

function find(runs: ARun[], server: ServerName, enc: Encoding, conns: number): ARun | undefined {
  return runs.find((r) => r.server === server && r.enc === enc && r.conns === conns);
}

function targetsOf(plan: Plan, res: Results): Target[] {
  const t: Target[] = [];
  const { a, b, c } = res;
  for (const f of res.failed) {
    t.push({
      scenario: f.scenario.toUpperCase(),
      what: 'scenario failed (see the log)',
      measured: f.error.split('\n')[0]?.slice(0, 120) ?? '',
      limit: 'runs',
      pass: false,
    });
  }
  if (a) {
    for (const enc of ['plain', 'gzip'] as const) {
      let worst = 0;
      let at = 0;
      for (const conns of plan.aConnections) {
        const ours = find(a.runs, 'ours', enc, conns);
        const ref = find(a.runs, 'static', enc, conns);
        if (!ours || !ref) continue;
        const ratio = ours.cpuMsPerScrape / ref.cpuMsPerScrape;
        if (ratio > worst) [worst, at] = [ratio, conns];
      }
      t.push({
        scenario: 'A',
        what: `server CPU per scrape ÷ static reference, ${enc} (worst of ${plan.aConnections.join('/')} conns)`,
        measured: `${f(worst, 2)}x (${at} conns)`,
        limit: '<= 1.5x',
        pass: worst <= 1.5,
      });
    }
    const o16 = find(a.runs, 'ours', 'gzip', 16);
    const s16 = find(a.runs, 'static', 'gzip', 16);
    if (o16 && s16) {
      const ratio = o16.p99 / s16.p99;
      t.push({
        scenario: 'A',
        what: 'gzip p99 latency at 16 conns ÷ static reference',
        measured: `${f(ratio, 2)}x (${f(o16.p99, 1)} / ${f(s16.p99, 1)} ms)`,
        limit: '<= 2x',
        pass: ratio <= 2,
      });
    }
    for (const enc of ['plain', 'gzip'] as const) {
      let worst = Infinity;
      let at = 0;
      let limit = NaN;
      for (const conns of plan.aConnections) {
        const ours = find(a.runs, 'ours', enc, conns);
        const base = find(a.runs, 'baseline', enc, conns);
        const ref = find(a.runs, 'static', enc, conns);
        if (!ours || !base) continue;
        const ratio = base.responses === 0 ? Infinity : ours.rps / base.rps;
        if (ratio < worst || at === 0) {
          [worst, at] = [ratio, conns];
          // What the static reference reaches in the same place: above it, the load client is the limit, not the server.
          limit = ref ? (base.responses === 0 ? Infinity : ref.rps / base.rps) : NaN;
        }
      }
      t.push({
        scenario: 'A',
        what: `requests/s ÷ prom-client per-scrape baseline, ${enc} (worst of ${plan.aConnections.join('/')} conns)`,
        measured: `${f(worst, 1)}x (${at} conns; static reference ${f(limit, 1)}x)`,
        limit: '>= 20x',
        pass: worst >= 20,
      });
    }
    const errors = a.runs.filter((r) => r.server === 'ours').reduce((n, r) => n + r.errors, 0);
    const responses = a.runs.filter((r) => r.server === 'ours').reduce((n, r) => n + r.responses, 0);
    t.push({
      scenario: 'A',
      what: 'errors, timeouts and non-2xx answers of ours',
      measured: `${errors} of ${responses.toLocaleString('en-US')}`,
      limit: '0',
      pass: errors === 0,
    });
  }
  if (b) {
    const r = b.rounds;
    t.push({
      scenario: 'B',
      what: `event-loop delay p99 during mainnet-sized polls (resolution ${r.eld.resolutionMs} ms)`,
      measured: `${f(r.eld.p99, 1)} ms (max ${f(r.eld.max, 1)})`,
      limit: '<= 20 ms',
      pass: r.eld.p99 <= 20,
    });
    t.push({
      scenario: 'B',
      what: 'a state change on /metrics after the poll round that saw it, p99',
      measured: `${f(r.freshness.p99, 1)} ms (max ${f(r.freshness.max, 1)})`,
      limit: '<= 50 ms',
      pass: r.freshness.count > 0 && r.freshness.p99 <= 50,
    });
    t.push({
      scenario: 'B',
      what: 'CPU per poll round (poll + render)',
      measured: `${f(r.cpuMs / r.rounds, 1)} ms`,
      limit: '<= 150 ms',
      pass: r.cpuMs / r.rounds <= 150,
    });
    t.push({
      scenario: 'B',
      what: `RSS after ${r.rounds} rounds`,
      measured: `${mb(r.rssBytes)} MB (peak ${mb(r.maxRssBytes)})`,
      limit: '<= 150 MB',
      pass: r.rssBytes <= 150 * 2 ** 20,
    });
    t.push({
      scenario: 'B',
      what: 'upstream calls per round of the same method and params',
      measured: `${f(b.calls.maxPerRound, 2)}`,
      limit: '<= 1',
      pass: b.calls.maxPerRound <= 1.0001,
    });
    t.push({ scenario: 'B', what: 'failed polls', measured: String(r.failures), limit: '0', pass: r.failures === 0 });
  }
  if (c) {
    t.push({
      scenario: 'C',
      what: `CPU, ${c.nodes} nodes at ${plan.cInterval}, averaged over ${f(c.seconds, 0)} s`,
      measured: `${f(c.cpuPct, 2)} % of a core`,
      limit: '<= 5 %',
      pass: c.cpuPct <= 5,
    });
    // The peak, start-up included: what a container's memory limit has to allow.
    t.push({
      scenario: 'C',
      what: 'RSS, at its peak since start-up',
      measured: `${mb(c.maxRssBytes)} MB (at the end ${mb(c.rssBytes)})`,
      limit: '<= 200 MB',
      pass: c.maxRssBytes <= 200 * 2 ** 20,
    });
    t.push({
      scenario: 'C',
      what: 'failed polls and scrapes',
      measured: String(c.failures + c.scrapeErrors),
      limit: '0',
      pass: c.failures + c.scrapeErrors === 0,
    });
  }
  return t;
}

function report(plan: Plan, m: Machine, res: Results, targets: Target[], startedAt: Date, seconds: number): string {
  const out: string[] = [];
  const endLoad = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  out.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${f(m.memGiB, 0)} GiB, ${m.os}; Node ${m.node}; load average (1/5/15 min) ${m.loadAvg} at the start, ${endLoad} at the end.`,
    `Run: ${startedAt.toISOString()}, ${plan.quick ? 'quick' : 'full'}${plan.profile ? ', under --cpu-prof' : ''}${plan.build ? '' : ', children through tsx'}${plan.daemonNodeOptions.length ? `, daemon with ${plan.daemonNodeOptions.join(' ')}` : ''}${
      Object.keys(plan.daemonEnv).length
        ? `, daemon env ${Object.entries(plan.daemonEnv)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''
    }, scenarios ${plan.scenarios.join(', ').toUpperCase()}, ${f(seconds, 0)} s.`,
    '',
    '### Targets',
    '',
    table(
      ['', 'target', 'measured', 'limit', 'verdict'],
      targets.map((t) => [t.scenario, t.what, t.measured, t.limit, t.pass ? 'PASS' : 'MISS']),
      ['l', 'l', 'r', 'r', 'l'],
    ),
  );
  const { a, b, c } = res;
  if (a) {
    out.push(
      '',
      `### A. Scrape: ${a.series.ours.toLocaleString('en-US')} series (${mb(a.bytes.plain)} MB plain, ${f(a.bytes.gzip / 1024, 0)} KB gzip), autocannon over loopback, ${plan.aSeconds} s per server and cell`,
      '',
      'ours: the daemon (`--watch.all-validators` + the L1), cached text and gzip. static: a server writing the same bytes from a ready buffer. ' +
        `baseline: the same series in a plain prom-client registry, rendered (and gzipped) per scrape (${a.series.baseline.toLocaleString('en-US')} series, ${mb(a.bytes.baselinePlain)} MB). ` +
        `Ours and static each run ${plan.aSeconds} s per cell as two halves in ABBA order (ours, static, static, ours), so a drift in the shared machine's load falls on both; the baseline runs once. ` +
        "CPU is each server process's own (kernel accounting, all threads) over its runs, divided by its responses; latency percentiles are over every response. " +
        `At rest the servers use ${f(a.idleCpuMsPerS.ours, 1)} (ours), ${f(a.idleCpuMsPerS.static, 1)} (static) and ${f(a.idleCpuMsPerS.baseline, 1)} (baseline) ms of CPU per second. ` +
        "autocannon's copy of each response body into a string is switched off (the bench checks no bodies): for gzip bodies it made the client the bottleneck.",
      '',
      table(
        ['enc', 'conns', 'server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'CPU ms/scrape', 'server CPU (cores)', 'KB/resp', 'errors'],
        a.runs.map((r) => [
          r.enc,
          String(r.conns),
          r.server,
          f(r.rps, 0),
          f(r.p50, 1),
          f(r.p99, 1),
          f(r.max, 0),
          f(r.cpuMsPerScrape, 3),
          f(r.cpuCores, 2),
          f(r.kbPerResponse, 0),
          String(r.errors),
        ]),
        ['l', 'r', 'l'],
      ),
      '',
      table(
        ['enc', 'conns', 'CPU/scrape ours÷static', 'p99 ours÷static', 'req/s ours÷baseline', 'CPU/scrape baseline÷ours'],
        (['plain', 'gzip'] as const).flatMap((enc) =>
          plan.aConnections.map((conns) => {
            const o = find(a.runs, 'ours', enc, conns);
            const s = find(a.runs, 'static', enc, conns);
            const bl = find(a.runs, 'baseline', enc, conns);
            const ratio = (x: number | undefined, y: number | undefined, d = 2) => (x !== undefined && y !== undefined ? `${f(x / y, d)}x` : '–');
            const vsBaseline = bl && bl.responses === 0 ? '∞ (baseline: no response)' : ratio(o?.rps, bl?.rps, 1);
            return [
              enc,
              String(conns),
              ratio(o?.cpuMsPerScrape, s?.cpuMsPerScrape),
              ratio(o?.p99, s?.p99),
              vsBaseline,
              ratio(bl?.cpuMsPerScrape, o?.cpuMsPerScrape, 0),
            ];
          }),
        ),
        ['l', 'r'],
      ),
    );
  }
  if (b) {
    const r = b.rounds;
    out.push(
      '',
      `### B. Polling: one mainnet-scale node, ${r.rounds} rounds back to back (after ${b.warmRounds} warm-up rounds, ${plan.bGapMs} ms apart)`,
      '',
      `Upstream: ${b.fake.validators.toLocaleString('en-US')} primary validators with delegators (getCurrentValidators ${mb(b.fake.allValidatorsBytes)} MB), ${b.fake.l1Validators} L1 validators, ` +
        `${b.fake.peers.toLocaleString('en-US')} peers (info.peers ${mb(b.fake.peersBytes)} MB), full health report (${f(b.fake.healthBytes / 1024, 0)} KB); the fake node in its own process. ` +
        `The daemon exports ${b.series.toLocaleString('en-US')} series.`,
      '',
      table(
        ['figure', 'value'],
        [
          ['CPU per round, total', `${f(r.cpuMs / r.rounds, 1)} ms`],
          ['  of which the poll (requests, JSON, validation, state)', `${f(r.pollCpuMs / r.rounds, 1)} ms`],
          ["  of which the render after it (collect, format) and the first scrape's text join and gzip", `${f(r.renderCpuMs / r.rounds, 1)} ms`],
          ['round wall time p50 / p99', `${f(r.roundWallP50, 1)} / ${f(r.roundWallP99, 1)} ms`],
          [
            "a change on /metrics after the round that saw it: served (the daemon's own lag, round end to render served) p50 / p99 / max",
            `${f(r.freshness.p50, 1)} / ${f(r.freshness.p99, 1)} / ${f(r.freshness.max, 1)} ms`,
          ],
          ["  and with the first gzip scrape's compression done (round end to gzip ready) p50 / p99", `${f(r.renderWallP50, 1)} / ${f(r.renderWallP99, 1)} ms`],
          [
            `event-loop delay p50 / p99 / max (resolution ${r.eld.resolutionMs} ms, ${r.eld.samples} samples)`,
            `${f(r.eld.p50, 1)} / ${f(r.eld.p99, 1)} / ${f(r.eld.max, 1)} ms`,
          ],
          ['renders (one per round expected)', String(r.renders)],
          [
            'one render alone, after the rounds, nothing cached (CPU / wall); with every value cached (CPU)',
            `${f(b.renderCost.cpuMsPerRender, 1)} / ${f(b.renderCost.wallMsPerRender, 1)} ms; ${f(b.renderCost.cachedCpuMsPerRender, 1)} ms`,
          ],
          [
            `synchronous steps on getCurrentValidators (${mb(b.steps.validatorsBytes)} MB), each alone: byte scan for the items (whole / one slice between yields); one batch of 200 items (decode + JSON.parse + the fast reader, zod where it defers)`,
            `${f(b.steps.validatorsScan, 1)} / ${f(b.steps.validatorsScanSlice, 1)} ms; ${f(b.steps.validatorsBatch, 1)} ms`,
          ],
          [
            `synchronous steps on info.peers (${mb(b.steps.peersBytes)} MB): decode + JSON.parse / zod`,
            `${f(b.steps.peersDecodeParse, 1)} / ${f(b.steps.peersValidate, 1)} ms`,
          ],
          [
            'GC pauses per round: count / total; longest pause; full GCs',
            `${f(r.gc.count / r.rounds, 1)} / ${f(r.gc.totalMs / r.rounds, 1)} ms; ${f(r.gc.maxMs, 1)} ms; ${r.gc.majorCount} (longest ${f(r.gc.majorMaxMs, 1)} ms)`,
          ],
          [
            "time the daemon's event-loop thread waited for a CPU (run-queue delay; the shared machine)",
            `${f(b.waitMs / r.rounds, 1)} ms per round (${f((b.waitMs / r.wallMs) * 100, 0)} % of the wall time)`,
          ],
          [`RSS / heap used / heap total after ${r.rounds} rounds`, `${mb(r.rssBytes)} / ${mb(r.heapUsedBytes)} / ${mb(r.heapTotalBytes)} MB`],
          ['RSS breakdown (MB)', memoryLine(r.memory)],
          ['peak RSS', `${mb(r.maxRssBytes)} MB`],
          ['upstream calls per round (distinct calls)', `${f(b.calls.perRound, 2)} (${b.calls.distinct})`],
          ['most repeated call, per round', `${f(b.calls.maxPerRound, 2)}: ${b.calls.worst}`],
          ['failed polls', String(r.failures)],
        ],
        ['l', 'r'],
      ),
    );
  }
  if (c) {
    out.push(
      '',
      `### C. Scale: ${c.nodes} mainnet-scale nodes (each its own validator, 2,000 peers, full health) at ${plan.cInterval}, ${f(c.seconds, 0)} s`,
      '',
      `The fake nodes in their own process, ${
        c.fakeIdleTimeoutMs >= 120_000
          ? 'keeping idle connections 120 s as AvalancheGo does (--http-idle-timeout)'
          : `closing idle connections after ${f(c.fakeIdleTimeoutMs / 1000, 0)} s (AvalancheGo keeps them 120 s: these figures include a reconnection per node and round)`
      }; each daemon node watches its own validator id. A gzip scrape every ${C_SCRAPE_EVERY_S} s during the window (three Prometheus servers at 15 s). ${c.series.toLocaleString('en-US')} series (${mb(c.textBytes)} MB, ${f(c.gzipBytes / 1024, 0)} KB gzip).`,
      '',
      table(
        ['figure', 'value'],
        [
          ['CPU, averaged over the window', `${f(c.cpuPct, 2)} % of a core (${f(c.cpuMs, 0)} ms)`],
          ['node rounds in the window', String(c.roundsInWindow)],
          ['CPU per node round (poll + its share of renders and scrapes)', `${f(c.cpuMsPerNodeRound, 1)} ms`],
          [
            'renders in the window; CPU of one render, measured after the window: with every value cached / with nothing cached',
            `${c.renders}; ${f(c.renderCost.cachedCpuMsPerRender, 1)} / ${f(c.renderCost.cpuMsPerRender, 1)} ms`,
          ],
          [
            "  so renders took about (each: the cached render plus one node's share of the uncached one)",
            (() => {
              const per = c.renderCost.cachedCpuMsPerRender + c.renderCost.cpuMsPerRender / c.nodes;
              return `${f((c.renders * per * 100) / c.cpuMs, 0)} % of the CPU (${f((c.renders * per * 100) / (c.seconds * 1000), 2)} % of a core)`;
            })(),
          ],
          ['RSS / peak RSS / heap used', `${mb(c.rssBytes)} / ${mb(c.maxRssBytes)} / ${mb(c.heapUsedBytes)} MB`],
          ["peak RSS by the time every node's first round was served (start-up)", `${mb(c.readyMaxRssBytes)} MB`],
          ['RSS breakdown (MB)', memoryLine(c.memory)],
          ['scrape latency p50 / max (gzip)', `${f(c.scrapeP50, 1)} / ${f(c.scrapeMax, 1)} ms (${c.scrapes} scrapes)`],
          [
            "a node's change on /metrics after its round (round end to render served) p50 / p99 / max",
            `${f(c.freshness.p50, 1)} / ${f(c.freshness.p99, 1)} / ${f(c.freshness.max, 1)} ms (${c.freshness.count} renders)`,
          ],
          [
            "time the daemon's event-loop thread waited for a CPU (run-queue delay; the shared machine)",
            `${f(c.waitMs, 0)} ms (${f((c.waitMs / (c.seconds * 1000)) * 100, 1)} % of the window)`,
          ],
          ['failed polls / failed scrapes', `${c.failures} / ${c.scrapeErrors}`],
        ],
        ['l', 'r'],
      ),
    );
  }
  if (res.d) {
    out.push(
      '',
      '### D. Single executable (`npm run build:binary`), linux-x64, started from a folder without node_modules',
      '',
      table(['', ''], binaryRows(res.d), ['l', 'r']),
    );
  }
  return out.join('\n');
}

function docOf(body: string): string {
  return `# Performance

Written by \`npm run bench\` (test/tools/bench/main.ts) at the end of a full run; do not edit by hand. \`npm run bench -- --quick\` is a shorter check that does not write this file; \`--scenario=a|b|c\` runs one scenario; \`--profile\` also records the daemon's CPU profile and prints where its time goes.

What is measured (issue 6):

- **A. Scrape.** The daemon with \`--watch.all-validators\` (and one L1) against a mainnet-scale simulated node, scraped with autocannon over loopback at 1, 16 and 64 connections, plain and gzip. The same run measures a *static reference* (a server writing the same bytes from ready buffers: the limit) and a *baseline* (the same series in a plain prom-client registry rendered, and gzipped, per scrape: the straightforward way). The daemon does not poll during these runs, so the figures are the cost of scraping alone.
- **B. Polling.** Poll rounds of the same node driven back to back in the daemon process, each followed by its render and by what the first scrape after it costs (the text joined and gzipped once), with every source asked in every round (\`poll.peers_interval\` 0s: the whole poll, not the steady state's average): CPU per round, event-loop delay (\`perf_hooks.monitorEventLoopDelay\`, less the monitor's own 10 ms interval) while they run, GC pauses, memory after them, the calls the fake node received per round, and how fresh /metrics is: the daemon's own lag from the end of a round to the render that holds it being served (\`DaemonTestHandle.freshnessLagsMs\`). Then, with polling idle, the poll's synchronous steps on the real answers and one render, each timed alone.
- **C. Scale.** One daemon polling 50 simulated nodes every 15 s for a fixed window (a whole number of intervals), scraped every 5 s, with the defaults an operator gets (info.peers at most once a minute, the validator set's stake downloaded once per network and shared, the nodes' first rounds started one after another): CPU, memory (and its peak at start-up), scrape latency and freshness.
- **D. Single executable.** \`npm run build:binary\` run into the log folder, then the file's size, and its start-up from a folder without node_modules: \`--version\` from spawn to exit, \`--demo\` from spawn to the first /metrics with samples, and the demo's RSS then.

How: every measured server runs in a process of its own (compiled JavaScript, as \`node dist/cli.js\` runs; the daemon with ${Object.entries(DAEMON_RUNTIME_ENV)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(
      ', ',
    )}, the environment the Docker image and the systemd unit set, see test/tools/bench/runtime-env.ts), the fake nodes in another, the load client in the parent. A server's CPU time is its process's own, from the kernel (\`/proc/<pid>/task/*/schedstat\`, all threads), never the client's or the upstream's. The simulated world is 1,800 primary validators with one delegation each on average, an L1 with 30 validators, 2,000 peers and the full health report, from the project's FakeNode (\`generateValidators\`, \`generatePeers\`); the fake nodes keep idle connections 120 s as AvalancheGo does. autocannon's copy of every response body into a string is switched off: the bench checks no bodies, and for gzip bodies that copy made the client the bottleneck.

The machine is small and shared (2 cores, other work on it, and the load client itself takes a core), so the scrape targets are ratios measured in the same run; the polling tables say how long the daemon's event-loop thread waited for a CPU, and the header gives the machine's load average. Absolute CPU and latency figures move by 20-50 % between runs with the machine's load.

${body}
`;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const plan = makePlan(process.argv.slice(2));
  const m = machine();
  const startedAt = new Date();
  const logDir = mkdtempSync(join(os.tmpdir(), 'avax-bench-'));
  const profileDir = join(logDir, 'profiles');
  if (plan.profile) mkdirSync(profileDir);
  log(`machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}; logs in ${logDir}`);
  log(`scenarios ${plan.scenarios.join(', ').toUpperCase()}${plan.quick ? ' (quick)' : ''}; deadline ${plan.deadlineMs / 60_000} min`);

  const deadline = setTimeout(() => {
    process.stderr.write(`bench: the run took longer than ${plan.deadlineMs / 60_000} minutes; stopping (logs in ${logDir})\n`);
    killAllChildren();
    process.exit(1);
  }, plan.deadlineMs);

  const res: Results = { failed: [] };
  // One scenario failing does not stop the others; the table says what failed.
  const attempt = async (name: ScenarioName, run: () => Promise<void>) => {
    if (!plan.scenarios.includes(name)) return;
    try {
      await run();
    } catch (err) {
      const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${name.toUpperCase()} failed: ${error}`);
      res.failed.push({ scenario: name, error: err instanceof Error ? err.message : String(err) });
    }
  };
  try {
    if (plan.build) {
      log('compiling the project into .tmp/bench (the children run JavaScript, as in production)');
      useCompiledChildren(compileForChildren());
    }
    await attempt('a', async () => {
      res.a = await scenarioA(plan, logDir, profileDir);
    });
    await attempt('b', async () => {
      res.b = await scenarioB(plan, logDir, profileDir);
    });
    await attempt('c', async () => {
      res.c = await scenarioC(plan, logDir, profileDir);
    });
    await attempt('d', async () => {
      log('D: building the single executable and starting it');
      res.d = await benchBinary(logDir, plan.quick ? 3 : 5);
    });
  } finally {
    clearTimeout(deadline);
    killAllChildren();
  }
  const seconds = (performance.now() - T0) / 1000;
  const targets = targetsOf(plan, res);
  const body = report(plan, m, res, targets, startedAt, seconds);
  process.stdout.write(`\n${body}\n`);
  if (plan.profile) {
    for (const file of readdirSync(profileDir)
      .filter((n) => n.endsWith('.cpuprofile'))
      .sort()) {
      process.stdout.write(`\n### CPU profile ${file}\n\n${formatProfileSummary(summarizeProfileFile(join(profileDir, file), 20))}\n`);
    }
    process.stdout.write(`\n(profiles in ${profileDir})\n`);
  }
  if (plan.write && res.failed.length === 0) {
    const docPath = fileURLToPath(new URL('../../../docs/performance.md', import.meta.url));
    writeFileSync(docPath, docOf(body));
    process.stdout.write(`\nwritten to ${docPath}\n`);
  } else {
    process.stdout.write(
      res.failed.length
        ? '\n(docs/performance.md not written: a scenario failed)\n'
        : '\n(docs/performance.md not written: only a full run of every scenario writes it, or --write)\n',
    );
  }
  const missed = targets.filter((t) => !t.pass).length;
  process.stdout.write(`${targets.length - missed} targets met, ${missed} missed\n`);
  if (res.failed.length) return 1;
  return plan.strict && missed > 0 ? 1 : 0;
}

process.on('exit', killAllChildren);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    process.stderr.write(`bench: ${sig}, stopping every child\n`);
    killAllChildren();
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    killAllChildren();
    process.exit(1);
  },
);
