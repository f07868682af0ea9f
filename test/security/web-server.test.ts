import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../src/server/server.js';
import { WebConfigError, loadWebConfig } from '../../src/server/web-config.js';
import { BasicAuth, DUMMY_HASH } from '../../src/server/basic-auth.js';
import { closeServers, startStaticServer } from '../helpers/tls.js';

let dir = '';

/** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makeCerts(prefix: string): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${prefix}ca.key`,
    '-out',
    `${prefix}ca.crt`,
    '-days',
    '2',
    '-subj',
    '/CN=test-ca',
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const who of ['server', 'client']) {
    run(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${prefix}${who}.key`,
      '-out',
      `${prefix}${who}.csr`,
      '-subj',
      `/CN=${who}`,
    );
    run(
      'x509',
      '-req',
      '-in',
      `${prefix}${who}.csr`,
      '-CA',
      `${prefix}ca.crt`,
      '-CAkey',
      `${prefix}ca.key`,
      '-CAcreateserial',
      '-out',
      `${prefix}${who}.crt`,
      '-days',
      '2',
      ...(who === 'server' ? ['-extfile', 'san.ext'] : []),
    );
  }
}

const servers: Server[] = [];
afterEach(async () => {
  await closeServers(servers);
});

function start(extra: Partial<ServerOptions>): Promise<{ server: Server; port: number }> {
  return startStaticServer(servers, extra);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  fingerprint?: string;
}

function get(port: string | number, opts: { auth?: string; cert?: string; key?: string; path?: string; method?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: opts.path ?? '/metrics',
        method: opts.method ?? 'GET',
        ca: execFileSync('cat', [join(dir, 'ca.crt')]),
        ...(opts.cert ? { cert: execFileSync('cat', [join(dir, opts.cert)]), key: execFileSync('cat', [join(dir, opts.key ?? '')]) } : {}),
        ...(opts.auth ? { auth: opts.auth } : {}),
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            fingerprint: (res.socket as import('node:tls').TLSSocket).getPeerCertificate?.().fingerprint256,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function writeWebConfig(yaml: string): string {
  const file = join(dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, yaml);
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-tls-'));
  makeCerts('');
});

describe('--web.config.file', () => {
  it('TLS with basic auth: right password 200, wrong or missing 401 with WWW-Authenticate, extra headers on every answer', async () => {
    const hash = bcrypt.hashSync('s3cret', 4);
    const file = writeWebConfig(`tls_server_config:
  cert_file: server.crt
  key_file: server.key
http_server_config:
  headers:
    X-Frame-Options: deny
basic_auth_users:
  prometheus: ${hash}
`);
    const { port } = await start({ webConfigFile: file });
    const ok = await get(port, { auth: 'prometheus:s3cret' });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('avax_exporter_ready 1\n');
    expect(ok.headers['x-frame-options']).toBe('deny');
    for (const auth of ['prometheus:wrong', 'nobody:s3cret', undefined]) {
      const denied = await get(port, auth ? { auth } : {});
      expect(denied.status, String(auth)).toBe(401);
      expect(denied.headers['www-authenticate']).toMatch(/^Basic realm="avax-exporter"/);
      expect(denied.body).not.toContain('avax_');
      expect(denied.headers['x-frame-options']).toBe('deny');
    }
  });

  it('mTLS: a client without a certificate is refused when one is required; one signed by the CA is served', async () => {
    const file = writeWebConfig(`tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca.crt
  client_auth_type: RequireAndVerifyClientCert
  min_version: TLS13
`);
    const { port } = await start({ webConfigFile: file });
    await expect(get(port)).rejects.toThrow();
    const ok = await get(port, { cert: 'client.crt', key: 'client.key' });
    expect(ok.status).toBe(200);
  });

  it('re-reads the certificate when it changes (rotation), without a restart', async () => {
    const file = writeWebConfig(`tls_server_config:
  cert_file: rot.crt
  key_file: rot.key
`);
    copyFileSync(join(dir, 'server.crt'), join(dir, 'rot.crt'));
    copyFileSync(join(dir, 'server.key'), join(dir, 'rot.key'));
    const { port } = await start({ webConfigFile: file });
    const first = await get(port);
    // A new certificate for the same name, from the same CA.
    execFileSync(
      'openssl',
      ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'rot2.key', '-out', 'rot2.csr', '-subj', '/CN=server2'],
      { cwd: dir, stdio: 'pipe' },
    );
    execFileSync(
      'openssl',
      ['x509', '-req', '-in', 'rot2.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'rot2.crt', '-days', '2', '-extfile', 'san.ext'],
      { cwd: dir, stdio: 'pipe' },
    );
    await new Promise((r) => setTimeout(r, 1_100));
    copyFileSync(join(dir, 'rot2.key'), join(dir, 'rot.key'));
    copyFileSync(join(dir, 'rot2.crt'), join(dir, 'rot.crt'));
    await new Promise((r) => setTimeout(r, 1_100));
    await get(port); // the request that notices the change installs the new context for the next handshakes
    const after = await get(port);
    expect(after.fingerprint).toBeDefined();
    expect(after.fingerprint).not.toBe(first.fingerprint);
  });

  it('rejects a bad web config with every problem and its path', () => {
    const file = writeWebConfig(`tls_server_config:
  cert_file: missing.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
basic_auth_users:
  alice: plaintext
unknown_section: 1
`);
    let problems: string[] = [];
    try {
      loadWebConfig(file);
    } catch (err) {
      expect(err).toBeInstanceOf(WebConfigError);
      problems = (err as WebConfigError).problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        '(root): unknown key(s): unknown_section',
        'basic_auth_users.alice: must be a bcrypt hash ($2y$10$...)',
        'tls_server_config.client_ca_file: is required with client_auth_type RequireAndVerifyClientCert',
      ]),
    );
  });

  it('an unknown user costs a bcrypt comparison too, so timing does not reveal who exists; no header costs none; a verified password is remembered', async () => {
    const compared: string[] = [];
    const hash = bcrypt.hashSync('pw', 4);
    const auth = new BasicAuth({ alice: hash }, async (password, against) => {
      compared.push(against);
      return bcrypt.compare(password, against);
    });
    const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
    expect(await auth.check(basic('mallory:pw'))).toBe(false);
    expect(await auth.check(undefined)).toBe(false);
    expect(await auth.check(basic('alice:nope'))).toBe(false);
    // Not a well-formed Basic header: denied without a comparison.
    for (const bad of [
      'Bearer x',
      'Basic',
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic  ${Buffer.from('a:b').toString('base64')}`,
    ]) {
      expect(await auth.check(bad), bad).toBe(false);
    }
    // The unknown user ran a comparison (against a dummy hash); the known user against hers; the missing header none.
    expect(compared).toHaveLength(2);
    expect(compared[0]).not.toBe(hash);
    // As costly as the configured users' hashes (cost 4 here), and no password matches it.
    expect(compared[0]).toBe(auth.dummyHash);
    expect(bcrypt.getRounds(compared[0] as string)).toBe(4);
    expect(bcrypt.compareSync('pw', compared[0] as string)).toBe(false);
    expect(bcrypt.getRounds(DUMMY_HASH)).toBe(10);
    expect(compared[1]).toBe(hash);
    expect(await auth.check(basic('alice:pw'))).toBe(true);
    expect(await auth.check(basic('alice:pw'))).toBe(true);
    expect(compared).toHaveLength(3); // the second success came from the cache
  });
});

describe('HTTP hardening', () => {
  it('answers only GET and HEAD; POST /-/reload only when lifecycle endpoints are on', async () => {
    const { port } = await start({});
    const base = `http://127.0.0.1:${port}`;
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${base}/metrics`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
    // Without --web.enable-lifecycle, as Prometheus answers: 403 with a sentence.
    const off = await fetch(`${base}/-/reload`, { method: 'POST' });
    expect(off.status).toBe(403);
    expect(await off.text()).toMatch(/Lifecycle API is not enabled.*--web\.enable-lifecycle/);
    let reloads = 0;
    const { port: p2 } = await start({ reload: () => Promise.resolve({ ok: ++reloads > 0, message: 'reloaded' }) });
    const res = await fetch(`http://127.0.0.1:${p2}/-/reload`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(reloads).toBe(1);
    expect((await fetch(`http://127.0.0.1:${p2}/-/reload`)).status).toBe(405);
  });

  it('slow-loris clients cannot starve scrapes, and are cut off at the header timeout', async () => {
    const { port } = await start({ limits: { headersTimeoutMs: 1_500 } });
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < 200; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      const idx = closed.push(false) - 1;
      s.on('close', () => (closed[idx] = true));
      s.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
      sockets.push(s);
    }
    // Keep trickling one header byte at a time.
    const trickle = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('X');
    }, 100);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('avax_exporter_ready 1\n');
      }
      const deadline = Date.now() + 8_000;
      while (closed.some((c) => !c) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(closed.every(Boolean)).toBe(true);
    } finally {
      clearInterval(trickle);
      for (const s of sockets) s.destroy();
    }
  });
});
