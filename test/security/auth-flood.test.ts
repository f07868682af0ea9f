/**
 * Basic auth under a flood of wrong passwords (issue 23, points 1 and 6):
 * bcrypt runs in worker threads, so accepting connections and serving
 * cached credentials never waits on a comparison; a request without a
 * well-formed Basic header costs no comparison; every client address has at
 * most one comparison queued; failed checks are padded to the highest cost
 * in the file; the verified-credentials cache is renewed on use. Attackers
 * connect from 127.0.0.2 and up (loopback on Linux), the scraper from
 * 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BcryptPool } from '../../src/server/bcrypt-pool.js';
import { BasicAuth } from '../../src/server/basic-auth.js';
import { closeServers, startStaticServer } from '../helpers/tls.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-auth-flood-'));
});

const servers: Server[] = [];
afterEach(async () => {
  await closeServers(servers);
});

/** GET /metrics on a fresh connection from `localAddress`; the status (0: failed or timed out) and the time to the answer. */
/**
 * The attack, as plain JavaScript for a child process: for `ms`, from
 * 127.0.0.2..5, `rate` new connections a second per address, each sending one
 * wrong password; prints every status (0: failed) when done.
 */
const ATTACKER = `
const http = require('node:http');
const [port, ms, rate] = process.argv.slice(1).map(Number);
const statuses = [];
const pending = [];
const end = Date.now() + ms;
const one = (a, i) => new Promise((resolve) => {
  const auth = 'Basic ' + Buffer.from('prometheus:guess-' + a + '-' + i).toString('base64');
  const req = http.request({ host: '127.0.0.1', port, path: '/metrics', localAddress: '127.0.0.' + a, agent: false, timeout: 10000, headers: { authorization: auth } }, (res) => {
    res.resume();
    res.on('end', () => { statuses.push(res.statusCode); resolve(); });
  });
  req.on('error', () => { statuses.push(0); resolve(); });
  req.on('timeout', () => req.destroy());
  req.end();
});
let i = 0;
const timer = setInterval(() => {
  if (Date.now() >= end) {
    clearInterval(timer);
    Promise.all(pending).then(() => process.stdout.write(statuses.join(' ') + '\\n'));
    return;
  }
  for (const a of [2, 3, 4, 5]) pending.push(one(a, i++));
}, 1000 / rate);
`;

function get(port: number, authorization: string | undefined, localAddress = '127.0.0.1', timeoutMs = 5_000): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/metrics', localAddress, agent: false, timeout: timeoutMs, headers: authorization ? { authorization } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

describe('a flood of wrong passwords', () => {
  it('from four loopback addresses leaves a fresh authenticated scrape answered within a second, and an uncached valid password gets in', async () => {
    // Cost 10, what `htpasswd -B` makes: ~70 ms a comparison here, the cost that starved the server before.
    const file = join(dir, 'web.yml');
    writeFileSync(file, `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret', 10)}\n  grafana: ${bcrypt.hashSync('other-pw', 10)}\n`);
    const { port } = await startStaticServer(servers, { webConfigFile: file });
    // Prometheus has been scraping: its credentials are verified and cached.
    expect((await get(port, basic('prometheus:s3cret'))).status).toBe(200);

    // The attackers run in a child process (as they would on another host): four addresses, a new connection
    // per request as a password guesser makes, 25 a second from each address (100 a second in all; the
    // issue's flood was 40), for 2.5 s.
    const attacker = spawn(process.execPath, ['-e', ATTACKER, String(port), '2500', '25'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    attacker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const attackDone = new Promise<void>((r) => attacker.once('close', () => r()));
    await sleep(400); // the flood is on
    const scrapes: { status: number; ms: number }[] = [];
    for (let i = 0; i < 5; i++) {
      scrapes.push(await get(port, basic('prometheus:s3cret')));
      await sleep(250);
    }
    // A password not verified yet: this address has no comparison queued, so it gets one.
    const uncached = await get(port, basic('grafana:other-pw'));
    await attackDone;
    const attackStatuses = out.trim().split(/\s+/).map(Number);
    // The flood was real: well over 40 bad-password connections a second, none answered 200.
    expect(attackStatuses.length).toBeGreaterThan(100);
    expect(attackStatuses.filter((s) => s === 200)).toEqual([]);
    expect(attackStatuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    for (const s of scrapes) {
      expect(s.status).toBe(200);
      expect(s.ms).toBeLessThan(1_000);
    }
    expect(uncached.status).toBe(200);
    // Behind at most one comparison per attacking address (four), however many they send.
    expect(uncached.ms).toBeLessThan(10_000);
  }, 30_000);

  it('comparisons run in a worker thread: the event loop keeps turning during a cost-12 comparison', async () => {
    const pool = new BcryptPool(1);
    expect(pool.threaded).toBe(true);
    const hash = bcrypt.hashSync('pw', 12);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    const [right, wrong] = await Promise.all([pool.compare('pw', hash), pool.compare('nope', hash)]);
    const ms = performance.now() - t0;
    clearInterval(timer);
    await pool.close();
    expect(right.ok).toBe(true);
    expect(wrong.ok).toBe(false);
    // Two comparisons of ~250 ms each, one after the other in the one worker; the loop turned all along.
    expect(ms).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(ms / 5 / 4);
  }, 20_000);

  it('a request without a well-formed Basic header is refused without a comparison, and one address has at most one comparison queued', async () => {
    let compared = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const auth = new BasicAuth(
      { alice: bcrypt.hashSync('pw', 4) },
      async (p, h) => {
        compared++;
        await gate;
        return bcrypt.compare(p, h);
      },
      { concurrency: 2 },
    );
    for (const header of [undefined, '', 'Bearer abc', 'Basic', 'Basic %%%', basic('no-colon'), `Digest ${Buffer.from('a:b').toString('base64')}`]) {
      expect(await auth.verify(header, '127.0.0.9'), String(header)).toBe('denied');
    }
    expect(compared).toBe(0);
    const first = auth.verify(basic('alice:wrong'), '127.0.0.2');
    // The same address again, while its first comparison waits: refused at once, nothing compared.
    expect(await auth.verify(basic('alice:wrong-2'), '127.0.0.2')).toBe('busy');
    // Another address is not held up by it.
    const other = auth.verify(basic('alice:pw'), '127.0.0.3');
    await sleep(10);
    expect(compared).toBe(2);
    release();
    expect(await first).toBe('denied');
    expect(await other).toBe('ok');
    // Once answered, the address may try again.
    expect(await auth.verify(basic('alice:wrong-3'), '127.0.0.2')).toBe('denied');
  });

  it('a verified password stays cached while it is used: the cache entry is renewed on each use', async () => {
    let compared = 0;
    const auth = new BasicAuth(
      { prometheus: bcrypt.hashSync('s3cret', 4) },
      (p, h) => {
        compared++;
        return bcrypt.compare(p, h);
      },
      { cacheTtlMs: 600 },
    );
    const h = basic('prometheus:s3cret');
    expect(await auth.verify(h)).toBe('ok');
    // Used every 350 ms, 2.1 s in all, the entry outlives its 600 ms many times over: one comparison.
    for (let i = 0; i < 6; i++) {
      await sleep(350);
      expect(await auth.verify(h)).toBe('ok');
    }
    expect(compared).toBe(1);
    // Unused for longer than the time-to-live, it is compared again.
    await sleep(900);
    expect(await auth.verify(h)).toBe('ok');
    expect(compared).toBe(2);
  });

  it('with mixed bcrypt costs, a wrong password for the cheap user takes as long as an unknown user (padded to the highest cost)', async () => {
    // Cost 5 and cost 10: unpadded, ~2 ms against ~70 ms.
    const auth = new BasicAuth({ cheap: bcrypt.hashSync('pw', 5), dear: bcrypt.hashSync('pw', 10) });
    const time = async (header: string) => {
      const t0 = performance.now();
      expect(await auth.verify(header, `addr-${Math.random()}`)).toBe('denied');
      return performance.now() - t0;
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const unknown: number[] = [];
    const cheapWrong: number[] = [];
    await time(basic('nobody:x')); // the workers are started
    for (let i = 0; i < 5; i++) {
      unknown.push(await time(basic(`nobody-${i}:x`)));
      cheapWrong.push(await time(basic(`cheap:wrong-${i}`)));
    }
    const direct = performance.now();
    bcrypt.compareSync('x', bcrypt.hashSync('pw', 5));
    const cheapCost = performance.now() - direct;
    expect(median(unknown)).toBeGreaterThan(4 * cheapCost);
    expect(median(cheapWrong)).toBeGreaterThan(0.6 * median(unknown));
  }, 20_000);
});
