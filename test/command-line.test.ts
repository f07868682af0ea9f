import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { eventually, seriesOf, valueOf } from './helpers/daemon.js';

// The CLI as operators run it, through tsx so the test needs no build step.
import { FIXTURE_IDS } from './fakes/fake-data.js';

const CLI = [process.execPath, '--import', 'tsx', 'src/cli.ts'] as const;
const pkgVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_')));

function run(args: string[]) {
  const [cmd, ...pre] = CLI;
  return spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', env: cleanEnv, timeout: 20_000 });
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts the daemon as a child process (with `nodeArgs` for Node itself) and resolves with its URL once it listens. */
async function startCli(args: string[], nodeArgs: string[] = []) {
  const [cmd, ...pre] = CLI;
  const child = spawn(cmd, [...nodeArgs, ...pre, ...args], { env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await eventually(() => lines.some((l) => l['msg'] === 'listening') || child.exitCode !== null, 20_000);
  const listening = lines.find((l) => l['msg'] === 'listening');
  if (!listening) throw new Error(`daemon did not start: ${stderr}`);
  const port = String(listening['address']).split(':').pop();
  return { child, lines, url: `http://127.0.0.1:${port}`, stderr: () => stderr };
}

describe('command line', () => {
  it('--config.check prints the validated config with secrets redacted and exits 0', () => {
    const r = run(['--config.check', '--node.url=http://ops:hunter2@10.1.2.3:9650', '--poll.interval=30s']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('configuration OK');
    expect(r.stdout).toContain('interval: 30s');
    expect(r.stdout).toContain('name: 10.1.2.3:9650');
    expect(r.stdout).not.toContain('hunter2');
  });

  it('--version prints the package version (and the revision when the build knows it), even beside a broken configuration', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`avax-exporter ${pkgVersion}\n`);
    const [cmd, ...pre] = CLI;
    const built = spawnSync(cmd, [...pre, '--version', '--config.file=/nonexistent.yml'], {
      encoding: 'utf8',
      env: { ...cleanEnv, AVAX_EXPORTER_REVISION: 'abc1234' },
      timeout: 20_000,
    });
    expect(built.status).toBe(0);
    expect(built.stdout).toBe(`avax-exporter ${pkgVersion} (revision abc1234)\n`);
  });

  it('--help lists every flag, --version included, and exits 0', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const flag of ['--node.url', '--config.file', '--config.check', '--demo', '--web.listen-address', '--version', '--help'])
      expect(r.stdout).toContain(flag);
  });

  it('bad input: every problem with its path on stderr, exit status 2', () => {
    const r = run(['--config.check', '--node.url=ftp://x', '--poll.interval=soon', '--watch.node-id=bogus']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--node.url: "ftp://x" must be an http(s) URL');
    expect(r.stderr).toContain('--poll.interval: "soon" must be a duration');
    expect(r.stderr).toContain('--watch.node-id: "bogus" is not a node id: it must start with NodeID-');
    expect(r.stderr).not.toContain('    at '); // no stack trace
    expect(run(['--bogus-flag']).status).toBe(2);
  });

  it('serves a real node, then exits 0 within 5 s of SIGTERM', async () => {
    const node = await FakeNode.start();
    try {
      // The Data API is on by default; a test must not reach the public service.
      const d = await startCli([`--node.url=${node.url}`, '--web.listen-address=127.0.0.1:0', '--poll.interval=1s', '--data-api.enabled=false']);
      await eventually(async () => (await fetch(`${d.url}/-/ready`)).status === 200, 15_000);
      const text = await (await fetch(`${d.url}/metrics`)).text();
      expect(valueOf(text, 'avax_chain_height', { chain: 'P' })).toBe(Number(node.state.heights.P));
      const t0 = Date.now();
      d.child.kill('SIGTERM');
      const [code] = (await once(d.child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(d.lines.some((l) => l['msg'] === 'shutting down' && l['signal'] === 'SIGTERM')).toBe(true);
    } finally {
      await node.stop();
    }
  });

  it('SIGHUP re-reads the config file; a broken file is rejected and the running config kept', async () => {
    const node = await FakeNode.start();
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-hup-'));
    const file = join(dir, 'config.yml');
    const write = (name: string) => writeFileSync(file, `nodes:\n  - name: ${name}\n    url: ${node.url}\ndata_api:\n  enabled: false\n`);
    write('before');
    try {
      const d = await startCli([`--config.file=${file}`, '--web.listen-address=127.0.0.1:0', '--poll.interval=1s']);
      const metrics = async () => (await fetch(`${d.url}/metrics`)).text();
      await eventually(async () => valueOf(await metrics(), 'avax_source_up', { node: 'before', source: 'info' }) === 1, 15_000);
      write('after');
      d.child.kill('SIGHUP');
      await eventually(async () => valueOf(await metrics(), 'avax_source_up', { node: 'after', source: 'info' }) === 1, 15_000);
      writeFileSync(file, 'nodes: [\n');
      d.child.kill('SIGHUP');
      await eventually(async () => valueOf(await metrics(), 'avax_exporter_config_last_reload_successful') === 0, 15_000);
      expect(valueOf(await metrics(), 'avax_source_up', { node: 'after', source: 'info' })).toBe(1);
      expect(d.lines.some((l) => String(l['msg']).includes('not valid YAML'))).toBe(true);
      d.child.kill('SIGTERM');
      const [code] = (await once(d.child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      await node.stop();
    }
  });

  it('runs under V8 --jitless (docs/resource-use.md offers it to a sidecar): the demo node and Data API polled, every source up, gzip served', async () => {
    const d = await startCli(['--demo', '--web.listen-address=127.0.0.1:0', '--poll.interval=1s'], ['--jitless']);
    await eventually(async () => (await fetch(`${d.url}/-/ready`)).status === 200, 20_000);
    // No WebAssembly under --jitless: anything that needed it (Node's fetch does) would keep a source down or end the process.
    let last = '';
    const allUp = (text: string) => {
      const up = seriesOf(text, 'avax_source_up', {});
      return up.length > 5 && up.every((s) => s.value === 1) && (valueOf(text, 'avax_data_api_chain_height', { network: 'mainnet', chain: 'P' }) ?? 0) > 0;
    };
    await eventually(async () => allUp((last = await (await fetch(`${d.url}/metrics`)).text())), 15_000).catch(() => {
      throw new Error(
        `not every source came up under --jitless:\n${seriesOf(last, 'avax_source_up', {})
          .map((s) => `${s.labels['node']} ${s.labels['source']} ${s.value}`)
          .join('\n')}`,
      );
    });
    const res = await fetch(`${d.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(seriesOf(await res.text(), 'avax_source_up', {}).length).toBeGreaterThan(5);
    expect(d.child.exitCode).toBeNull();
    expect(d.stderr()).not.toMatch(/WebAssembly|Error/);
  });

  it('--demo serves lively metrics with no node of your own', async () => {
    const d = await startCli(['--demo', '--web.listen-address=127.0.0.1:0', '--poll.interval=1s']);
    await eventually(async () => (await fetch(`${d.url}/-/ready`)).status === 200, 15_000);
    const first = await (await fetch(`${d.url}/metrics`)).text();
    expect(valueOf(first, 'avax_source_up', { node: 'demo', source: 'info' })).toBe(1);
    const h1 = valueOf(first, 'avax_chain_height', { node: 'demo', chain: 'C' }) ?? 0;
    expect(h1).toBeGreaterThan(0);
    await eventually(
      async () => (valueOf(await (await fetch(`${d.url}/metrics`)).text(), 'avax_chain_height', { node: 'demo', chain: 'C' }) ?? 0) > h1,
      10_000,
      250,
    );
    // The demo starts its own fake Data API too.
    await eventually(
      async () => (valueOf(await (await fetch(`${d.url}/metrics`)).text(), 'avax_data_api_chain_height', { network: 'mainnet', chain: 'P' }) ?? 0) > 0,
      10_000,
      250,
    );
    expect(d.lines.some((l) => l['msg'] === 'demo Data API started')).toBe(true);
    // Proposer activity per chain (P and C; the demo Data API does not serve X) and the stake share it is measured against.
    await eventually(async () => {
      const text = await (await fetch(`${d.url}/metrics`)).text();
      const id = { network: 'mainnet', node_id: FIXTURE_IDS.nodeId };
      return (
        valueOf(text, 'avax_validator_proposed_blocks_total', { ...id, chain: 'C' }) !== undefined &&
        valueOf(text, 'avax_validator_proposed_blocks_total', { ...id, chain: 'X' }) === undefined &&
        (valueOf(text, 'avax_validator_stake_share_ratio', { node: 'demo', node_id: FIXTURE_IDS.nodeId }) ?? 0) > 0
      );
    }, 10_000);
    // Next to it: a partial-sync L1 validator (P-Chain only, every source up) and an auto-renewing validation.
    const text = await (await fetch(`${d.url}/metrics`)).text();
    expect(valueOf(text, 'avax_node_partial_sync', { node: 'demo-l1' })).toBe(1);
    expect(valueOf(text, 'avax_node_partial_sync', { node: 'demo' })).toBe(0);
    for (const s of seriesOf(text, 'avax_source_up', { node: 'demo-l1' })) expect(s.value, s.labels['source']).toBe(1);
    expect(seriesOf(text, 'avax_chain_height', { node: 'demo-l1' }).map((s) => s.labels['chain'])).not.toContain('C');
    expect(
      seriesOf(text, 'avax_validator_renews', { node: 'demo' })
        .map((s) => s.value)
        .sort(),
    ).toEqual([0, 1]);
    expect(seriesOf(text, 'avax_l1_validator_active', { node: 'demo-l1' }).length).toBeGreaterThan(0);
    // The demo L1 validator runs and validates the L1's chain (platform.getBlockchainStatus: Validating).
    const validating = seriesOf(text, 'avax_node_blockchain_status', { node: 'demo-l1', status: 'Validating' });
    expect(validating.length).toBeGreaterThan(0);
    expect(validating.every((s) => s.value === 1)).toBe(true);
    expect(seriesOf(text, 'avax_node_tracks_subnet', { node: 'demo-l1' }).map((s) => s.value)).toEqual([1]);
    // With the outcome of the demo validator's previous (completed, rewarded) validation.
    const denied = seriesOf(text, 'avax_data_api_validator_last_reward_denied', { network: 'mainnet' });
    expect(denied.length).toBeGreaterThan(0);
    expect(denied.every((s) => s.value === 0)).toBe(true);
    expect(seriesOf(text, 'avax_data_api_validator_last_reward_avax', { network: 'mainnet', kind: 'validation' }).some((s) => s.value > 0)).toBe(true);
    // The node's vitals from its health report: the disk shrinking as the chains grow, each chain's consensus.
    const disk0 = valueOf(text, 'avax_node_disk_available_bytes', { node: 'demo' }) ?? 0;
    expect(disk0).toBeGreaterThan(0);
    expect(valueOf(text, 'avax_node_disk_available_ratio', { node: 'demo' })).toBeGreaterThan(0.5);
    expect(seriesOf(text, 'avax_node_chain_processing_blocks', { node: 'demo' }).map((s) => s.labels['chain'])).toEqual(
      expect.arrayContaining(['P', 'X', 'C']),
    );
    expect(valueOf(text, 'avax_node_network_last_message_received_age_seconds', { node: 'demo' })).toBeLessThan(1);
    await eventually(
      async () => (valueOf(await (await fetch(`${d.url}/metrics`)).text(), 'avax_node_disk_available_bytes', { node: 'demo' }) ?? disk0) < disk0,
      10_000,
      250,
    );
    d.child.kill('SIGINT');
    const [code] = (await once(d.child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
