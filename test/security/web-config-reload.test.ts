/**
 * Changes to --web.config.file while the server runs, and the cost of basic
 * auth under a flood: a change is applied whole or not at all, never opens
 * the server, and bcrypt work is bounded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../src/server/server.js';
import { loadWebConfig, WebConfigError } from '../../src/server/web-config.js';
import { BasicAuth } from '../../src/server/basic-auth.js';
import { closeServers, selfSignedCert, startStaticServer } from '../helpers/tls.js';
import { FakeNode } from '../fakes/fake-node.js';
import { eventually, startTestDaemon, valueOf } from '../helpers/daemon.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `ok` every 50 ms until it holds or `ms` passed. */
async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const t0 = Date.now();
  while (!ok() && Date.now() - t0 < ms) await sleep(50);
}
let dir = '';
const HASH_OLD = bcrypt.hashSync('old-pw', 4);
const HASH_NEW = bcrypt.hashSync('new-pw', 4);
const TLS_AUTH = (hash: string) => `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: ${hash}\n`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-reload-'));
  selfSignedCert(dir, 'server');
  selfSignedCert(dir, 'other', 'other');
  writeFileSync(join(dir, 'garbage.crt'), '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n');
});

const servers: Server[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await closeServers(servers);
});

async function start(extra: Partial<ServerOptions>): Promise<number> {
  return (await startStaticServer(servers, extra)).port;
}

/** HTTPS GET /metrics, with or without credentials; the status, or 0 when the connection failed. */
function get(port: number, auth?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: '/metrics', ca: readFileSync(join(dir, 'server.crt')), agent: false, ...(auth ? { auth } : {}), timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

describe('web config reload', () => {
  it('truncated, corrupt, unreadable or unappliable changes to a running TLS + auth server are refused whole, with a log line; no request without credentials is ever answered', async () => {
    const file = join(dir, 'web.yml');
    writeFileSync(file, TLS_AUTH(HASH_OLD));
    const errors: string[] = [];
    const reloads: boolean[] = [];
    const port = await start({ webConfigFile: file, onWebConfigError: (e) => errors.push(e.message), onWebConfigReload: (ok) => reloads.push(ok) });
    expect(await get(port, 'prometheus:old-pw')).toBe(200);

    // Someone without credentials keeps asking, all along.
    const anonymous: number[] = [];
    let hammering = true;
    const hammer = (async () => {
      while (hammering) {
        anonymous.push(await get(port));
        await sleep(10);
      }
    })();
    cleanups.push(async () => {
      hammering = false;
      await hammer;
    });

    /** Writes the file (or removes it), lets the once-a-second check see it, and returns what the next reload attempt said. */
    const change = async (content: string | undefined): Promise<boolean | undefined> => {
      await sleep(300);
      const before = reloads.length;
      if (content === undefined) rmSync(file);
      else writeFileSync(file, content);
      // Looked at twice, half a second apart, before it is read.
      await waitFor(() => reloads.length > before, 5_000);
      expect(await get(port, 'prometheus:old-pw')).not.toBe(0);
      return reloads.length > before ? reloads.at(-1) : undefined;
    };

    const refusals: [string, string | undefined, RegExp][] = [
      ['truncated to nothing', '', /is empty/],
      ['corrupt YAML', 'tls_server_config: [\n  cert_file', /not valid YAML/],
      ['cut in the middle of the hash', TLS_AUTH(HASH_OLD).slice(0, -20), /bcrypt hash/],
      ['removed', undefined, /cannot read/],
      ['TLS turned off', `basic_auth_users:\n  prometheus: ${HASH_OLD}\n`, /turning TLS off needs a restart/],
      [
        'client auth changed',
        `${TLS_AUTH(HASH_OLD)}`.replace(
          'key_file: server.key\n',
          'key_file: server.key\n  client_ca_file: server.crt\n  client_auth_type: RequireAndVerifyClientCert\n',
        ),
        /client_auth_type NoClientCert -> RequireAndVerifyClientCert needs a restart/,
      ],
      [
        'basic auth turned off (the last section not written yet)',
        TLS_AUTH(HASH_OLD).replace(/basic_auth_users:[\s\S]*$/, ''),
        /turning basic auth off .*needs a restart/,
      ],
      ['users removed with a bad certificate path', 'tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n', /cannot read/],
      ['users removed with a garbage certificate', 'tls_server_config:\n  cert_file: garbage.crt\n  key_file: server.key\n', /garbage\.crt/],
      ["users removed with a certificate that is not the key's", 'tls_server_config:\n  cert_file: other.crt\n  key_file: server.key\n', /other\.crt/],
    ];
    for (const [what, content, why] of refusals) {
      expect(await change(content), what).toBe(false);
      expect(errors.at(-1), what).toMatch(why);
      // The config in force is the old one, whole: the old password still works.
      expect(await get(port, 'prometheus:old-pw'), what).toBe(200);
    }
    // A valid change is applied: the new password works, the old one no longer does.
    expect(await change(TLS_AUTH(HASH_NEW))).toBe(true);
    expect(await get(port, 'prometheus:new-pw')).toBe(200);
    expect(await get(port, 'prometheus:old-pw')).toBe(401);

    hammering = false;
    await hammer;
    expect(anonymous.length).toBeGreaterThan(50);
    expect(anonymous.filter((s) => s !== 401 && s !== 0)).toEqual([]);
    expect(anonymous.filter((s) => s === 401).length).toBeGreaterThan(50);
  }, 60_000);

  it('avax_exporter_web_config_last_reload_successful says whether the last change was applied', async () => {
    const node = await FakeNode.start();
    cleanups.push(() => node.stop());
    const file = join(dir, 'daemon-web.yml');
    const plain = (hash: string) => `basic_auth_users:\n  prometheus: ${hash}\n`;
    writeFileSync(file, plain(HASH_OLD));
    const { daemon, logs } = await startTestDaemon({ nodes: [{ url: node.url }], web: { listen_address: '127.0.0.1:0', config_file: file } });
    cleanups.push(() => daemon.stop());
    const metric = async (password: string) => {
      const res = await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` } });
      return res.status === 200 ? valueOf(await res.text(), 'avax_exporter_web_config_last_reload_successful') : undefined;
    };
    expect(await metric('old-pw')).toBe(1);
    await sleep(1_100);
    writeFileSync(file, `tls_server_config:\n  cert_file: ${join(dir, 'server.crt')}\n  key_file: ${join(dir, 'server.key')}\n${plain(HASH_OLD)}`);
    await sleep(1_100);
    await eventually(async () => (await metric('old-pw')) === 0, 5_000);
    expect(logs.withMsg('web config reload failed, the previous one is kept').at(-1)?.['err']).toMatch(/turning TLS on needs a restart/);
    await sleep(1_100);
    writeFileSync(file, plain(HASH_NEW));
    await sleep(1_100);
    await eventually(async () => (await metric('new-pw')) === 1, 5_000);
    expect(await metric('old-pw')).toBeUndefined();
  }, 30_000);
});

describe('web config validation at load', () => {
  const problemsOf = (yaml: string): string[] => {
    const file = join(dir, `check-${Math.random().toString(36).slice(2)}.yml`);
    writeFileSync(file, yaml);
    try {
      loadWebConfig(file);
    } catch (err) {
      expect(err).toBeInstanceOf(WebConfigError);
      return (err as WebConfigError).problems;
    }
    return [];
  };

  it('a garbage or mismatched certificate/key, a CRLF in a header value, min_version above max_version and an empty file are each refused with the path', () => {
    expect(problemsOf('tls_server_config:\n  cert_file: garbage.crt\n  key_file: server.key\n').join('\n')).toContain(join(dir, 'garbage.crt'));
    expect(problemsOf('tls_server_config:\n  cert_file: other.crt\n  key_file: server.key\n').join('\n')).toMatch(
      new RegExp(`${join(dir, 'other.crt')}.*${join(dir, 'server.key')}`),
    );
    expect(problemsOf('http_server_config:\n  headers:\n    X-Test: "a\\r\\nSet-Cookie: x=1"\n')).toEqual([
      'http_server_config.headers.X-Test: must not contain CR, LF or other control characters',
    ]);
    expect(problemsOf('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n  max_version: TLS12\n')).toEqual([
      'tls_server_config.min_version: TLS13 is above max_version TLS12',
    ]);
    expect(problemsOf('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  max_version: TLS11\n')).toEqual([
      'tls_server_config.min_version: TLS12 (the default) is above max_version TLS11',
    ]);
    expect(problemsOf('')[0]).toMatch(/is empty/);
    expect(problemsOf('{}\n')).toEqual([]);
    expect(problemsOf('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS12\n  max_version: TLS13\n')).toEqual([]);
  });

  it('--config.check and start-up exit 2 naming the file for a garbage certificate (no stack trace)', () => {
    const web = join(dir, 'garbage-web.yml');
    writeFileSync(web, 'tls_server_config:\n  cert_file: garbage.crt\n  key_file: server.key\n');
    for (const extra of [['--config.check'], []]) {
      const run = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli.ts',
          `--web.config.file=${web}`,
          '--web.listen-address=127.0.0.1:0',
          '--node.url=http://127.0.0.1:1',
          '--data-api.enabled=false',
          ...extra,
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(join(dir, 'garbage.crt'));
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('web config files written in steps, special or huge (issue 23, point 5)', () => {
  /** Plain HTTP GET /metrics with optional credentials: the status and the time it took. */
  const plainGet = async (port: number, password?: string): Promise<{ status: number; ms: number }> => {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: password ? { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` } : {},
      signal: AbortSignal.timeout(5_000),
    }).catch(() => undefined);
    return { status: res?.status ?? 0, ms: performance.now() - t0 };
  };
  const PLAIN_AUTH = (hash: string) => `http_server_config:\n  headers:\n    X-Frame-Options: deny\nbasic_auth_users:\n  prometheus: ${hash}\n`;

  it('a file written in two steps 2.5 s apart never turns auth off in the gap; the whole file is applied once it settles', async () => {
    const file = join(dir, 'steps-web.yml');
    writeFileSync(file, PLAIN_AUTH(HASH_OLD));
    const errors: string[] = [];
    const reloads: boolean[] = [];
    const port = await start({ webConfigFile: file, onWebConfigError: (e) => errors.push(e.message), onWebConfigReload: (ok) => reloads.push(ok) });
    const anonymous: number[] = [];
    let asking = true;
    const asker = (async () => {
      while (asking) {
        anonymous.push((await plainGet(port)).status);
        await sleep(20);
      }
    })();
    cleanups.push(async () => {
      asking = false;
      await asker;
    });
    // Step one: a valid prefix, without its users section yet.
    const whole = PLAIN_AUTH(HASH_NEW);
    writeFileSync(file, whole.slice(0, whole.indexOf('basic_auth_users')));
    await sleep(2_500);
    // Step two: the rest.
    writeFileSync(file, whole);
    await waitFor(() => reloads.includes(true), 5_000);
    asking = false;
    await asker;
    expect(errors.some((e) => /turning basic auth off .*needs a restart/.test(e))).toBe(true);
    expect(reloads.at(-1)).toBe(true);
    expect((await plainGet(port, 'new-pw')).status).toBe(200);
    expect(anonymous.length).toBeGreaterThan(20);
    expect(anonymous.filter((x) => x !== 401)).toEqual([]);
  }, 20_000);

  it('a file that keeps changing is not read until two looks half a second apart agree', async () => {
    const file = join(dir, 'churn-web.yml');
    writeFileSync(file, PLAIN_AUTH(HASH_OLD));
    const reloads: boolean[] = [];
    const port = await start({ webConfigFile: file, onWebConfigReload: (ok) => reloads.push(ok) });
    // Rewritten every 150 ms for 2.5 s, each time a valid config with the new password: nothing is applied meanwhile.
    const t0 = Date.now();
    for (let i = 0; Date.now() - t0 < 2_500; i++) {
      writeFileSync(file, `${PLAIN_AUTH(HASH_NEW)}# write ${i}\n`);
      await sleep(150);
    }
    expect(reloads).toEqual([]);
    expect((await plainGet(port, 'old-pw')).status).toBe(200);
    // Settled: applied.
    await waitFor(() => reloads.length > 0, 5_000);
    expect(reloads).toEqual([true]);
    expect((await plainGet(port, 'new-pw')).status).toBe(200);
  }, 20_000);

  it('a symlink to /dev/zero, a FIFO and a 2 MiB file are refused without reading them, and requests are answered at once meanwhile', async () => {
    const file = join(dir, 'special-web.yml');
    writeFileSync(file, PLAIN_AUTH(HASH_OLD));
    const errors: string[] = [];
    const reloads: boolean[] = [];
    const port = await start({ webConfigFile: file, onWebConfigError: (e) => errors.push(e.message), onWebConfigReload: (ok) => reloads.push(ok) });
    const cases: [string, () => void, RegExp][] = [
      ['symlink to /dev/zero', () => symlinkSync('/dev/zero', file), /not a regular file/],
      ['FIFO', () => execFileSync('mkfifo', [file]), /not a regular file/],
      ['2 MiB file', () => writeFileSync(file, `${PLAIN_AUTH(HASH_OLD)}${'#'.repeat(2 * 1024 * 1024)}\n`), /larger than 1048576 bytes/],
    ];
    for (const [what, make, why] of cases) {
      rmSync(file);
      make();
      const before = reloads.length;
      const slowest = { ms: 0 };
      // Ask all along while the change is looked at.
      const t0 = Date.now();
      while (reloads.length === before && Date.now() - t0 < 5_000) {
        const r = await plainGet(port, 'old-pw');
        expect(r.status, what).toBe(200);
        slowest.ms = Math.max(slowest.ms, r.ms);
        await sleep(50);
      }
      expect(reloads.at(-1), what).toBe(false);
      expect(errors.at(-1), what).toMatch(why);
      expect(slowest.ms, what).toBeLessThan(1_000);
      // Refused the same way at start-up.
      expect(() => loadWebConfig(file), what).toThrow(why);
    }
  }, 30_000);
});

describe('basic auth under a flood', () => {
  it('wrong passwords beyond a small bcrypt pool get 429 at once; a verified scraper is answered from the cache meanwhile', async () => {
    const file = join(dir, 'flood-web.yml');
    writeFileSync(file, `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret', 10)}\n`);
    const port = await start({ webConfigFile: file });
    const basic = (s: string) => ({ authorization: `Basic ${Buffer.from(s).toString('base64')}` });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: basic('prometheus:s3cret') })).status).toBe(200);
    // 80 connections opened first, then every request written at once: they reach the server together.
    const conns = await Promise.all(
      Array.from(
        { length: 80 },
        () =>
          new Promise<Socket>((resolve) => {
            const c = connect(port, '127.0.0.1', () => resolve(c));
            c.on('error', () => undefined);
          }),
      ),
    );
    cleanups.push(() => conns.forEach((c) => c.destroy()));
    await sleep(100); // accepted by the server
    const flood = conns.map(
      (c, i) =>
        new Promise<number>((resolve) => {
          let head = '';
          c.on('data', (d: Buffer) => {
            head += d.toString();
            const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
            if (m) resolve(Number(m[1]));
          });
          c.on('close', () => resolve(0));
          c.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(`prometheus:guess-${i}`).authorization}\r\nConnection: close\r\n\r\n`);
        }),
    );
    await sleep(5);
    const statuses = await Promise.all(flood);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // One address, one comparison queued at a time (and at most ten in all): the rest were turned away without a comparison.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(80 - 10 - 10);
  });

  it("an unknown user is compared against a hash of the configured users' cost (12 here), not a cheaper one", () => {
    const auth = new BasicAuth({ alice: '$2b$12$KIXQJ2Wl1pW0y5i6c4dZyeB9o5m1j1j6nH7m6e3QyYl1C2w3n0vIe' });
    expect(bcrypt.getRounds(auth.dummyHash)).toBe(12);
    expect(bcrypt.getRounds(new BasicAuth({ bob: bcrypt.hashSync('x', 4) }).dummyHash)).toBe(4);
  });
});
