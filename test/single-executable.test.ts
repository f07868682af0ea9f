/**
 * The single executable (`npm run build:binary`, test/tools/build-binary.ts) as an operator runs it:
 * built once by this file with the Node that runs the suite (20 here, 24 in CI's second pass), then
 * copied into a scratch folder with no node_modules and run with an environment that has no `node`
 * on its PATH: --version, --help, --config.check on a sample file, and --demo with the pretty log
 * format and basic auth from a web config file (bcryptjs, prom-client, yaml and pino-pretty
 * all inside the bundle), serving /metrics and the status page, then stopping on SIGTERM.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/promql-contract.js';
import { manifest } from './helpers/shipped.js';

const version = (manifest as { version: string }).version;
let tmp = '';
let runDir = '';
let bin = '';
/** An environment without node: PATH names an empty folder, nothing else is inherited. */
let bare: NodeJS.ProcessEnv = {};

function run(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(bin, args, { cwd: runDir, env: { ...bare, ...env }, encoding: 'utf8', timeout: 20_000 });
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'avax-exporter-sea-test-'));
  const built = join(tmp, 'build', 'avax-exporter');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'test/tools/build-binary.ts'), `--out=${built}`], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 150_000,
  });
  if (r.status !== 0) throw new Error(`build:binary failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  runDir = join(tmp, 'host');
  mkdirSync(join(runDir, 'empty-path'), { recursive: true });
  bin = join(runDir, 'avax-exporter');
  copyFileSync(built, bin);
  spawnSync('chmod', ['755', bin]);
  bare = { PATH: join(runDir, 'empty-path'), HOME: runDir };
}, 160_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('single executable', () => {
  it('stands alone: no node_modules or node beside it, only the C and C++ runtime libraries linked', () => {
    expect(readdirSync(runDir).sort()).toEqual(['avax-exporter', 'empty-path']);
    expect(spawnSync('node', ['--version'], { env: bare }).error).toBeDefined();
    if (existsSync('/usr/bin/ldd')) {
      const libs = spawnSync('ldd', [bin], { encoding: 'utf8' })
        .stdout.split('\n')
        .map((l) => l.trim().split(/\s+/)[0] ?? '')
        .filter(Boolean);
      expect(
        libs.filter((l) => !/^(linux-vdso|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64|\/lib64\/ld-linux-x86-64)\.so\b/.test(l)),
      ).toEqual([]);
    }
  });

  it('--version prints the package version (and the revision when set), with no warning', () => {
    const r = run(['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`avax-exporter ${version}\n`);
    expect(run(['--version'], { AVAX_EXPORTER_REVISION: '4c951da0' }).stdout).toBe(`avax-exporter ${version} (revision 4c951da0)\n`);
  });

  it('--help lists the flags', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const flag of ['--node.url', '--config.file', '--config.check', '--demo', '--web.config.file', '--log.format']) expect(r.stdout).toContain(flag);
  });

  it('--config.check reads a sample file and says what is wrong with a bad one', () => {
    writeFileSync(
      join(runDir, 'config.yml'),
      [
        'poll:',
        '  interval: 30s',
        'nodes:',
        '  - name: validator-1',
        '    url: http://10.0.0.1:9650',
        '    watch:',
        '      node_ids: [NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD]',
        '  - name: rpc-1',
        '    url: http://10.0.0.2:9650',
        'data_api:',
        '  enabled: false',
        '',
      ].join('\n'),
    );
    const good = run(['--config.check', '--config.file=config.yml']);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    for (const s of ['validator-1', 'http://10.0.0.1:9650', 'rpc-1', 'NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD', '30s']) expect(good.stdout).toContain(s);

    writeFileSync(join(runDir, 'bad.yml'), 'nodes:\n  - url: ftp://10.0.0.1:9650\n');
    const bad = run(['--config.check', '--config.file=bad.yml']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('nodes[0].url');
  });

  it('answers as the exporter run from its sources does (npm start): --help, --config.check, a bad flag', () => {
    const tsx = join(ROOT, 'node_modules/.bin/tsx');
    for (const args of [['--help'], ['--config.check', '--config.file=config.yml'], ['--config.check', '--no-such-flag=1']]) {
      const fromSources = spawnSync(tsx, [join(ROOT, 'src/cli.ts'), ...args], {
        cwd: runDir,
        env: { ...bare, PATH: dirname(process.execPath) },
        encoding: 'utf8',
        timeout: 30_000,
      });
      const r = run(args);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }, args.join(' ')).toEqual({
        status: fromSources.status,
        stdout: fromSources.stdout,
        stderr: fromSources.stderr,
      });
    }
  });

  describe('--demo with pretty logs and basic auth', () => {
    let child: ChildProcessWithoutNullStreams;
    let out = '';
    let base = '';
    const auth = `Basic ${Buffer.from('prometheus:s3cret').toString('base64')}`;

    beforeAll(async () => {
      writeFileSync(join(runDir, 'web.yml'), `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret', 4)}\n`);
      child = spawn(bin, ['--demo', '--web.listen-address=127.0.0.1:0', '--log.format=pretty', '--web.config.file=web.yml'], { cwd: runDir, env: bare });
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && child.exitCode === null) {
        // pino-pretty's layout: the message line, then the fields indented below it.
        const port = /INFO: listening\n(?: {4}.*\n)*? {4}address: "127\.0\.0\.1:(\d+)"/.exec(out)?.[1];
        if (port) {
          base = `http://127.0.0.1:${port}`;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      if (!base) throw new Error(`the demo did not start:\n${out}`);
    }, 30_000);

    afterAll(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    it('logs in the pretty format', () => {
      expect(out).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] INFO: demo nodes started\n {4}service: "avax-exporter"\n/m);
    });

    it('serves /metrics with the demo node on it, only with the password', async () => {
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      // No Authorization header: 401 without a comparison, so no bcrypt worker yet. The first comparison
      // starts one from the bcryptjs asset the build embeds (src/server/bcrypt-pool.ts): one more thread.
      const threads = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
      const before = threads();
      expect((await fetch(`${base}/metrics`, { headers: { authorization: `Basic ${Buffer.from('prometheus:wrong').toString('base64')}` } })).status).toBe(401);
      expect(threads()).toBeGreaterThan(before);
      let body = '';
      for (let i = 0; i < 100 && !body.includes('avax_node_healthy{'); i++) {
        const r = await fetch(`${base}/metrics`, { headers: { authorization: auth } });
        expect(r.status).toBe(200);
        body = await r.text();
        if (!body.includes('avax_node_healthy{')) await new Promise((res) => setTimeout(res, 100));
      }
      expect(body).toContain('avax_node_healthy{');
      expect(body).toMatch(new RegExp(`^avax_exporter_build_info\\{[^}]*version="${version.replace(/\./g, '\\.')}"[^}]*\\} 1$`, 'm'));
      expect(body).toMatch(/^avax_exporter_build_info\{[^}]*nodejs="v\d+\.\d+\.\d+"/m);
    });

    it('serves the status page', async () => {
      const r = await fetch(`${base}/`, { headers: { authorization: auth } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await r.text();
      expect(html).toContain('<title>avax-exporter</title>');
      expect(html).toContain('demo');
    });

    it('stops on SIGTERM with status 0, and says so in its log', async () => {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toMatch(/\] INFO: shutting down\n {4}service: "avax-exporter"\n {4}signal: "SIGTERM"/);
    });
  });
});
