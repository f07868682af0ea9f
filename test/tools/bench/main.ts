/**
 * `npm run bench`: the performance benchmark of issues 6 and 27. Runs each
 * scenario (one file each: scenario-a.ts, scenario-b.ts, fleet.ts for C,
 * binary.ts for D, scenario-s.ts, scenario-f.ts), prints a table of figures and
 * targets (PASS/MISS) and, after a full run, writes it to docs/performance.md.
 *
 * Every measured server runs in a child process of its own, the fake nodes in
 * others, and the load client in this one, so each server's CPU time is read
 * from its own accounting (the kernel's, per process) and never includes the
 * client's or the upstream's. Targets are ratios to limits measured in the same
 * run (a static server, a floor, a bare Node process) wherever the issue sets
 * one. Only loopback traffic; every loop and wait is bounded, the whole run has
 * a deadline, and every child is killed at the end, on error and on a signal.
 *
 *   npm run bench                      # everything (about 12-13 minutes on an idle 2-core machine; hard stop at 20)
 *   npm run bench -- --quick           # shorter runs and a 200-node fleet (about 5 minutes), docs not written
 *   npm run bench -- --scenario=a      # one scenario (a: scrape, b: polling, c: 50 nodes, d: single executable, s: sidecar, f: fleet); repeatable
 *   npm run bench -- --profile         # also --cpu-prof the daemon and print where its time goes
 *   npm run bench -- --scenario=f --f-nodes=10,20 --f-probe=20 --f-seconds=15   # a tiny smoke run
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killAllChildren, useCompiledChildren } from './ipc.js';
import { formatProfileSummary, summarizeProfileFile } from './cpuprofile.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { benchBinary, binaryRows, type BinaryResult } from './binary.js';
import { T0, f, log, machine, table, type Machine, type Plan, type ScenarioName, type Target } from './common.js';
import { aSection, aTargets, scenarioA, type AResult } from './scenario-a.js';
import { bSection, bTargets, scenarioB, type BResult } from './scenario-b.js';
import { cSection, cTargets, fleetRun, type CResult } from './fleet.js';
import { sSection, sTargets, scenarioS, type SResult } from './scenario-s.js';
import { fSection, fTargets, scenarioF, type FResult } from './scenario-f.js';

// ---------------------------------------------------------------------------------------------
// Plan
// ---------------------------------------------------------------------------------------------

const ALL: readonly ScenarioName[] = ['a', 'b', 'c', 'd', 's', 'f'];

const USAGE = `usage: npm run bench -- [--quick] [--scenario=a|b|c|d|s|f ...] [--profile] [--write|--no-write] [--strict] [sizes]
  --quick          shorter runs (A 3 s per server and cell, B 100 rounds, C 30 s, S 30 s, F 50 and 200 nodes and /probe with 200 targets, 30 s each); docs/performance.md is not written
  --scenario=X     run only scenario X (a: scrape, b: polling, c: 50 nodes, d: the single executable's size and start-up,
                   s: the sidecar, f: the fleet and /probe); repeatable
  --profile        run the daemons under --cpu-prof and print where their CPU time goes (figures then carry the profiler's overhead; docs not written)
  --daemon-node-option=X  also start the daemon processes with node option X (an experiment; docs not written)
  --daemon-env=K=V also start the daemon processes with environment variable K=V (an experiment; docs not written)
  --no-build       run the children through tsx instead of compiling first (faster start; the loader adds ~30 MB RSS)
  --write          write docs/performance.md even for a partial or quick run
  --no-write       do not write docs/performance.md
  --strict         exit 1 when a target is missed
sizes (for smoke runs; docs not written when one is given):
  --a-seconds=N    scenario A's seconds of load per server and cell
  --b-rounds=N     scenario B's measured rounds
  --s-interval=Ns  scenario S's poll interval (info.peers and the Data API at 4 times it); --s-seconds=N its window; --s-warm=N its warm-up
  --f-nodes=N,M    scenario F's fleet sizes (the first is the reference of flat scaling); --f-seconds=N each window; --f-probe=N /probe targets (0: none)
  --f-per-fake=N   fake nodes per fake process
`;

function intOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`--${name} wants a whole number, got ${v}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

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
      'a-seconds': { type: 'string' },
      'b-rounds': { type: 'string' },
      's-interval': { type: 'string' },
      's-seconds': { type: 'string' },
      's-warm': { type: 'string' },
      'f-nodes': { type: 'string' },
      'f-seconds': { type: 'string' },
      'f-probe': { type: 'string' },
      'f-per-fake': { type: 'string' },
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
    if (!(ALL as readonly string[]).includes(s)) {
      process.stderr.write(`unknown scenario ${s}\n${USAGE}`);
      process.exit(2);
    }
  }
  const scenarios: ScenarioName[] = requested.length ? ALL.filter((s) => requested.includes(s)) : [...ALL];
  const quick = values.quick;
  const sized = ['a-seconds', 'b-rounds', 's-interval', 's-seconds', 's-warm', 'f-nodes', 'f-seconds', 'f-probe', 'f-per-fake'].some(
    (k) => (values as Record<string, unknown>)[k] !== undefined,
  );
  const full =
    !quick && !sized && scenarios.length === ALL.length && !values.profile && !values['no-build'] && !values['daemon-node-option'] && !values['daemon-env'];
  const daemonEnv: Record<string, string> = {};
  for (const kv of values['daemon-env'] ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) {
      process.stderr.write(`--daemon-env wants K=V, got ${kv}\n${USAGE}`);
      process.exit(2);
    }
    daemonEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const sInterval = values['s-interval'] ?? '5s';
  const sIntervalS = Number(/^(\d+)s$/.exec(sInterval)?.[1] ?? NaN);
  if (!Number.isInteger(sIntervalS) || sIntervalS < 1) {
    process.stderr.write(`--s-interval wants whole seconds like 5s, got ${sInterval}\n${USAGE}`);
    process.exit(2);
  }
  const fNodes = (values['f-nodes'] ?? (quick ? '50,200' : '50,1000')).split(',').map((s) => intOption(s.trim(), 'f-nodes') as number);
  if (fNodes.length === 0 || fNodes.some((n) => n < 1)) {
    process.stderr.write(`--f-nodes wants sizes like 50,1000\n${USAGE}`);
    process.exit(2);
  }
  return {
    quick,
    sized,
    scenarios,
    aSeconds: intOption(values['a-seconds'], 'a-seconds') ?? (quick ? 3 : 10),
    aWarmSeconds: 1,
    aConnections: [1, 16, 64],
    bRounds: intOption(values['b-rounds'], 'b-rounds') ?? (quick ? 100 : 1000),
    bWarmRounds: quick ? 10 : 20,
    bGapMs: 5,
    bMaxMs: quick ? 60_000 : 300_000,
    eldResolutionMs: 10,
    cNodes: 50,
    cInterval: '15s',
    cSeconds: quick ? 30 : 60,
    sInterval,
    sPeersInterval: `${sIntervalS * 4}s`,
    sDataApiInterval: `${sIntervalS * 4}s`,
    sWarmSeconds: intOption(values['s-warm'], 's-warm') ?? (quick ? 10 : sIntervalS * 3),
    sSeconds: intOption(values['s-seconds'], 's-seconds') ?? (quick ? 30 : sIntervalS * 8),
    fNodes,
    fInterval: '15s',
    fSeconds: intOption(values['f-seconds'], 'f-seconds') ?? (quick ? 30 : 60),
    fNodesPerFake: intOption(values['f-per-fake'], 'f-per-fake') ?? 250,
    fProbeTargets: intOption(values['f-probe'], 'f-probe') ?? (quick ? 200 : 1000),
    fProbeSeconds: intOption(values['f-seconds'], 'f-seconds') ?? (quick ? 30 : 45),
    profile: values.profile,
    daemonNodeOptions: values['daemon-node-option'] ?? [],
    daemonEnv,
    build: !values['no-build'],
    write: values['no-write'] ? false : (values.write ?? full),
    strict: values.strict,
    deadlineMs: (quick ? 10 : 20) * 60_000,
  };
}

// ---------------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------------

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
    // No comments, as tsconfig.build.json: V8 holds every module's source text in the heap.
    const emit = ['--noEmit', 'false', '--outDir', out, '--sourceMap', 'false', '--removeComments'];
    execFileSync(process.execPath, [tsc, '-p', join(REPO, 'test', 'tools', 'tsconfig.json'), ...emit, ...incremental], {
      cwd: REPO,
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
// Report
// ---------------------------------------------------------------------------------------------

interface Results {
  a?: AResult;
  b?: BResult;
  c?: CResult;
  d?: BinaryResult;
  s?: SResult;
  f?: FResult;
  /** Scenarios that failed, with why. */
  failed: { scenario: ScenarioName; error: string }[];
}

function targetsOf(plan: Plan, res: Results): Target[] {
  const t: Target[] = [];
  for (const x of res.failed) {
    t.push({
      scenario: x.scenario.toUpperCase(),
      what: 'scenario failed (see the log)',
      measured: x.error.split('\n')[0]?.slice(0, 120) ?? '',
      limit: 'runs',
      pass: false,
    });
  }
  if (res.a) t.push(...aTargets(plan, res.a));
  if (res.b) t.push(...bTargets(plan, res.b));
  if (res.c) t.push(...cTargets(plan, res.c));
  if (res.s) t.push(...sTargets(res.s));
  if (res.f) t.push(...fTargets(plan, res.f));
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
    `Run: ${startedAt.toISOString()}, ${plan.quick ? 'quick' : 'full'}${plan.sized ? ' with sizes changed' : ''}${plan.profile ? ', under --cpu-prof' : ''}${plan.build ? '' : ', children through tsx'}${plan.daemonNodeOptions.length ? `, daemon with ${plan.daemonNodeOptions.join(' ')}` : ''}${
      Object.keys(plan.daemonEnv).length
        ? `, daemon env ${Object.entries(plan.daemonEnv)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''
    }, scenarios ${plan.scenarios.join(', ').toUpperCase()}, ${f(seconds, 0)} s.`,
    '',
    '### Targets',
    '',
    'Each target with its limit; where the limit is a ratio to something measured in the same run (a static server, a floor, a bare Node process, the small fleet), that figure is in the fourth column.',
    '',
    table(
      ['', 'target', 'measured', 'limit measured in the same run', 'verdict'],
      targets.map((t) => [t.scenario, `${t.what}: ${t.limit}`, t.measured, t.reference ?? '–', t.pass ? 'PASS' : 'MISS']),
      ['l', 'l', 'r', 'r', 'l'],
    ),
  );
  if (res.a) out.push(...aSection(plan, res.a));
  if (res.b) out.push(...bSection(plan, res.b));
  if (res.c) out.push(...cSection(plan, res.c));
  if (res.d) {
    out.push(
      '',
      '### D. Single executable (`npm run build:binary`), linux-x64, started from a folder without node_modules',
      '',
      table(['', ''], binaryRows(res.d), ['l', 'r']),
    );
  }
  if (res.s) out.push(...sSection(res.s));
  if (res.f) out.push(...fSection(plan, res.f));
  return out.join('\n');
}

function docOf(plan: Plan, body: string): string {
  return `# Performance

Written by \`npm run bench\` (test/tools/bench/main.ts) at the end of a full run; do not edit by hand. \`npm run bench -- --quick\` is a shorter check that does not write this file; \`--scenario=a|b|c|d|s|f\` runs one scenario; \`--profile\` also records the daemon's CPU profile and prints where its time goes.

What is measured (issues 6 and 27):

- **A. Scrape.** The daemon with \`--watch.all-validators\` (and one L1) against a mainnet-scale simulated node, scraped with autocannon over loopback at 1, 16 and 64 connections, plain and gzip. The same run measures a *static reference* (a server writing the same bytes from ready buffers: the limit) and a *baseline* (the same series in a plain prom-client registry rendered, and gzipped, per scrape: the straightforward way). The daemon does not poll during these runs, so the figures are the cost of scraping alone.
- **B. Polling.** Poll rounds of the same node driven back to back in the daemon process, each followed by its render and by what the first scrape after it costs (the text joined and gzipped once), with every source asked in every round (\`poll.peers_interval\` 0s: the whole poll, not the steady state's average): CPU per round, event-loop delay (\`perf_hooks.monitorEventLoopDelay\`, less the monitor's own 10 ms interval) while they run, GC pauses, memory after them, the calls the fake node received per round, and how fresh /metrics is: the daemon's own lag from the end of a round to the render that holds it being served (\`DaemonTestHandle.freshnessLagsMs\`). Then, with polling idle, the poll's synchronous steps on the real answers and one render, each timed alone. The *floor* of a round, in the same run and in a process of its own: every answer the rounds received (recorded by kind, asked again for its body) decoded and \`JSON.parse\`d as often as it was received, plus the same exposition written from ready strings (the lines joined) and gzipped once at the daemon's level.
- **C. Scale.** One daemon polling ${plan.cNodes} simulated nodes every ${plan.cInterval} for a fixed window (a whole number of intervals), scraped every 5 s, with the defaults an operator gets (info.peers at most once a minute, the validator set's stake downloaded once per network and shared, the nodes' first rounds started one after another): CPU, memory (and its peak at start-up), scrape latency and freshness. In a full run this is scenario F's ${plan.cNodes}-node point.
- **D. Single executable.** \`npm run build:binary\` run into the log folder, then the file's size, and its start-up from a folder without node_modules: \`--version\` from spawn to exit, \`--demo\` from spawn to the first /metrics with samples, and the demo's RSS then.
- **S. Sidecar.** The common deployment: one validator watching its own id with the Data API on (the fake node and the fake Data API each in a process of their own), a gzip scrape per poll. Polls every ${plan.sInterval}, info.peers and the Data API every ${plan.sPeersInterval} (15 s / 1 min / 1 min shortened in the same ratio, so a ${plan.sSeconds} s window after ${plan.sWarmSeconds} s of warm-up holds every kind of round several times). Steady-state RSS (median of one sample a second over the window, \`/proc/<pid>/status\` VmRSS) against an idle bare \`node -e\` with the same runtime environment in the same run; CPU per node round (the whole process over the window) against the floor of those rounds (their answers, node and Data API, parsed in a process of its own). The same for the single executable built by D.
- **F. Fleet.** One daemon polling ${plan.fNodes.join(' and ')} simulated mainnet nodes at ${plan.fInterval} (each node a distinct validator of the same world, served by fake processes of at most ${plan.fNodesPerFake} nodes), ${plan.fSeconds} s each, from an interval after the first rounds and at least a minute after the start (a fleet whose first rounds fill half an interval asks info.peers first within its first minute): CPU per node round (flat from the smallest size to the largest) and against a node round's floor (its answers parsed, plus its share of writing and gzipping the whole exposition once per interval), RSS sampled once a second (drift over the window; growth per added node between the sizes), scrape p99 against a static server holding the same bytes scraped in turns, freshness, failed polls, and the TCP connections the daemon holds (its sockets in \`/proc/<pid>/fd\` matched with \`/proc/<pid>/net/tcp*\`, established). Then a probe-mode exporter with ${plan.fProbeTargets} \`probe.targets\` (the same kind of fleet), each probed through \`/probe\` once per interval, spread evenly, ${plan.fProbeSeconds} s after one interval of warm-up: CPU per probe against its floor, probe p99 against a static server holding one answer, RSS, failed probes (non-200, or a source down in the answer) and connections.

How: every measured server runs in a process of its own (compiled JavaScript, as \`node dist/cli.js\` runs; the daemon with ${Object.entries(DAEMON_RUNTIME_ENV)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(
      ', ',
    )}, the environment the Docker image and the systemd unit set, see test/tools/bench/runtime-env.ts), the fake nodes in others, the load client in the parent. A server's CPU time is its process's own, from the kernel (\`/proc/<pid>/task/*/schedstat\`, all threads), never the client's or the upstream's. The simulated world is 1,800 primary validators with one delegation each on average, an L1 with 30 validators, 2,000 peers and the full health report, from the project's FakeNode (\`generateValidators\`, \`generatePeers\`); the fake nodes keep idle connections 120 s as AvalancheGo does. autocannon's copy of every response body into a string is switched off: the bench checks no bodies, and for gzip bodies that copy made the client the bottleneck.

The machine is small and shared (2 cores, other work on it, and the load client itself takes a core), so the targets are ratios to limits measured in the same run wherever one exists; the polling tables say how long the daemon's event-loop thread waited for a CPU, and the header gives the machine's load average. Absolute CPU and latency figures move by 20-50 % between runs with the machine's load.

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
    // When F runs, its point at C's size is scenario C (the same run, with F's extras): one fleet run fewer.
    const cInF = plan.scenarios.includes('f') && plan.fNodes.includes(plan.cNodes);
    if (!cInF) {
      await attempt('c', async () => {
        res.c = await fleetRun(plan, logDir, profileDir, plan.cNodes, plan.cSeconds, false, 'C');
      });
    }
    await attempt('d', async () => {
      log('D: building the single executable and starting it');
      res.d = await benchBinary(logDir, plan.quick ? 3 : 5);
    });
    await attempt('s', async () => {
      res.s = await scenarioS(plan, logDir, profileDir, res.d?.path);
    });
    await attempt('f', async () => {
      res.f = await scenarioF(plan, logDir, profileDir);
      if (cInF && plan.scenarios.includes('c')) res.c = res.f.points.find((p) => p.nodes === plan.cNodes);
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
    writeFileSync(docPath, docOf(plan, body));
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
