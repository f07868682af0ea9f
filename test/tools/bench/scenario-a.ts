/**
 * Scenario A of `npm run bench`: the cost of a scrape. The daemon with
 * `--watch.all-validators` against a mainnet-scale fake node, scraped with
 * autocannon next to a static reference (the same bytes from a ready buffer:
 * the limit) and a prom-client baseline rendering per scrape.
 */
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { BenchChild } from './ipc.js';
import type { FakeInfo } from './role-fake.js';
import type { DaemonInfo, DaemonStatus } from './role-daemon.js';
import type { ServerInfo } from './role-servers.js';
import { L1_SUBNET_ID } from './world.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { daemonNodeArgs, f, log, pct, settle, sleep, table, withChildren, mb, type Plan, type Target } from './common.js';

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

export interface AResult {
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

export async function scenarioA(plan: Plan, logDir: string, profileDir: string): Promise<AResult> {
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

function find(runs: ARun[], server: ServerName, enc: Encoding, conns: number): ARun | undefined {
  return runs.find((r) => r.server === server && r.enc === enc && r.conns === conns);
}

export function aTargets(plan: Plan, a: AResult): Target[] {
  const t: Target[] = [];
  for (const enc of ['plain', 'gzip'] as const) {
    let worst = 0;
    let at = 0;
    let refMs = NaN;
    for (const conns of plan.aConnections) {
      const ours = find(a.runs, 'ours', enc, conns);
      const ref = find(a.runs, 'static', enc, conns);
      if (!ours || !ref) continue;
      const ratio = ours.cpuMsPerScrape / ref.cpuMsPerScrape;
      if (ratio > worst) [worst, at, refMs] = [ratio, conns, ref.cpuMsPerScrape];
    }
    t.push({
      scenario: 'A',
      what: `server CPU per scrape ÷ static reference, ${enc} (worst of ${plan.aConnections.join('/')} conns)`,
      measured: `${f(worst, 2)}x (${at} conns)`,
      limit: '<= 1.5x',
      reference: `static ${f(refMs, 3)} ms per scrape`,
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
      measured: `${f(ratio, 2)}x (${f(o16.p99, 1)} ms)`,
      limit: '<= 2x',
      reference: `static ${f(s16.p99, 1)} ms`,
      pass: ratio <= 2,
    });
  }
  for (const enc of ['plain', 'gzip'] as const) {
    let worst = Infinity;
    let at = 0;
    let limit = NaN;
    let baseRps = NaN;
    for (const conns of plan.aConnections) {
      const ours = find(a.runs, 'ours', enc, conns);
      const base = find(a.runs, 'baseline', enc, conns);
      const ref = find(a.runs, 'static', enc, conns);
      if (!ours || !base) continue;
      const ratio = base.responses === 0 ? Infinity : ours.rps / base.rps;
      if (ratio < worst || at === 0) {
        [worst, at, baseRps] = [ratio, conns, base.rps];
        // What the static reference reaches in the same place: above it, the load client is the limit, not the server.
        limit = ref ? (base.responses === 0 ? Infinity : ref.rps / base.rps) : NaN;
      }
    }
    t.push({
      scenario: 'A',
      what: `requests/s ÷ prom-client per-scrape baseline, ${enc} (worst of ${plan.aConnections.join('/')} conns)`,
      measured: `${f(worst, 1)}x (${at} conns; static reference ${f(limit, 1)}x)`,
      limit: '>= 20x',
      reference: `baseline ${f(baseRps, 0)} req/s`,
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
  return t;
}

export function aSection(plan: Plan, a: AResult): string[] {
  const out: string[] = [];
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
  return out;
}
