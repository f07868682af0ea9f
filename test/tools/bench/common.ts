/**
 * What every scenario of `npm run bench` shares: the plan, formatting, the
 * target line, children kept for a scenario's length, a one-shot scrape.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import type { BenchChild } from './ipc.js';
import type { MemoryBreakdown } from './role-daemon.js';

export type ScenarioName = 'a' | 'b' | 'c' | 'd' | 's' | 'f';

export interface Plan {
  quick: boolean;
  /** A size was changed on the command line (a smoke run). */
  sized: boolean;
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
  /** Scenario S: poll interval, info.peers interval, Data API interval, warm-up and measured seconds. */
  sInterval: string;
  sPeersInterval: string;
  sDataApiInterval: string;
  sWarmSeconds: number;
  sSeconds: number;
  /** Scenario F: fleet sizes (the first is the reference of flat scaling; 50 is scenario C's run when C runs too), poll interval, measured seconds, nodes per fake process, probe targets. */
  fNodes: number[];
  fInterval: string;
  fSeconds: number;
  fNodesPerFake: number;
  fProbeTargets: number;
  fProbeSeconds: number;
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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function f(n: number, digits = 1): string {
  if (n === Infinity) return '∞';
  if (!Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const mb = (bytes: number) => f(bytes / 2 ** 20, 1);

/** A markdown table with aligned columns (readable as plain text too). */
export function table(headers: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const cell = (s: string, i: number) => ((align[i] ?? 'r') === 'l' ? s.padEnd(widths[i] as number) : s.padStart(widths[i] as number));
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => ((align[i] ?? 'r') === 'l' ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function log(msg: string): void {
  process.stderr.write(`[bench +${((performance.now() - T0) / 1000).toFixed(0)}s] ${msg}\n`);
}

export const T0 = performance.now();

/**
 * Waits until every given child uses (almost) no CPU, so no run overlaps the
 * tail of another (the baseline keeps rendering for seconds after its load
 * stops: one request in flight per connection). Bounded.
 */
export async function settle(children: readonly BenchChild[], maxMs = 20_000): Promise<void> {
  const end = Date.now() + maxMs;
  for (;;) {
    const a = await Promise.all(children.map((c) => c.cpuMs()));
    await sleep(300);
    const b = await Promise.all(children.map((c) => c.cpuMs()));
    if (b.every((v, i) => v - (a[i] as number) < 15) || Date.now() > end) return;
  }
}

/** A target line of the summary. */
export interface Target {
  scenario: string;
  what: string;
  measured: string;
  limit: string;
  /** The limit as measured in the same run (a floor, a reference server, a bare process), where the target is a ratio to one. */
  reference?: string;
  pass: boolean;
}

export interface Machine {
  cpu: string;
  cores: number;
  memGiB: number;
  node: string;
  os: string;
  loadAvg: string;
}

export function machine(): Machine {
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
export async function withChildren<T>(fn: (track: (c: BenchChild) => BenchChild) => Promise<T>): Promise<T> {
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

export function daemonNodeArgs(plan: Plan, profileDir: string, scenario: ScenarioName): string[] {
  const prof = plan.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=daemon-${scenario}.cpuprofile`] : [];
  return [...plan.daemonNodeOptions, ...prof];
}

export function memoryLine(m: MemoryBreakdown): string {
  const sp = (name: string) => mb(m.spaces[name] ?? 0);
  return `${mb(m.rss)} = heap ${mb(m.heapTotal)} (new ${sp('new_space')}, old ${sp('old_space')}, code ${sp('code_space')}, large objects ${sp('large_object_space')}) + outside the heap ${mb(m.rss - m.heapTotal)} (of which array buffers ${mb(m.arrayBuffers)})`;
}

export function scrapeOnce(agent: http.Agent, url: string): Promise<number> {
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

/** Resident set size now and its peak since the process started (VmRSS, VmHWM), bytes; NaN where unreadable. */
export function procMemory(pid: number): { rss: number; peak: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

/** The TCP connections a process holds (established, IPv4 and IPv6), split by whether its own `listenPort` is their local end. */
export function procTcpConnections(pid: number, listenPort: number): { inbound: number; outbound: number; other: number } {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1] as string);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return { inbound: NaN, outbound: NaN, other: NaN };
  }
  const out = { inbound: 0, outbound: 0, other: 0 };
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== '01' || !inodes.has(cols[9] as string)) continue;
      const localPort = parseInt((cols[1] as string).split(':')[1] ?? '', 16);
      if (localPort === listenPort) out.inbound++;
      else if (localPort > 0) out.outbound++;
      else out.other++;
    }
  }
  return out;
}

/** A plain `http.get` with the body read (and gunzipped when it came gzip); status, body and wall time. */
export function fetchOnce(agent: http.Agent, url: string, gzip = true): Promise<{ status: number; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { agent, headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - t0;
        const raw = Buffer.concat(chunks);
        try {
          resolve({ status: res.statusCode ?? 0, body: res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw, ms });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
  });
}

/** Median of unsorted figures. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
}
