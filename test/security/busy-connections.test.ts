/**
 * The connection guard against busy connections (issue 23, point 2), where
 * auth is off or credentials leaked: looping `/probe` requests on a slow
 * target from many addresses, and a client that never reads its response.
 * In-flight probes are capped per address and overall (503 beyond); at the
 * connection cap the address holding the most connections gives one up,
 * busy or not; a response not written in full in time loses its
 * connection. Attackers connect from 127.0.0.2 and up, the scraper from
 * 127.0.0.1; the scale is small (64 connections) and so are the limits.
 */
import type { Server } from 'node:http';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, limitsForProbeTargets } from '../../src/server/connection-guard.js';
import { closeServers, startStaticServer, STATIC_EXPOSITION } from '../helpers/tls.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await closeServers(servers);
});

/** GET `path` on a fresh connection from 127.0.0.1: the status (0: reset or timed out) and the time it took. */
function get(port: number, path: string, timeoutMs = 5_000): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: '127.0.0.1', agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** A connection from `localAddress` that sends `GET /probe` again as soon as it has an answer, until closed; counts the statuses it got. */
function loopProbes(port: number, localAddress: string, statuses: number[]): Socket {
  const s = connect({ port, host: '127.0.0.1', localAddress });
  s.on('error', () => undefined);
  sockets.push(s);
  let buf = '';
  const ask = () => s.write('GET /probe?target=slow HTTP/1.1\r\nHost: x\r\n\r\n');
  s.on('connect', ask);
  s.on('data', (d: Buffer) => {
    buf += d.toString('latin1');
    // Each refusal is a small answer with a content-length: one per header block.
    for (let m = /HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n[^\n]*\n/.exec(buf); m; m = /HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n[^\n]*\n/.exec(buf)) {
      statuses.push(Number(m[1]));
      buf = buf.slice(m.index + m[0].length);
      ask();
    }
  });
  return s;
}

describe('busy connections', () => {
  it('looping /probe requests on a slow target from eight addresses keep no scrape out: probes are capped (503 beyond), and newcomers take the place of the greediest address', async () => {
    let inFlight = 0;
    let most = 0;
    const { port } = await startStaticServer(servers, {
      // An allowed target that never answers in time: the probe holds its request until the response timeout cuts it.
      probe: async (_req, res) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise<void>((r) => res.once('close', () => r()));
        inFlight--;
      },
      limits: { maxConnections: 64, maxConnectionsPerAddress: 8, maxProbesInFlight: 16, maxProbesInFlightPerAddress: 4, responseTimeoutMs: 3_000 },
    });
    const statuses: number[] = [];
    // Eight addresses, ten looping connections each: 80 wanted, 64 allowed, every one busy or asking again at once.
    for (let a = 2; a < 10; a++) for (let k = 0; k < 10; k++) loopProbes(port, `127.0.0.${a}`, statuses);
    await sleep(800);
    const scrapes: { status: number; ms: number }[] = [];
    for (let i = 0; i < 20; i++) scrapes.push(await get(port, '/metrics'));
    // Newcomers keep coming from the attackers too while the scraper is served.
    for (let a = 2; a < 10; a++) for (let k = 0; k < 4; k++) loopProbes(port, `127.0.0.${a}`, statuses);
    await sleep(300);
    for (let i = 0; i < 5; i++) scrapes.push(await get(port, '/metrics'));

    expect(scrapes.map((s) => s.status)).toEqual(Array<number>(25).fill(200));
    for (const s of scrapes) expect(s.ms).toBeLessThan(1_000);
    // The probe caps held, and what was beyond them was refused with 503 at once.
    expect(most).toBeLessThanOrEqual(16);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s !== 503)).toEqual([]);
    // The table was full: attackers' connections, busy ones among them, were closed to make room.
    expect(sockets.filter((s) => s.destroyed || s.readyState === 'closed').length).toBeGreaterThan(16);
  }, 30_000);

  it('with probe-only targets the caps grow to a probe of each in flight from one scraper, still refuse beyond, and follow a reload', async () => {
    let inFlight = 0;
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let targets = 10;
    const { port } = await startStaticServer(servers, {
      // A probe whose target's round has not ended yet: held until released.
      probe: async (_req, res) => {
        inFlight++;
        await Promise.race([released, new Promise<void>((r) => res.once('close', () => r()))]);
        inFlight--;
        if (!res.writableEnded && !res.destroyed) res.end('ok\n');
      },
      probeTargets: () => targets,
      limits: { maxConnections: 64, maxConnectionsPerAddress: 8, maxProbesInFlight: 16, maxProbesInFlightPerAddress: 4, responseTimeoutMs: 10_000 },
    });
    // Ten targets: ten probes in flight from the scraper's address, each on a connection of its own (8 would be the
    // address's cap on connections without targets, and 4 its cap on probes).
    const held = Array.from({ length: 10 }, () => get(port, '/probe?target=t', 8_000));
    for (const end = Date.now() + 3_000; inFlight < 10 && Date.now() < end;) await sleep(20);
    expect(inFlight).toBe(10);
    const eleventh = await get(port, '/probe?target=t');
    expect(eleventh.status).toBe(503);
    // A reload took the targets away: the base caps are back. Four probes from one address at most (503), and eight
    // connections: the newcomer made the address give up its oldest one, busy as it was.
    targets = 0;
    expect((await get(port, '/probe?target=t')).status).toBe(503);
    await sleep(100);
    expect(inFlight).toBe(9);
    release();
    const statuses = (await Promise.all(held)).map((r) => r.status).sort();
    expect(statuses).toEqual([0, ...Array<number>(9).fill(200)]);
  }, 20_000);

  it('limitsForProbeTargets: from one address a probe of every target and that many more connections; in all twice that', () => {
    expect(limitsForProbeTargets(DEFAULT_LIMITS, 0)).toBe(DEFAULT_LIMITS);
    expect(limitsForProbeTargets(DEFAULT_LIMITS, 10)).toMatchObject({ maxProbesInFlightPerAddress: 32, maxProbesInFlight: 128, maxConnectionsPerAddress: 138 });
    expect(limitsForProbeTargets(DEFAULT_LIMITS, 1_000)).toEqual({
      ...DEFAULT_LIMITS,
      maxProbesInFlightPerAddress: 1_000,
      maxProbesInFlight: 2_000,
      maxConnectionsPerAddress: 1_128,
      maxConnections: 3_024,
    });
  });

  it('a client that never reads its response loses its connection at the response timeout', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'a');
    const { server, port } = await startStaticServer(servers, {
      exposition: () => ({ ...STATIC_EXPOSITION, text: big }),
      limits: { responseTimeoutMs: 1_500 },
    });
    const s = connect({ port, host: '127.0.0.1' });
    s.on('error', () => undefined);
    sockets.push(s);
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.pause(); // never reads: the 8 MB answer fills the socket buffers and stays queued
    s.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    await sleep(500);
    expect(await connections()).toBe(1);
    const t0 = performance.now();
    while ((await connections()) > 0 && performance.now() - t0 < 8_000) await sleep(100);
    expect(await connections()).toBe(0);
    // Cut at the timeout (1.5 s from the request), not at some later idle or keep-alive limit.
    expect(performance.now() - t0).toBeLessThan(4_000);
    // Meanwhile, and after, scrapes of a small path are served.
    expect((await get(port, '/-/healthy')).status).toBe(200);
  }, 20_000);
});
