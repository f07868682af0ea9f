/**
 * Upstreams (or proxies) that echo the request in their error bodies: every
 * configured secret sent to them, in every form it travels in, is redacted
 * from the error text before it is stored, so it never reaches the logs,
 * `/-/status` or the status page, even when a snippet cuts it in half.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig, redactUrl } from '../../src/config/load.js';
import { startDaemon, testHandle } from '../../src/daemon.js';
import { makeRedactor, secretsOf } from '../../src/http/redact.js';
import { createLogger } from '../../src/log.js';
import { eventually, LogCapture } from '../helpers/daemon.js';

const S = {
  bearer: 'bearerSECRET0123456789abcdef',
  token: 'tokenSECRET0123456789abcdef',
  password: 'passwordSECRET0123456789',
  userToken: 'usertokenSECRET0123456789',
  cutBearer: 'cutbearerSECRET0123456789abcdef',
  jsonBearer: 'jsonbearerSECRET0123456789',
  apiKey: 'apikeySECRET0123456789abcdef',
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** Every form a secret could be found in: itself, base64 of `user:password` forms, and its first and last 8 characters (a cut snippet). */
function forms(): string[] {
  const out: string[] = [];
  for (const v of Object.values(S)) out.push(v, v.slice(0, 8), v.slice(-8));
  out.push(Buffer.from(`ops:${S.password}`).toString('base64'), Buffer.from(`${S.userToken}:`).toString('base64'));
  return out;
}

describe('secrets echoed by upstream error bodies', () => {
  it('are redacted before the error is stored: logs, /-/status and the status page show <secret>, never the value or a fragment of it', async () => {
    // Echoes, in the first bytes of its error body, what the request carried.
    const echo = http.createServer((req, res) => {
      req.resume();
      const auth = req.headers['authorization'] ?? '';
      const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
      const path = req.url ?? '';
      let body: string;
      let status = 502;
      if (path.startsWith('/cut'))
        body = `${'x'.repeat(140)} ${auth}`; // the 160-byte snippet cuts the token in half
      else if (path.startsWith('/json')) {
        status = 200; // not JSON: the parser's message quotes the start of the body
        body = `${auth} and more`;
      } else if (path.startsWith('/dataapi'))
        body = `you sent ${Object.entries(req.headers)
          .filter(([k]) => /key/i.test(k))
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' ')}`;
      else body = `you sent authorization=${auth} decoded=${decoded} token=${String(req.headers['x-api-token'] ?? '')}`;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => echo.close(() => r())));
    const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    const withCreds = (creds: string, path: string) => base.replace('http://', `http://${creds}@`) + path;
    const config = buildConfig(
      {
        nodes: [
          { name: 'bearer', url: `${base}/bearer`, headers: { Authorization: `Bearer ${S.bearer}`, 'X-Api-Token': S.token }, secret_headers: ['X-Api-Token'] },
          { name: 'basic', url: withCreds(`ops:${S.password}`, '/basic') },
          { name: 'utok', url: withCreds(S.userToken, '/utok') },
          { name: 'cut', url: `${base}/cut`, headers: { Authorization: `Bearer ${S.cutBearer}` } },
          { name: 'json', url: `${base}/json`, headers: { Authorization: `Bearer ${S.jsonBearer}` } },
        ],
        data_api: { url: `${base}/dataapi`, network: 'mainnet', interval: '1s' },
        poll: { interval: '500ms', timeout: '400ms' },
        web: { listen_address: '127.0.0.1:0' },
      },
      { AVAX_EXPORTER_DATA_API_KEY: S.apiKey },
    );
    const logs = new LogCapture();
    const daemon = await startDaemon(config, { logger: createLogger({ level: 'debug', format: 'json', destination: logs }), jitter: 0 });
    cleanups.push(() => daemon.stop());
    const failing = (node: string) =>
      testHandle(daemon)
        .store.all()
        .some((s) => s.node === node && s.lastError !== undefined);
    await eventually(() => ['bearer', 'basic', 'utok', 'cut', 'json', 'data_api'].every(failing), 15_000);
    const messages = testHandle(daemon)
      .store.all()
      .flatMap((s) => (s.lastError ? [`${s.node}: ${s.lastError.message}`] : []));
    const pages = await Promise.all(['/-/status', '/', '/metrics'].map(async (p) => (await fetch(`${daemon.url}${p}`)).text()));
    const everything = [...messages, ...logs.raw, ...pages].join('\n');
    for (const f of forms()) expect(everything.includes(f), `${f}: ${everything.split('\n').find((l) => l.includes(f))}`).toBe(false);
    // The text is still there, with the secrets marked.
    for (const node of ['bearer', 'basic', 'utok', 'cut', 'data_api'])
      expect(
        messages.find((m) => m.startsWith(`${node}:`) && m.includes('<secret>')),
        node,
      ).toBeDefined();
    expect(pages[0]).toContain('<secret>');
    // A user name alone is a token: not shown in URLs either.
    expect(redactUrl(`http://${S.userToken}@host:9650`)).toBe('http://***@host:9650');
    expect(pages[1]).toContain('***@');
  }, 30_000);

  it('a redactor replaces whole secrets, their Basic forms and fragments cut at either edge', () => {
    const redact = makeRedactor(
      secretsOf({
        url: 'http://ops:p%40ssword-123@h',
        headers: { Authorization: 'Bearer tok-0123456789', Cookie: 'a=b' },
        secretHeaders: ['authorization', 'cookie'],
      }),
    );
    expect(redact('HTTP 502 auth=Bearer tok-0123456789 ok')).toBe('HTTP 502 auth=<secret> ok');
    expect(redact(`x ${Buffer.from('ops:p@ssword-123').toString('base64')} y`)).toBe('x <secret> y');
    expect(redact('x p@ssword-123 y p%40ssword-123')).toBe('x <secret> y <secret>');
    expect(redact('cut: Bearer tok-01')).toBe('cut: <secret>');
    expect(redact('"...0123456789" is not valid JSON')).toBe('"...<secret>" is not valid JSON');
    expect(redact('nothing secret here')).toBe('nothing secret here');
  });
});
