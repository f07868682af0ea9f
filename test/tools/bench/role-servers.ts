/**
 * Child roles `baseline` and `static`: the two servers the daemon's scrape
 * figures are compared with, each serving the daemon's own exposition.
 *
 * - baseline: the straightforward way. The same series in a plain prom-client
 *   registry (plus prom-client's default process metrics), rendered with
 *   registry.metrics() on every scrape and gzipped per scrape when asked.
 * - static: the limit. The daemon's exposition fetched once, gzipped once, and
 *   every scrape writes one of the two ready buffers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Role } from './child.js';

const gzipAsync = promisify(gzip);
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Arguments of both roles: where to read the exposition from. */
export interface ServerArgs {
  sourceUrl: string;
}

/** What both roles report at start. */
export interface ServerInfo {
  url: string;
  /** Series in what it serves. */
  series: number;
  textBytes: number;
  gzipBytes: number;
}

function acceptsGzip(req: IncomingMessage): boolean {
  const ae = req.headers['accept-encoding'];
  return typeof ae === 'string' && ae.includes('gzip');
}

async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

async function listen(server: Server): Promise<string> {
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** One metric family of a text exposition. */
interface Family {
  help: string;
  type: string;
  samples: { labels: Record<string, string>; value: number }[];
}

function unescapeLabel(v: string): string {
  return v.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return Number(v);
}

/** Parses the text format (as the daemon writes it: no timestamps, families contiguous). */
export function parseFamilies(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { help: '', type: 'untyped', samples: [] }));
    return f;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const sp = rest.indexOf(' ');
      family(rest.slice(0, sp)).help = rest.slice(sp + 1).replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (name && type) family(name).type = type;
      continue;
    }
    if (line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const sp = line.lastIndexOf(' ');
    const name = brace === -1 || brace > sp ? line.slice(0, sp) : line.slice(0, brace);
    const labels: Record<string, string> = {};
    if (brace !== -1 && brace < sp) {
      const body = line.slice(brace + 1, line.lastIndexOf('}'));
      for (const m of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[m[1] as string] = unescapeLabel(m[2] as string);
    }
    family(name).samples.push({ labels, value: parseValue(line.slice(sp + 1)) });
  }
  return families;
}

/** Process metrics come from prom-client's own default collectors in the baseline, as they would in a straightforward exporter. */
const isProcessMetric = (name: string) => name.startsWith('process_') || name.startsWith('nodejs_');

export async function startBaselineRole(raw: unknown): Promise<Role> {
  const { sourceUrl } = raw as ServerArgs;
  const families = parseFamilies(await fetchText(sourceUrl));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const [name, f] of families) {
    if (isProcessMetric(name) || f.samples.length === 0) continue;
    const labelNames = Object.keys(f.samples[0]?.labels ?? {});
    const cfg = { name, help: f.help || name, labelNames, registers: [registry] };
    if (f.type === 'counter') {
      const c = new Counter(cfg);
      for (const s of f.samples) c.inc(s.labels, s.value);
    } else {
      const g = new Gauge(cfg);
      for (const s of f.samples) g.set(s.labels, s.value);
    }
  }
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const text = await registry.metrics();
        if (acceptsGzip(req)) {
          const body = await gzipAsync(text);
          res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-encoding': 'gzip', 'content-length': String(body.length), vary: 'Accept-Encoding' });
          res.end(body);
        } else {
          res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': String(Buffer.byteLength(text)), vary: 'Accept-Encoding' });
          res.end(text);
        }
      } catch (err) {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      }
    })();
  });
  const url = await listen(server);
  const text = await registry.metrics();
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  return {
    info: { url, series, textBytes: Buffer.byteLength(text), gzipBytes: gzipSync(text).length } satisfies ServerInfo,
    handlers: {},
    close: closer(server),
  };
}

export async function startStaticRole(raw: unknown): Promise<Role> {
  const { sourceUrl } = raw as ServerArgs;
  const text = Buffer.from(await fetchText(sourceUrl), 'utf8');
  const gz = gzipSync(text);
  const server = createServer((req, res) => {
    const zipped = acceptsGzip(req);
    const body = zipped ? gz : text;
    res.writeHead(200, {
      'content-type': CONTENT_TYPE,
      'content-length': String(body.length),
      vary: 'Accept-Encoding',
      ...(zipped ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(body);
  });
  const url = await listen(server);
  const series = text
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#')).length;
  return {
    info: { url, series, textBytes: text.length, gzipBytes: gz.length } satisfies ServerInfo,
    handlers: {},
    close: closer(server),
  };
}
