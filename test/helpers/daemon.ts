import { Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { FakeNode, type FakeNodeState } from '../fakes/fake-node.js';
import { gunzipSync } from 'node:zlib';
import { buildConfig } from '../../src/config/load.js';
import { startDaemon, type Daemon, type DaemonOptions, testHandle } from '../../src/daemon.js';
import { createLogger } from '../../src/log.js';

/** Log lines captured from a daemon under test. */
export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  readonly raw: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) {
      if (!l.trim()) continue;
      this.raw.push(l);
      this.lines.push(JSON.parse(l) as Record<string, unknown>);
    }
    cb();
  }
  /** Lines with this message. */
  withMsg(msg: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l['msg'] === msg);
  }
}

/** A daemon on 127.0.0.1:0 with short intervals, and its captured logs. */
export interface TestDaemon {
  daemon: Daemon;
  logs: LogCapture;
}

/** Starts a daemon from a raw (file-shaped) config, on a free loopback port, with fast polling. */
export async function startTestDaemon(raw: Record<string, unknown>, extra: Pick<DaemonOptions, 'maxResponseBytes' | 'sources'> = {}): Promise<TestDaemon> {
  const logs = new LogCapture();
  const config = buildConfig({
    web: { listen_address: '127.0.0.1:0' },
    // Off unless a test asks for it: a test must never reach the public Data API.
    data_api: { enabled: false },
    ...raw,
    // Fast polling with a generous deadline (a cold first request on a loaded CI machine can take 100+ ms);
    // info.peers every round unless a test says otherwise, so a change to the fake's peers shows in the next round.
    poll: { ...(raw['poll'] ? {} : { interval: '500ms', timeout: '400ms' }), peers_interval: '0s', ...(raw['poll'] as object | undefined) },
  });
  const daemon = await startDaemon(config, { logger: createLogger({ level: 'debug', format: 'json', destination: logs }), jitter: 0, ...extra });
  return { daemon, logs };
}

/**
 * Counts the fake node's calls in one whole round, by JSON-RPC method or
 * `GET /path?query`: the log is emptied right after a round ends and read
 * right after the next (the one after that is an interval away).
 */
export async function callsInOneRound(node: FakeNode, daemon: Daemon): Promise<(key: string) => number> {
  const hooks = testHandle(daemon);
  await hooks.waitForRounds(1);
  node.clearCalls();
  await hooks.waitForRounds(1);
  const counts = new Map<string, number>();
  for (const c of node.calls) {
    const key = c.rpcMethod ?? `${c.httpMethod} ${c.path}${c.query}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (k) => counts.get(k) ?? 0;
}

/** Scrapes a daemon's /metrics (plain or gzip) and returns the text. */
export async function scrape(daemon: Daemon, opts: { gzip?: boolean; path?: string } = {}): Promise<string> {
  const res = await fetch(`${daemon.url}${opts.path ?? '/metrics'}`, {
    headers: opts.gzip ? { 'accept-encoding': 'gzip' } : { 'accept-encoding': 'identity' },
  });
  if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
  return await res.text();
}

/** Fetches raw bytes with gzip asked for, decompressing by hand (to check Content-Encoding). */
export async function scrapeGzipRaw(daemon: Daemon): Promise<{ encoding: string | null; text: string }> {
  const { request } = await import('undici');
  const res = await request(`${daemon.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const encoding = (res.headers['content-encoding'] as string | undefined) ?? null;
  return { encoding, text: encoding === 'gzip' ? gunzipSync(buf).toString('utf8') : buf.toString('utf8') };
}

/** Parses exposition text into `name{labels}` → value (labels as rendered). */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** The value of the one series of `name` whose labels include all of `labels`, or undefined. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = seriesOf(text, name, labels);
  if (found.length > 1) throw new Error(`${found.length} series of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** All series of `name` whose labels include `labels`. */
export function seriesOf(text: string, name: string, labels: Record<string, string> = {}): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const [key, value] of parseExposition(text)) {
    const brace = key.indexOf('{');
    const metric = brace === -1 ? key : key.slice(0, brace);
    if (metric !== name) continue;
    const ls: Record<string, string> = {};
    if (brace !== -1)
      for (const m of key.slice(brace + 1, -1).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) ls[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
    if (Object.entries(labels).every(([k, v]) => ls[k] === v)) out.push({ labels: ls, value });
  }
  return out;
}

/** Polls `check` until it returns true or the timeout passes. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5_000, stepMs = 50): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * Waits until every source of every node has succeeded in one round. The first
 * round of a fresh test process can miss a short deadline while modules warm up.
 */
export async function waitUntilAllUp(daemon: Daemon, timeoutMs = 8_000): Promise<void> {
  const hooks = testHandle(daemon);
  const end = Date.now() + timeoutMs;
  for (;;) {
    await hooks.waitForRounds(1);
    const states = hooks.store.all();
    if (states.length > 0 && states.every((s) => s.up === true)) return;
    if (Date.now() > end) {
      const down = states.filter((s) => s.up !== true).map((s) => `${s.node}/${s.source}: ${s.lastError?.message ?? 'pending'}`);
      throw new Error(`sources still down: ${down.join('; ')}`);
    }
  }
}

/**
 * Per-test resources: a fake node or a daemon started through these is
 * stopped after the test (last started, first stopped). Call at the top
 * level of a test file.
 */
export function perTestResources(): { fakeNode: () => Promise<FakeNode>; daemonFor: (raw: Record<string, unknown>) => Promise<TestDaemon> } {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  return {
    fakeNode: async () => {
      const node = await FakeNode.start();
      cleanup.push(() => node.stop());
      return node;
    },
    daemonFor: async (raw) => {
      const t = await startTestDaemon(raw);
      cleanup.push(() => t.daemon.stop());
      return t;
    },
  };
}

/** Runs `run` against a fake node started with `state`, and stops the node afterwards whatever happens. */
export async function withFakeNode(state: FakeNodeState, run: (node: FakeNode) => Promise<void>): Promise<void> {
  const node = await FakeNode.start({ state });
  try {
    await run(node);
  } finally {
    await node.stop();
  }
}
