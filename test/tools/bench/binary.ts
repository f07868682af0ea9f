/**
 * Scenario D of `npm run bench`: the single executable (`npm run build:binary`). Builds it into the run's
 * log folder, then prints its size and how fast it starts: `--version` (process start to exit: the
 * executable's own start-up, the script from V8's code cache) and `--demo` (spawn to the first
 * /metrics answered with the demo node's samples in it), with the RSS at that moment. Figures only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface BinaryResult {
  /** Where the executable was built (the run's log folder): scenario S runs it as the sidecar. */
  path: string;
  node: string;
  bytes: number;
  buildSeconds: number;
  runs: number;
  /** Wall time of `--version`, spawn to exit, ms. */
  versionMs: { p50: number; max: number };
  /** Wall time from spawn to the first /metrics with the demo node's samples, ms. */
  firstScrapeMs: { p50: number; max: number };
  /** RSS of the demo process at its first scrape. */
  rssBytes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Spawns the demo and resolves with the time to its first /metrics holding `avax_node_healthy`, and its RSS then. */
async function demoStart(bin: string, cwd: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const child = spawn(bin, ['--demo', '--web.listen-address=127.0.0.1:0', '--log.level=info'], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const deadline = t0 + 30_000;
    while (performance.now() < deadline) {
      const port = /^\{.*"address":"[^"]*:(\d+)".*"msg":"listening"\}$/m.exec(out)?.[1];
      if (port) {
        const body = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => (r.ok ? r.text() : ''),
          () => '',
        );
        if (body.includes('avax_node_healthy{')) {
          const ms = performance.now() - t0;
          const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
          return { ms, rss };
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`the demo did not serve /metrics within 30 s:\n${out}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

/** Builds the executable into `dir` and measures it `runs` times. */
export async function benchBinary(dir: string, runs: number): Promise<BinaryResult> {
  const bin = join(dir, 'avax-exporter');
  const t0 = performance.now();
  const built = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'test/tools/build-binary.ts'), `--out=${bin}`], { cwd: REPO, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build:binary failed: ${built.stdout}${built.stderr}`);
  const buildSeconds = (performance.now() - t0) / 1000;
  const version: number[] = [];
  const first: number[] = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const v0 = performance.now();
    const r = spawnSync(bin, ['--version'], { cwd: dir, env: {}, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`--version failed: ${r.stderr}`);
    version.push(performance.now() - v0);
    const d = await demoStart(bin, dir);
    first.push(d.ms);
    rss = Math.max(rss, d.rss);
  }
  return {
    path: bin,
    node: process.version,
    bytes: statSync(bin).size,
    buildSeconds,
    runs,
    versionMs: { p50: median(version), max: Math.max(...version) },
    firstScrapeMs: { p50: median(first), max: Math.max(...first) },
    rssBytes: rss,
  };
}

/** The rows of scenario D's table. */
export function binaryRows(d: BinaryResult): string[][] {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    ['file size (a copy of Node plus the bundled script)', `${(d.bytes / 2 ** 20).toFixed(1)} MiB (Node ${d.node})`],
    ['build time (bundle, blob, copy, inject)', `${d.buildSeconds.toFixed(1)} s`],
    [`--version, spawn to exit, p50 / max of ${d.runs}`, `${ms(d.versionMs.p50)} / ${ms(d.versionMs.max)}`],
    [`--demo, spawn to the first /metrics with samples, p50 / max of ${d.runs}`, `${ms(d.firstScrapeMs.p50)} / ${ms(d.firstScrapeMs.max)}`],
    ['RSS of the demo at its first scrape (max)', `${(d.rssBytes / 2 ** 20).toFixed(1)} MB`],
  ];
}
