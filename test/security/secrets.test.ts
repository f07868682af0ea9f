import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeNode } from '../fakes/fake-node.js';
import { FakeDataApi } from '../fakes/fake-data-api.js';
import { eventually, valueOf } from '../helpers/daemon.js';
import { PRODUCT_CATALOG } from '../../src/sources/catalog.js';

const CLI = [process.execPath, '--import', 'tsx', 'src/cli.ts'] as const;
const SECRETS = {
  bearer: 'bearer-SECRET-1111',
  token: 'token-SECRET-2222',
  password: 'pw-SECRET-3333',
  apiKey: 'apikey-SECRET-4444',
};

/**
 * Every method the exporter may call on a node: the ones its node sources
 * declare (`rpcMethods`, src/sources/node/source.ts), so a new source adds
 * its own in its folder and nothing here.
 */
const ALLOWED_METHODS = new Set(PRODUCT_CATALOG.node.flatMap((s) => s.rpcMethods ?? []));
/**
 * A read by AvalancheGo's naming: the info API (read-only as a whole), a
 * `get*` or `is*` method of any other API, or an Ethereum `eth_blockNumber`
 * or `eth_get*` call. Writes (`*.issueTx`, `admin.*`, `eth_sendRawTransaction`)
 * match none of these.
 */
const READ_METHOD = /^(info\.[A-Za-z0-9]+|[a-z]+\.(get|is)[A-Z][A-Za-z0-9]*|eth_(blockNumber|get[A-Z][A-Za-z0-9]*))$/;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('secrets and read-only access, through the real CLI', () => {
  it('every JSON-RPC method a node source declares is a read', () => {
    expect(ALLOWED_METHODS.size).toBeGreaterThan(10);
    for (const m of ALLOWED_METHODS) expect(m, m).toMatch(READ_METHOD);
    for (const write of ['platform.issueTx', 'avm.issueTx', 'admin.stopCPUProfiler', 'eth_sendRawTransaction', 'keystore.createUser']) {
      expect(write, write).not.toMatch(READ_METHOD);
    }
  });

  it('no secret appears in logs, --config.check, /metrics, the landing page or /-/status; only read methods are called', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const dataApi = await FakeDataApi.start({ apiKey: SECRETS.apiKey });
    cleanup.push(() => dataApi.stop());
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-secrets-'));
    const file = join(dir, 'config.yml');
    const url = new URL(node.url);
    url.username = 'ops';
    url.password = SECRETS.password;
    writeFileSync(
      file,
      `nodes:
  - name: guarded
    url: ${url.toString()}
    headers:
      Authorization: Bearer ${SECRETS.bearer}
      X-Api-Token: ${SECRETS.token}
      X-Team: visible-team
    secret_headers: [X-Api-Token]
data_api:
  url: ${dataApi.url}
  network: mainnet
  interval: 1s
poll:
  interval: 1s
web:
  listen_address: 127.0.0.1:0
`,
    );
    const env = { ...process.env, AVAX_EXPORTER_DATA_API_KEY: SECRETS.apiKey, AVAX_EXPORTER_LOG_LEVEL: 'debug' };
    const [cmd, ...pre] = CLI;

    const check = spawnSync(cmd, [...pre, `--config.file=${file}`, '--config.check'], { encoding: 'utf8', env });
    expect(check.status).toBe(0);
    expect(check.stdout).toContain('visible-team');

    const child = spawn(cmd, [...pre, `--config.file=${file}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanup.push(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => /"msg":"listening"/.test(out), 20_000);
    const port = /"address":"[^"]*:(\d+)"/.exec(out)?.[1];
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/-/ready`)).status === 200, 20_000);
    // The Data API answered with the key (its fake refuses requests without it)...
    await eventually(
      async () => valueOf(await (await fetch(`${base}/metrics`)).text(), 'avax_source_up', { node: 'data_api', source: 'data_api_blocks' }) === 1,
      20_000,
    );
    // ...and a failing poll gets logged too, error text and all (info.uptime: asked every round, unlike info.peers).
    node.setFault('info.uptime', { kind: 'status', status: 502, body: 'upstream says no' });
    await eventually(() => /"msg":"source down"/.test(out), 20_000);

    const pages = await Promise.all(['/metrics', '/', '/-/status'].map(async (p) => (await fetch(`${base}${p}`)).text()));
    child.kill('SIGTERM');
    await once(child, 'exit');

    const everything = [check.stdout, check.stderr, out, ...pages].join('\n');
    for (const [what, secret] of Object.entries(SECRETS)) expect(everything.includes(secret), what).toBe(false);
    expect(pages[2]).toContain('<secret>'); // /-/status shows that a secret is set, not what it is
    expect(pages[2]).toContain('visible-team');
    expect(pages[1]).toContain('ops:***@'); // the landing page shows the user, not the password

    // The exporter only ever read from the node.
    expect(node.calls.length).toBeGreaterThan(10);
    for (const c of node.calls) {
      if (c.httpMethod === 'GET') expect(c.path).toMatch(/^\/ext\/health(\/readiness|\/liveness)?$/);
      else expect(ALLOWED_METHODS.has(c.rpcMethod ?? ''), c.rpcMethod).toBe(true);
    }
  });
});
