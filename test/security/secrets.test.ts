import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeNode } from '../fakes/fake-node.js';
import { FakeDataApi } from '../fakes/fake-data-api.js';
import { eventually, valueOf } from '../helpers/daemon.js';

const CLI = [process.execPath, '--import', 'tsx', 'src/cli.ts'] as const;
const SECRETS = {
  bearer: 'bearer-SECRET-1111',
  token: 'token-SECRET-2222',
  password: 'pw-SECRET-3333',
  apiKey: 'apikey-SECRET-4444',
};

/** Every method the exporter may call on a node: reads only. */
const ALLOWED_METHODS = new Set([
  'info.getNodeID',
  'info.getNodeVersion',
  'info.getNetworkID',
  'info.getNetworkName',
  'info.getNodeIP',
  'info.upgrades',
  'info.isBootstrapped',
  'info.peers',
  'info.uptime',
  'platform.getCurrentValidators',
  'platform.getHeight',
  'avm.getHeight',
  'eth_blockNumber',
]);

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('secrets and read-only access, through the real CLI', () => {
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
    // ...and a failing poll gets logged too, error text and all.
    node.setFault('info.peers', { kind: 'status', status: 502, body: 'upstream says no' });
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
