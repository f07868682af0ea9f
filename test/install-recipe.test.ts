/**
 * docs/install.md, run as written. Its commands are read from the page itself (the fenced block after
 * each `<!-- recipe: NAME -->` marker), so the page and this test cannot drift, and run one by one in
 * scratch folders, with only these stand-ins for what a test cannot do:
 *
 * - the checkout is a copy of this one (tracked and new files) whose `node_modules` links to the suite's,
 *   which is what `npm ci` installs: `npm ci` itself is not run;
 * - `sudo` is dropped, and the system paths `/usr/local` and `/etc` lie under a scratch root, one per route;
 * - the host gets the files the page says to copy to it, and nothing else: no checkout, no node_modules;
 * - the NodeSource block (network, root) is not run: the Node.js that runs the suite stands in for it;
 * - `systemctl daemon-reload` and `systemctl enable --now avax-exporter` become starting the installed
 *   unit's ExecStart with its Environment= and EnvironmentFile= (the file the page has the operator edit,
 *   here pointed at a FakeNode), from `/`, with systemd's default PATH under the scratch root.
 *
 * Both routes (the single executable and the npm package, the latter without dev dependencies) then serve
 * the node's metrics and stop on SIGTERM. `systemd-analyze verify` checks the unit where the tool exists.
 * Any command the page holds that is not one of these fails the test: a new step needs a stand-in here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { ROOT } from './helpers/promql-contract.js';
import { manifest } from './helpers/shipped.js';

const version = (manifest as { version: string }).version;
const DOC = readFileSync(join(ROOT, 'docs/install.md'), 'utf8');

/** The commands of the block after `<!-- recipe: name -->`, without comments and blank lines. */
function recipe(name: string): string[] {
  const block = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(DOC)?.[1];
  if (block === undefined) throw new Error(`docs/install.md has no recipe block "${name}"`);
  return block
    .split('\n')
    .map((l) => l.replace(/(^|\s+)#.*$/, '').trim())
    .filter(Boolean);
}

/** Every recipe block of the page (a block this test does not know fails it). */
const BLOCKS = [...DOC.matchAll(/<!-- recipe: ([\w-]+) -->/g)].map((m) => m[1]);

/** A user's shell: no npm lifecycle variables from the `npm test` that runs us, no exporter settings. */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|AVAX_EXPORTER_)/i.test(k)));
const nodeDir = dirname(process.execPath);

let tmp = '';
let checkout = '';
/** Holds `npm` running npm's CLI on the suite's Node when `npm test` started us (so Node 24's run packs with Node 24). */
let tools = '';
const started: { kill(sig: NodeJS.Signals): boolean; exitCode: number | null }[] = [];

/** Moves `/usr/local` and `/etc` paths under `root`. */
function underRoot(cmd: string, root: string): string {
  return cmd.replace(/(^|[\s=])\/(usr\/local|etc)(?=\/|\s|$)/g, `$1${root}/$2`);
}

/**
 * Runs one recipe block, command by command, in `cwd` with the stand-ins of this file's header; returns the
 * output of each command and the systemctl commands it was asked to run.
 */
function runBlock(name: string, cwd: string, root: string, path: string[]): { outputs: string[]; systemctl: string[] } {
  const outputs: string[] = [];
  const systemctl: string[] = [];
  for (const raw of recipe(name)) {
    if (raw === 'npm ci') continue;
    const cmd = underRoot(raw.replace(/^sudo\s+/, ''), root);
    const program = cmd.split(/\s+/)[0] ?? '';
    if (program === 'systemctl') {
      systemctl.push(raw.replace(/^sudo\s+/, ''));
      continue;
    }
    expect(['npm', 'install', 'cp', 'chmod', 'avax-exporter'], `${name}: a command this test has no stand-in for: ${raw}`).toContain(program);
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', cmd], {
      cwd,
      env: {
        ...userEnv,
        PATH: [...path, '/usr/bin', '/bin'].join(':'),
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
      encoding: 'utf8',
      timeout: 170_000,
    });
    if (r.status !== 0) throw new Error(`${name}: \`${raw}\` failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
    outputs.push(r.stdout);
  }
  return { outputs, systemctl };
}

/** A scratch system root with the folders every Debian host has. */
function systemRoot(name: string): string {
  const root = join(tmp, name);
  for (const d of ['usr/local/bin', 'etc/systemd/system', 'etc/default']) mkdirSync(join(root, d), { recursive: true });
  return root;
}

/** The host folder: the files the page says to copy there, taken from the checkout. */
function host(name: string, artifact: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  copyFileSync(join(checkout, artifact), join(dir, artifact.split('/').pop() as string));
  for (const f of ['avax-exporter.service', 'avax-exporter.env']) copyFileSync(join(checkout, 'examples/systemd', f), join(dir, f));
  return dir;
}

/** KEY=value lines of an environment file (systemd's EnvironmentFile= syntax as the example uses it). */
function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The operator's edit of /etc/default/avax-exporter: the node to watch, a free port, no Data API (no network here). */
function configure(root: string, nodeUrl: string): void {
  const file = join(root, 'etc/default/avax-exporter');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const set: Record<string, string> = {
    AVAX_EXPORTER_NODE_URL: nodeUrl,
    AVAX_EXPORTER_WEB_LISTEN_ADDRESS: '127.0.0.1:0',
    AVAX_EXPORTER_DATA_API_ENABLED: 'false',
  };
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => {
      const k = l.slice(0, l.indexOf('='));
      return k in set ? `${k}=${set[k]}` : l;
    });
  for (const [k, v] of Object.entries(set)) if (!lines.includes(`${k}=${v}`)) lines.push(`${k}=${v}`);
  writeFileSync(file, lines.join('\n'));
}

/** What `systemctl enable --now` starts: the installed unit's ExecStart with its environment, from `/`. */
async function startUnit(root: string, path: string[]): Promise<{ metrics: () => Promise<string>; stop: () => Promise<number | null> }> {
  const unit = readFileSync(join(root, 'etc/systemd/system/avax-exporter.service'), 'utf8');
  const directives = unit.split('\n').map((l) => l.trim());
  const value = (k: string) => directives.filter((l) => l.startsWith(`${k}=`)).map((l) => l.slice(k.length + 1));
  const [exec = ''] = value('ExecStart');
  const env: Record<string, string> = {};
  for (const e of value('Environment')) env[e.slice(0, e.indexOf('='))] = e.slice(e.indexOf('=') + 1);
  // systemd: variables from EnvironmentFile= override Environment=; a leading '-' means "if it exists".
  for (const f of value('EnvironmentFile')) {
    const file = underRoot(f.replace(/^-/, ''), root);
    if (existsSync(file)) Object.assign(env, envFile(readFileSync(file, 'utf8')));
  }
  const [cmd = '', ...args] = underRoot(exec, root).split(/\s+/);
  const child = spawn(cmd, args, { cwd: '/', env: { ...env, PATH: path.join(':') }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const deadline = Date.now() + 20_000;
  let port = '';
  while (!port && Date.now() < deadline && child.exitCode === null) {
    port = /^\{.*"address":"127\.0\.0\.1:(\d+)".*"msg":"listening"\}$/m.exec(out)?.[1] ?? '';
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!port) throw new Error(`${exec} did not start (exit ${child.exitCode}):\n${out}`);
  return {
    metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Scrapes until the node's first round is on /metrics. */
async function scrapeNode(metrics: () => Promise<string>): Promise<string> {
  let body = '';
  for (let i = 0; i < 100 && !/^avax_node_healthy\{[^}]*\} 1$/m.test(body); i++) {
    body = await metrics();
    await new Promise((r) => setTimeout(r, 100));
  }
  return body;
}

let node: FakeNode;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'avax-exporter-install-'));
  checkout = join(tmp, 'checkout');
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .stdout.split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
  expect(files).toContain('package.json');
  for (const f of files) cpSync(join(ROOT, f), join(checkout, f), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  tools = join(tmp, 'tools');
  mkdirSync(tools);
  const cli = process.env['npm_execpath'];
  if (cli && /npm-cli\.js$/.test(cli)) writeFileSync(join(tools, 'npm'), `#!/bin/sh\nexec '${process.execPath}' '${cli}' "$@"\n`, { mode: 0o755 });
  node = await FakeNode.start();
}, 60_000);

afterAll(async () => {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  await node?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('docs/install.md, run as written', () => {
  it('holds the blocks this test runs, and NodeSource gives a Node.js the exporter runs on', () => {
    expect(BLOCKS.sort()).toEqual(['build-binary', 'build-package', 'install-binary', 'install-package', 'node', 'service-files', 'service-start']);
    const major = Number(/setup_(\d+)\.x/.exec(recipe('node').join('\n'))?.[1]);
    expect(major).toBeGreaterThanOrEqual(22);
    expect(recipe('service-start')).toEqual(['sudo systemctl daemon-reload', 'sudo systemctl enable --now avax-exporter']);
  });

  it('the single executable: built, installed on a host with no node_modules and no node on the PATH, started by the unit', async () => {
    runBlock('build-binary', checkout, tmp, [tools, nodeDir]);
    const root = systemRoot('root-binary');
    const dir = host('host-binary', `build/avax-exporter-${version}-linux-x64`);
    const emptyDir = join(tmp, 'no-node');
    mkdirSync(emptyDir);
    // The install step runs `install` and `cp` (coreutils in /usr/bin); the service's own PATH has no node.
    const installed = runBlock('install-binary', dir, root, [join(root, 'usr/local/bin')]);
    expect(installed.outputs.at(-1)).toBe(`avax-exporter ${version}\n`);
    const service = runBlock('service-files', dir, root, []);
    expect(service.systemctl).toEqual([]);
    configure(root, node.url);
    const unit = await startUnit(root, [join(root, 'usr/local/bin'), emptyDir]);
    const body = await scrapeNode(unit.metrics);
    expect(body).toMatch(/^avax_node_healthy\{[^}]*\} 1$/m);
    expect(body).toMatch(new RegExp(`^avax_exporter_build_info\\{[^}]*version="${version.replace(/\./g, '\\.')}"`, 'm'));
    expect(await unit.stop()).toBe(0);

    // systemd's own check of the installed unit (ExecStart must exist, so it names the scratch copy).
    if (existsSync('/usr/bin/systemd-analyze')) {
      const verify = join(tmp, 'verify');
      mkdirSync(verify);
      const text = readFileSync(join(root, 'etc/systemd/system/avax-exporter.service'), 'utf8').replace(
        /^ExecStart=(\S+)/m,
        (_, p: string) => `ExecStart=${underRoot(p, root)}`,
      );
      writeFileSync(join(verify, 'avax-exporter.service'), text);
      const r = spawnSync('systemd-analyze', ['verify', join(verify, 'avax-exporter.service')], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
  }, 120_000);

  it('the npm package: packed, installed with production dependencies only, started by the unit', async () => {
    runBlock('build-package', checkout, tmp, [tools, nodeDir]);
    const root = systemRoot('root-package');
    const dir = host('host-package', `avax-exporter-${version}.tgz`);
    const installed = runBlock('install-package', dir, root, [join(root, 'usr/local/bin'), tools, nodeDir]);
    expect(installed.outputs.at(-1)).toBe(`avax-exporter ${version}\n`);
    const pkgDir = join(root, 'usr/local/lib/node_modules/avax-exporter');
    for (const dev of Object.keys(manifest.devDependencies ?? {})) expect(existsSync(join(pkgDir, 'node_modules', dev)), `dev dependency ${dev}`).toBe(false);
    runBlock('service-files', dir, root, []);
    configure(root, node.url);
    // systemd's default PATH, with the installed Node.js (the suite's) where NodeSource puts it.
    const unit = await startUnit(root, [join(root, 'usr/local/bin'), nodeDir]);
    expect(await scrapeNode(unit.metrics)).toMatch(/^avax_node_healthy\{[^}]*\} 1$/m);
    expect(await unit.stop()).toBe(0);
  }, 200_000);
});
