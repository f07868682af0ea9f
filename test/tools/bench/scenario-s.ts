/**
 * Scenario S of `npm run bench` (issue 27): the sidecar, the common
 * deployment. One validator (a mainnet-scale fake node in its own process)
 * watching its own node id, the Data API on (the project's fake one in its own
 * process), a gzip scrape once per poll interval. In the same run:
 *
 * - an idle bare Node process (`node -e`, the same runtime environment): the
 *   RSS any Node program starts from;
 * - the stack alone (STACK_REFERENCE): the libraries the daemon loads and an
 *   HTTP server and client, nothing else; the least an exporter on this stack
 *   holds;
 * - the daemon's steady-state RSS (median of one sample a second over the
 *   window), its peak, and its CPU per node round (kernel accounting of the
 *   whole process over the window, divided by the node's rounds in it);
 * - the floor of those rounds: every answer the window's rounds received
 *   (node and Data API, recorded by kind and asked again for its body) parsed
 *   in a process of its own, divided by the same rounds.
 *
 * Then the same for the single executable, when scenario D built one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { BenchChild, procCpuMs } from './ipc.js';
import type { CallCounts, FakeInfo, RecordedCalls } from './role-fake.js';
import type { DataApiInfo } from './role-data-api.js';
import type { DaemonInfo, DaemonStatus } from './role-daemon.js';
import type { ExchangeFloor, ParseFloor } from './role-floor.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { daemonNodeArgs, f, fetchOnce, log, mb, median, procMemory, sleep, table, withChildren, type Plan, type Target } from './common.js';

/** One exporter measured as the sidecar. */
export interface SRun {
  label: string;
  seconds: number;
  /** Node rounds in the window (the daemon's own count; for the executable, the window over the interval). */
  rounds: number;
  cpuMs: number;
  series: number;
  /** Median / max of the RSS sampled once a second over the window; the peak since start (VmHWM). */
  rssMedian: number;
  rssMax: number;
  rssPeak: number;
  upstreamCalls: number;
  floor: ParseFloor;
  /** A bare node:http client asking the window's calls again and parsing the answers (a reference beside the floor, not a target). */
  exchange: ExchangeFloor;
  scrapeFailures: number;
}

export interface SResult {
  interval: string;
  peersInterval: string;
  dataApiInterval: string;
  warmSeconds: number;
  /** RSS of the idle bare Node process (median of its samples). */
  bareRss: number;
  /** RSS of the stack reference (STACK_REFERENCE: the libraries and HTTP alone; median of its samples). */
  stackRss: number;
  /** CPU of the stack reference over the daemon's window, per interval (it makes one exchange and serves one scrape per interval). */
  stackCpuMsPerRound: number;
  daemon: SRun;
  /** The single executable's run; a string says why there is none. */
  binary: SRun | string;
}

/** A reference process: `node` with `args` and the daemon's runtime environment, from the project's folder; stopped by the returned function (and when the bench exits). */
function startReference(args: string[]): { pid: number; stop: () => void } {
  const proc = spawn(process.execPath, args, {
    cwd: process.cwd(),
    env: { PATH: process.env['PATH'] ?? '', ...DAEMON_RUNTIME_ENV },
    stdio: 'ignore',
  });
  const stop = () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  };
  process.once('exit', stop);
  return { pid: proc.pid ?? -1, stop };
}

/** An idle `node -e` with the daemon's runtime environment. */
const startBare = () => startReference(['-e', 'setInterval(() => {}, 1 << 30)']);

/**
 * The stack alone, doing the least any exporter built on it does: the
 * libraries the daemon loads on every start (prom-client with its default
 * metrics, as src/exposition/process-metrics.ts collects them; pino; zod;
 * p-retry; yargs is loaded only for --help), a node:http server answering
 * with those metrics gzipped, and once a round a keep-alive node:http
 * request to the node's health and a gzip scrape of itself. No state, no
 * rendering, no JSON-RPC: what remains of the daemon's RSS above this
 * process is the product's own code and data.
 */
const STACK_REFERENCE = `
import http from 'node:http';
import { gzipSync } from 'node:zlib';
const [nodeUrl, everyMs] = [process.argv[1], Number(process.argv[2])];
const pc = await import('prom-client');
const registry = new pc.Registry();
pc.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
const { pino } = await import('pino');
const logger = pino();
await import('zod');
await import('p-retry');
const server = http.createServer((_req, res) => {
  registry.metrics().then((text) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(text)));
});
server.listen(0, '127.0.0.1', () => logger.info({ port: server.address().port }, 'listening'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const ask = (url, headers) =>
  new Promise((resolve) => {
    http.get(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    }).on('error', () => resolve(Buffer.alloc(0)));
  });
setInterval(async () => {
  const health = await ask(nodeUrl + '/ext/health');
  if (health.length) JSON.parse(health.toString('utf8'));
  await ask('http://127.0.0.1:' + server.address().port + '/metrics', { 'accept-encoding': 'gzip' });
}, everyMs);
`;

/** The stack reference (STACK_REFERENCE) asking `nodeUrl` every `everyMs`; run from the project's folder, whose node_modules it loads. */
const startStackReference = (nodeUrl: string, everyMs: number) => startReference(['--input-type=module', '-e', STACK_REFERENCE, nodeUrl, String(everyMs)]);

/** A duration in whole seconds (`15s`) as ms. */
const intervalMs = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1] ?? NaN) * 1000;

/** The common deployment's configuration, file-shaped (the daemon role's arguments and the executable's config file alike). */
function sidecarConfig(plan: Plan, nodeUrl: string, dataApiUrl: string) {
  return {
    nodes: [{ name: 'validator', url: nodeUrl }],
    interval: plan.sInterval,
    timeout: intervalMs(plan.sInterval) < 10_000 ? plan.sInterval : '10s',
    peersInterval: plan.sPeersInterval,
    dataApiUrl,
    dataApiInterval: plan.sDataApiInterval,
  };
}

/** Samples RSS once a second and scrapes /metrics (gzip) once per interval for `seconds`; the samples and failed scrapes. */
async function watchWindow(pid: number, metricsUrl: string, seconds: number, scrapeEveryMs: number, refs?: { bare: number; stack: number }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const rss: number[] = [];
  const bare: number[] = [];
  const stack: number[] = [];
  let scrapeFailures = 0;
  let nextScrape = 0;
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
    rss.push(procMemory(pid).rss);
    if (refs) {
      bare.push(procMemory(refs.bare).rss);
      stack.push(procMemory(refs.stack).rss);
    }
    if (performance.now() - t0 >= nextScrape) {
      nextScrape += scrapeEveryMs;
      const r = await fetchOnce(agent, metricsUrl).catch(() => undefined);
      if (r?.status !== 200) scrapeFailures++;
    }
    await sleep(Math.max(0, t0 + (i + 1) * 1000 - performance.now()));
  }
  agent.destroy();
  return { rss, bare, stack, scrapeFailures, seconds: (performance.now() - t0) / 1000 };
}

export async function scenarioS(plan: Plan, logDir: string, profileDir: string, binary: string | undefined): Promise<SResult> {
  return withChildren(async (track) => {
    log('S: starting the fake validator node, the fake Data API and the floor process');
    const fake = await BenchChild.spawn<FakeInfo>('fake', { count: 1 }, { logDir });
    track(fake.child);
    const dataApi = await BenchChild.spawn<DataApiInfo>('data-api', {}, { logDir });
    track(dataApi.child);
    const floor = await BenchChild.spawn<object>('floor', {}, { logDir });
    track(floor.child);
    if (dataApi.info.nodeId !== fake.info.nodeIds[0]) throw new Error('S: the fake Data API answers about another node than the fake node');
    const bare = startBare();
    const scrapeEveryMs = intervalMs(plan.sInterval);
    const stackRef = startStackReference(fake.info.urls[0] as string, scrapeEveryMs);
    try {
      const cfg = sidecarConfig(plan, fake.info.urls[0] as string, dataApi.info.url);

      /** Clears the fakes' call logs, runs the window, records the window's answers and times their parsing. */
      const measure = async (label: string, pid: number, url: string, roundsOf: () => Promise<number>, series: () => Promise<number>): Promise<SRun> => {
        await sleep(plan.sWarmSeconds * 1000);
        await fake.child.request<CallCounts>('calls');
        await dataApi.child.request('clear');
        const r0 = await roundsOf();
        const c0 = procCpuMs(pid) ?? NaN;
        const s0 = procCpuMs(stackRef.pid) ?? NaN;
        const w = await watchWindow(
          pid,
          `${url}/metrics`,
          plan.sSeconds,
          scrapeEveryMs,
          label === 'daemon' ? { bare: bare.pid, stack: stackRef.pid } : undefined,
        );
        const cpuMs = (procCpuMs(pid) ?? NaN) - c0;
        if (label === 'daemon') stackCpuMsPerRound = (((procCpuMs(stackRef.pid) ?? NaN) - s0) * scrapeEveryMs) / (w.seconds * 1000);
        const rounds = (await roundsOf()) - r0;
        const peak = procMemory(pid).peak;
        if (w.bare.length) bareSamples.push(...w.bare);
        if (w.stack.length) stackSamples.push(...w.stack);
        const dir = join(logDir, `s-${label}-bodies`);
        const node = await fake.child.request<RecordedCalls>('bodies', { dir }, 120_000);
        const api = await dataApi.child.request<RecordedCalls>('bodies', { dir }, 120_000);
        const parsed = await floor.child.request<ParseFloor>('parse', { kinds: [...node.kinds, ...api.kinds] }, 120_000);
        const exchanged = await floor.child.request<ExchangeFloor>('exchange', { kinds: [...node.kinds, ...api.kinds], maxCalls: 5_000 }, 120_000);
        const run: SRun = {
          label,
          seconds: w.seconds,
          rounds,
          cpuMs,
          series: await series(),
          rssMedian: median(w.rss),
          rssMax: Math.max(...w.rss),
          rssPeak: peak,
          upstreamCalls: node.total + api.total,
          floor: parsed,
          exchange: exchanged,
          scrapeFailures: w.scrapeFailures,
        };
        log(
          `S: ${label}: ${rounds} rounds, ${f(cpuMs / rounds, 2)} CPU ms/round (floor ${f(parsed.parseMs / rounds, 2)}), RSS ${mb(run.rssMedian)} MB (bare ${mb(median(bareSamples))})`,
        );
        return run;
      };
      const bareSamples: number[] = [];
      const stackSamples: number[] = [];
      let stackCpuMsPerRound = NaN;

      log(`S: the daemon (poll ${plan.sInterval}, info.peers ${plan.sPeersInterval}, Data API ${plan.sDataApiInterval})`);
      const d = await BenchChild.spawn<DaemonInfo>('daemon', cfg, {
        logDir,
        nodeArgs: daemonNodeArgs(plan, profileDir, 's'),
        env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv },
      });
      track(d.child);
      let st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 60_000 }, 90_000);
      // Ready means every node's first round; the Data API's first round may still be on its way.
      for (const end = Date.now() + 60_000; st.sourcesDown.length && Date.now() < end; await sleep(200)) st = await d.child.request<DaemonStatus>('status');
      if (st.sourcesDown.length) throw new Error(`S: sources down after the first rounds: ${st.sourcesDown.join('; ')}`);
      const status = () => d.child.request<DaemonStatus>('status');
      const daemon = await measure(
        'daemon',
        d.child.pid,
        d.info.url.replace(/\/$/, ''),
        async () => (await status()).nodeRounds,
        () => seriesOn(d.info.url.replace(/\/$/, '')),
      );
      const end = await status();
      if (end.failures > st.failures) throw new Error(`S: ${end.failures - st.failures} failed polls`);
      await d.child.stop(8_000);

      let bin: SRun | string = 'no single executable (scenario D did not build one in this run)';
      if (binary) {
        log('S: the single executable, same configuration');
        const file = join(logDir, 'sidecar.yaml');
        writeFileSync(
          file,
          JSON.stringify({
            web: { listen_address: '127.0.0.1:0' },
            poll: { interval: cfg.interval, timeout: cfg.timeout, peers_interval: cfg.peersInterval },
            nodes: cfg.nodes,
            data_api: { enabled: true, url: cfg.dataApiUrl, interval: cfg.dataApiInterval },
            log: { level: 'info', format: 'json' },
          }),
        );
        const proc = spawn(binary, [`--config.file=${file}`], { cwd: logDir, env: { ...DAEMON_RUNTIME_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
        try {
          const url = await listeningUrl(proc);
          const t0 = performance.now();
          // No round counter outside the process: rounds are the window over the interval (the scheduler's own pace).
          const rounds = () => Promise.resolve(Math.floor((performance.now() - t0) / scrapeEveryMs));
          bin = await measure('binary', proc.pid ?? -1, url, rounds, () => seriesOn(url));
        } finally {
          proc.kill('SIGKILL');
        }
      }
      return {
        interval: plan.sInterval,
        peersInterval: plan.sPeersInterval,
        dataApiInterval: plan.sDataApiInterval,
        warmSeconds: plan.sWarmSeconds,
        bareRss: median(bareSamples),
        stackRss: median(stackSamples),
        stackCpuMsPerRound,
        daemon,
        binary: bin,
      };
    } finally {
      bare.stop();
      stackRef.stop();
    }
  });
}

/** Samples on `${base}/metrics`, the process's own included (counted the same way for both exporters). */
async function seriesOn(base: string): Promise<number> {
  const body = await fetch(`${base}/metrics`).then((r) => r.text());
  return body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
}

/** Waits for the executable's "listening" log line (bounded); its base URL. */
async function listeningUrl(proc: ChildProcess): Promise<string> {
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => {
    if (out.length < 100_000) out += d.toString('utf8');
  });
  proc.stderr?.on('data', () => {});
  const end = performance.now() + 30_000;
  while (performance.now() < end) {
    const port = /"address":"[^"]*:(\d+)".*"msg":"listening"/.exec(out)?.[1];
    if (port) return `http://127.0.0.1:${port}`;
    if (proc.exitCode !== null) break;
    await sleep(20);
  }
  throw new Error(`the single executable did not listen within 30 s:\n${out.slice(0, 2000)}`);
}

export function sTargets(s: SResult): Target[] {
  const t: Target[] = [];
  const runs = [s.daemon, ...(typeof s.binary === 'string' ? [] : [s.binary])];
  for (const r of runs) {
    const who = r.label === 'daemon' ? 'node dist/cli.js' : 'single executable';
    const over = r.rssMedian - s.bareRss;
    t.push({
      scenario: 'S',
      what: `sidecar (${who}): steady-state RSS − idle bare node's`,
      measured: `${mb(over)} MB (${mb(r.rssMedian)} − ${mb(s.bareRss)}; peak ${mb(r.rssPeak)})`,
      limit: '<= 15 MB',
      reference: `idle bare node ${mb(s.bareRss)} MB; the stack alone ${mb(s.stackRss)} MB (+${mb(s.stackRss - s.bareRss)})`,
      pass: over <= 15 * 2 ** 20,
    });
    const perRound = r.cpuMs / r.rounds;
    const floor = r.floor.parseMs / r.rounds;
    t.push({
      scenario: 'S',
      what: `sidecar (${who}): CPU per round ÷ its floor (parsing the same answers)`,
      measured: `${f(perRound / floor, 1)}x (${f(perRound, 2)} ms)`,
      limit: '<= 2x',
      // The bare client beside the floor: what any Node.js poller spends on the same calls before using them.
      reference: `floor ${f(floor, 2)} ms; a bare node:http client ${f(r.exchange.exchangeMs / r.rounds, 2)} ms (${f(r.exchange.exchangeMs / r.rounds / floor, 1)}x the floor); the stack alone ${f(s.stackCpuMsPerRound, 2)} ms`,
      pass: perRound <= 2 * floor,
    });
  }
  t.push({
    scenario: 'S',
    what: 'sidecar: failed scrapes',
    measured: String(runs.reduce((n, r) => n + r.scrapeFailures, 0)),
    limit: '0',
    pass: runs.every((r) => r.scrapeFailures === 0),
  });
  return t;
}

export function sSection(s: SResult): string[] {
  const runs = [s.daemon, ...(typeof s.binary === 'string' ? [] : [s.binary])];
  const col = (fn: (r: SRun) => string) => runs.map(fn);
  const rows: string[][] = [
    ['series on /metrics', ...col((r) => r.series.toLocaleString('en-US'))],
    ['window; node rounds in it', ...col((r) => `${f(r.seconds, 0)} s; ${r.rounds}`)],
    [
      'RSS: steady state (median of 1 s samples) / max in the window / peak since start',
      ...col((r) => `${mb(r.rssMedian)} / ${mb(r.rssMax)} / ${mb(r.rssPeak)} MB`),
    ],
    ["  less the idle bare node's", ...col((r) => `${mb(r.rssMedian - s.bareRss)} MB`)],
    [
      "reference: the stack alone (the libraries loaded at every start, an HTTP server and client, nothing else), less the idle bare node's",
      ...col(() => `${mb(s.stackRss - s.bareRss)} MB (${mb(s.stackRss)} MB)`),
    ],
    ['CPU per round (the whole process over the window ÷ node rounds)', ...col((r) => `${f(r.cpuMs / r.rounds, 2)} ms`)],
    [
      'floor: parsing the answers those rounds received, per round (bytes per round)',
      ...col((r) => `${f(r.floor.parseMs / r.rounds, 2)} ms (${f(r.floor.bytes / r.rounds / 1024, 0)} KB)`),
    ],
    [
      'reference: a bare node:http client asking the same calls and parsing the answers, per round (ours ÷ it)',
      ...col((r) => `${f(r.exchange.exchangeMs / r.rounds, 2)} ms (${f(r.cpuMs / r.exchange.exchangeMs, 1)}x)`),
    ],
    [
      'reference: the stack alone, CPU per interval (its one exchange and one scrape, its default metrics, its timers)',
      ...col(() => `${f(s.stackCpuMsPerRound, 2)} ms`),
    ],
    ['upstream calls per round (node and Data API)', ...col((r) => f(r.upstreamCalls / r.rounds, 1))],
    ['failed scrapes', ...col((r) => String(r.scrapeFailures))],
  ];
  const heaviest = [...s.daemon.floor.perKind].sort((a, b) => b.msPerParse * b.count - a.msPerParse * a.count).slice(0, 4);
  return [
    '',
    `### S. Sidecar: one validator watching its own id, Data API on; polls every ${s.interval} (info.peers ${s.peersInterval}, Data API ${s.dataApiInterval}), a gzip scrape per poll`,
    '',
    `The fake validator node (the mainnet world: 2,000 peers, 1,800 validators) and the fake Data API each in a process of their own; the exporter measured after ${s.warmSeconds} s of warm-up. ` +
      `Intervals shortened from 15 s / 1 min / 1 min in the same ratio, so the window holds every kind of round several times. ` +
      `An idle bare Node process (\`node -e\`, the same runtime environment) in the same run: ${mb(s.bareRss)} MB RSS. ` +
      `Beside it, the stack alone (same environment, sampled with it): the libraries the daemon loads at every start (prom-client with its default metrics, pino, zod, p-retry), a node:http server answering with those metrics gzipped, and once a round a keep-alive request to the node's health and a gzip scrape of itself, nothing else: ${mb(s.stackRss)} MB, ${mb(s.stackRss - s.bareRss)} MB over the bare node, the least an exporter on this stack holds before any code and data of its own; its CPU over the same window: ${f(s.stackCpuMsPerRound, 2)} ms per interval. ` +
      'The floor: every answer the window received, asked again by kind for its body and parsed (decode + JSON.parse) in a process of its own, as often as it was received. ' +
      'Beside it, not a target: the same calls asked again of the same fakes, as often as they were received, by a bare node:http client (keep-alive, four connections per origin) in that process, each answer parsed: the CPU any Node.js poller spends on them before using them.',
    '',
    table(['figure', ...runs.map((r) => (r.label === 'daemon' ? 'node dist/cli.js' : 'single executable'))], rows, ['l', 'r', 'r']),
    '',
    ...(typeof s.binary === 'string' ? [`The single executable: ${s.binary}.`, ''] : []),
    `Where the floor goes (daemon run): ${heaviest.map((k) => `${k.kind.slice(0, 60)} ×${k.count}: ${f(k.msPerParse, 2)} ms each`).join('; ')}.`,
  ];
}
