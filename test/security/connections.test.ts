/**
 * The connection table under attack, on loopback: silent sockets, idle
 * keep-alive clients and one greedy address must not keep an authenticated
 * scrape out. Attackers connect from other loopback addresses (127.0.0.2 and
 * up, which Linux routes like 127.0.0.1), the scraper from 127.0.0.1.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/server/connection-guard.js';
import type { ServerOptions } from '../../src/server/server.js';
import { closeServers, selfSignedCert, startStaticServer, STATIC_EXPOSITION } from '../helpers/tls.js';

const BODY = STATIC_EXPOSITION.text.toString('utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-conns-'));
  selfSignedCert(dir, 'server');
  writeFileSync(
    join(dir, 'web.yml'),
    `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret', 4)}\n`,
  );
});

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await closeServers(servers);
});

async function start(extra: Partial<ServerOptions>): Promise<number> {
  return (await startStaticServer(servers, extra)).port;
}

/** Opens `count` TCP connections spread over loopback addresses 127.0.0.<first>.. (at most `perAddress` each); resolves once all are connected or closed. */
async function openSilent(
  port: number,
  count: number,
  perAddress: number,
  first = 2,
  onOpen?: (s: Socket) => void,
): Promise<{ open: () => number; all: Socket[] }> {
  const all: Socket[] = [];
  const settled: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const s = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${first + Math.floor(i / perAddress)}` });
    s.on('error', () => undefined);
    sockets.push(s);
    all.push(s);
    settled.push(
      new Promise<void>((r) => {
        s.once('connect', () => {
          onOpen?.(s);
          r();
        });
        s.once('close', () => r());
      }),
    );
    if (i % 100 === 99) await Promise.all(settled.slice(-100));
  }
  await Promise.all(settled);
  return { open: () => all.filter((s) => !s.destroyed && !s.closed).length, all };
}

/** An authenticated HTTPS scrape from 127.0.0.1 that must be answered within `timeoutMs`. */
function scrapeTls(port: number, timeoutMs: number): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: '/metrics', ca: readFileSync(join(dir, 'server.crt')), auth: 'prometheus:s3cret', agent: false, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

describe('connection caps', () => {
  it('1,030 silent TCP sockets to a TLS + auth server: a concurrent authenticated scrape is answered at once, and the silent ones are cut at the header timeout (TLS handshake included)', async () => {
    expect(DEFAULT_LIMITS.maxConnections).toBe(1_024);
    expect(DEFAULT_LIMITS.tlsHandshakeTimeoutMs).toBeLessThanOrEqual(10_000);
    const port = await start({ webConfigFile: join(dir, 'web.yml'), limits: { headersTimeoutMs: 3_000 } });
    const t0 = Date.now();
    const silent = await openSilent(port, 1_030, 60);
    // The table is full of clients that never said a word...
    expect(silent.open()).toBeGreaterThanOrEqual(1_000);
    await sleep(300);
    // ...and Prometheus still gets its answer, well within a scrape timeout.
    const scrape = await scrapeTls(port, 3_000);
    expect(scrape.status).toBe(200);
    expect(scrape.body).toBe(BODY);
    // None of them survives the header timeout (by much: the sweep runs every quarter of it).
    while (silent.open() > 0 && Date.now() - t0 < 8_000) await sleep(100);
    expect(silent.open()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(3_000 + 3_000);
  });

  it('1,030 idle keep-alive clients on plain HTTP: /metrics is still answered, the longest idle ones made room', async () => {
    // A keep-alive timeout far beyond the test: only the cap's reclaiming can free a slot.
    const port = await start({ limits: { keepAliveTimeoutMs: 120_000, headersTimeoutMs: 60_000, requestTimeoutMs: 120_000 } });
    const answered: Socket[] = [];
    const { all } = await openSilent(port, 1_030, 60, 2, (s) => s.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n'));
    for (const s of all) s.once('data', () => answered.push(s));
    await sleep(500);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3_000) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(BODY);
    // Reclaimed oldest idle first: the first clients are the ones gone, the last ones still open.
    const closed = all.map((s) => s.destroyed || s.closed);
    expect(closed.filter(Boolean).length).toBeGreaterThan(0);
    expect(closed.slice(0, 10).every(Boolean)).toBe(true);
    expect(closed.slice(-10).some(Boolean)).toBe(false);
  });

  it('one address cannot hold more than its share: beyond maxConnectionsPerAddress its own idle connections make room', async () => {
    const port = await start({ limits: { maxConnectionsPerAddress: 50, headersTimeoutMs: 60_000 } });
    const greedy = await openSilent(port, 200, 200, 40);
    await sleep(300);
    // 50 kept, the other 150 closed at once (the first ones were not idle long enough to make room).
    expect(greedy.open()).toBe(50);
    // The same address again, once its first connections have been idle a while.
    const more = await openSilent(port, 20, 20, 40);
    await sleep(200);
    expect(greedy.open() + more.open()).toBeLessThanOrEqual(50);
    expect(more.open()).toBe(20);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3_000) });
    expect(res.status).toBe(200);
  });
});
