/**
 * State-changing routes and configuration files (issue 23, points 7 and 8;
 * issue 26, point 5): `POST /-/reload` refuses a foreign Origin and the body
 * types an HTML form sends, and answers 403 with a sentence when lifecycle
 * endpoints are off; an emptied main config is refused on reload with the
 * running one kept; the web config takes exporter-toolkit's TLS keys with
 * the semantics Node's TLS gives them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startDaemon } from '../../src/daemon.js';
import { FakeNode } from '../fakes/fake-node.js';
import { createLogger } from '../../src/log.js';
import { loadWebConfig, WebConfigError } from '../../src/server/web-config.js';
import { LogCapture, scrape, valueOf, waitUntilAllUp } from '../helpers/daemon.js';
import { closeServers, selfSignedCert, startStaticServer } from '../helpers/tls.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avax-exporter-lifecycle-'));
  selfSignedCert(dir, 'server');
});

const servers: Server[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await closeServers(servers);
});

describe('POST /-/reload from a web page', () => {
  it('refuses a foreign Origin, a cross-site fetch and form body types (403, nothing reloaded); accepts curl -X POST, JSON and its own origin', async () => {
    let reloads = 0;
    const { port } = await startStaticServer(servers, { reload: () => Promise.resolve({ ok: true, message: `reloaded ${++reloads}` }) });
    const url = `http://127.0.0.1:${port}/-/reload`;
    const post = (headers: Record<string, string>, body?: string) => fetch(url, { method: 'POST', headers, ...(body !== undefined ? { body } : {}) });

    const refused: [string, Record<string, string>, string | undefined, RegExp][] = [
      ['foreign Origin', { origin: 'https://evil.example' }, undefined, /another origin \(https:\/\/evil\.example\)/],
      ['opaque Origin', { origin: 'null' }, undefined, /another origin/],
      ['cross-site fetch', { 'sec-fetch-site': 'cross-site' }, undefined, /cross-site/],
      ['form post', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', /HTML form/],
      ['multipart form', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--\r\n', /HTML form/],
      ['text/plain form', { 'content-type': 'text/plain;charset=UTF-8' }, 'a=1', /HTML form/],
    ];
    for (const [what, headers, body, why] of refused) {
      const res = await post(headers, body);
      expect(res.status, what).toBe(403);
      expect(await res.text(), what).toMatch(why);
    }
    expect(reloads).toBe(0);

    // What operators send: curl -X POST (no body), a JSON body, or the page of the exporter itself.
    expect((await post({})).status).toBe(200);
    expect((await post({ 'content-type': 'application/json' }, '{}')).status).toBe(200);
    expect((await post({ origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect(reloads).toBe(3);
  });

  it('without --web.enable-lifecycle answers 403 with a sentence, as Prometheus does', async () => {
    const { port } = await startStaticServer(servers, {});
    const res = await fetch(`http://127.0.0.1:${port}/-/reload`, { method: 'POST' });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('Lifecycle API is not enabled (start the exporter with --web.enable-lifecycle).\n');
  });
});

describe('an emptied main configuration file on reload', () => {
  it('is refused: the configured node keeps being polled (not 127.0.0.1:9650), a log line says why, config_last_reload_successful is 0', async () => {
    const node = await FakeNode.start();
    cleanups.push(() => node.stop());
    const file = join(dir, 'config.yml');
    writeFileSync(
      file,
      `nodes:\n  - name: real\n    url: ${node.url}\nweb:\n  listen_address: 127.0.0.1:0\n  enable_lifecycle: true\npoll:\n  interval: 500ms\n  timeout: 400ms\ndata_api:\n  enabled: false\n`,
    );
    const argv = ['--config.file', file];
    const logs = new LogCapture();
    const daemon = await startDaemon(loadConfig(argv, {}).config, {
      logger: createLogger({ level: 'debug', format: 'json', destination: logs }),
      jitter: 0,
      reloadConfig: () => loadConfig(argv, {}).config,
    });
    cleanups.push(() => daemon.stop());
    await waitUntilAllUp(daemon);

    for (const empty of ['', '\n', '# everything commented out\n']) {
      writeFileSync(file, empty);
      const res = await fetch(`${daemon.url}/-/reload`, { method: 'POST' });
      expect(res.status, JSON.stringify(empty)).toBe(500);
      expect(await res.text()).toMatch(/configuration reload failed, the running configuration is kept: [\s\S]*config\.file: .*config\.yml is empty/);
    }
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_exporter_config_last_reload_successful')).toBe(0);
    expect(valueOf(text, 'avax_source_up', { node: 'real', source: 'info' })).toBe(1);
    expect(text).not.toContain('127.0.0.1:9650');
    expect(logs.raw.some((l) => l.includes('is empty') && l.includes('configuration reload failed'))).toBe(true);
  }, 20_000);

  it('is refused at start-up too, naming the file', () => {
    const file = join(dir, 'empty.yml');
    writeFileSync(file, '');
    expect(() => loadConfig(['--config.file', file], {})).toThrow(/config\.file: .*empty\.yml is empty \(write \{\} for a configuration of defaults/);
  });
});

describe("exporter-toolkit's TLS keys", () => {
  const TLS = 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n';
  const write = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, body);
    return file;
  };

  /** A TLS 1.2 handshake offering only `ciphers`: the suite chosen, or the error. */
  const handshake = (port: number, opts: { ciphers?: string; ecdhCurve?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }) =>
    new Promise<{ cipher?: string; error?: string }>((resolve) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: '/-/healthy', ca: readFileSync(join(dir, 'server.crt')), agent: false, maxVersion: 'TLSv1.2', ...opts },
        (res) => {
          const cipher = (res.socket as import('node:tls').TLSSocket).getCipher().standardName;
          res.resume();
          res.on('end', () => resolve({ cipher }));
        },
      );
      req.on('error', (e) => resolve({ error: e.message }));
      req.end();
    });

  it('cipher_suites, curve_preferences, prefer_server_cipher_suites and http2 are accepted and honoured where Node can', async () => {
    const file = write(
      'toolkit-web.yml',
      `${TLS}  min_version: TLS12\n  max_version: TLS13\n  cipher_suites:\n    - TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384\n  curve_preferences: [CurveP256, X25519]\n  prefer_server_cipher_suites: true\nhttp_server_config:\n  http2: true\n`,
    );
    const cfg = loadWebConfig(file);
    expect(cfg.tls).toMatchObject({
      ciphers: expect.stringContaining('ECDHE-ECDSA-AES256-GCM-SHA384') as unknown,
      ecdhCurve: 'P-256:X25519',
      honorCipherOrder: true,
    });
    const { port } = await startStaticServer(servers, { webConfigFile: file });
    // TLS 1.2: only the listed suite is negotiated; a client offering only another one is refused.
    expect(await handshake(port, { ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384' })).toEqual({
      cipher: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
    });
    expect((await handshake(port, { ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).error).toBeDefined();
    // Curves: P-384 alone is not among the preferences.
    expect((await handshake(port, { ecdhCurve: 'P-384' })).error).toBeDefined();
    expect((await handshake(port, { ecdhCurve: 'P-256' })).cipher).toBe('TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384');
    // TLS 1.3 suites stay on, as in Go.
    expect((await handshake(port, { maxVersion: 'TLSv1.3' })).cipher).toMatch(/^TLS_AES_|^TLS_CHACHA20/);
    // http2: false is accepted as well.
    expect(() => loadWebConfig(write('h2-off.yml', `${TLS}http_server_config:\n  http2: false\n`))).not.toThrow();
  });

  it('refuses with a clear message only what Node cannot honour, or what is unknown', () => {
    const problems = (body: string): string[] => {
      try {
        loadWebConfig(write('bad-toolkit.yml', body));
      } catch (err) {
        if (err instanceof WebConfigError) return err.problems;
        throw err;
      }
      return [];
    };
    expect(problems(`${TLS}  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n`)).toEqual([
      "tls_server_config.cipher_suites[0]: TLS_RSA_WITH_RC4_128_SHA is not available in Node's TLS (OpenSSL 3 has no RC4 or 3DES); remove it",
    ]);
    expect(problems(`${TLS}  cipher_suites: [TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA]\n`)[0]).toMatch(/not available in Node's TLS/);
    expect(problems(`${TLS}  cipher_suites: [TLS_MADE_UP]\n`)[0]).toMatch(
      /^tls_server_config\.cipher_suites\[0\]: unknown cipher suite "TLS_MADE_UP" \(expected one of TLS_RSA_WITH_AES_128_CBC_SHA, /,
    );
    expect(problems(`${TLS}  curve_preferences: [CurveP999]\n`)[0]).toMatch(
      /unknown curve "CurveP999" \(expected one of CurveP256, CurveP384, CurveP521, X25519/,
    );
    expect(problems(`${TLS}  prefer_server_cipher_suites: maybe\n`)[0]).toMatch(/^tls_server_config\.prefer_server_cipher_suites: /);
  });
});
