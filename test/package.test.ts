/**
 * The npm package as a user gets it: `npm pack` (which builds first), then the tarball installed
 * into a temporary prefix with production dependencies only (`npm install -g --omit=dev`, from
 * the npm registry or npm's cache), and its `avax-exporter` binary run from there: --version,
 * --help and --config.check. The tarball carries the compiled daemon and nothing of the
 * developer tools (benchmark, soak, doc generator), tests, sources or source maps.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/promql-contract.js';
import { manifest, filesUnder, identifiersOf, shippedIdentifiers, testFakeNames, unshippableImports } from './helpers/shipped.js';

const pkg = manifest as typeof manifest & { name: string; version: string; bin: Record<string, string> };

/** A user's shell: no npm lifecycle variables from the `npm test` that runs us, no exporter settings. */
const userEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|AVAX_EXPORTER_)/i.test(k))),
  // The installed binary's `#!/usr/bin/env node` finds the Node that runs this suite (20 or 24).
  PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter),
};

/** npm, run by the Node that runs the suite (npm_execpath when `npm test` started us). */
function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const cli = process.env['npm_execpath'];
  const [cmd, pre] = cli && /npm-cli\.js$/.test(cli) ? [process.execPath, [cli]] : ['npm', []];
  return spawnSync(cmd, [...pre, ...args], { cwd, env: userEnv, encoding: 'utf8', timeout: 150_000 });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}): ${r.error?.message ?? ''}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

let tmp = '';
let packed: { filename: string; files: { path: string }[] } = { filename: '', files: [] };
let prefix = '';
/** Where npm put the installed package (`<prefix>/lib/node_modules/avax-exporter`). */
let installed = '';

function exporter(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(join(prefix, 'bin', 'avax-exporter'), args, { cwd: tmp, env: { ...userEnv, ...env }, encoding: 'utf8', timeout: 20_000 });
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'avax-exporter-pack-'));
  // prepack cleans dist/ and compiles it, so the tarball never carries a stale or missing build.
  const out = ok(npm(['pack', '--json', '--pack-destination', tmp], ROOT), 'npm pack');
  packed = (JSON.parse(out.slice(out.indexOf('['))) as (typeof packed)[])[0] as typeof packed;
  prefix = join(tmp, 'prefix');
  ok(
    npm(['install', '-g', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(tmp, packed.filename)], tmp),
    'npm install of the tarball',
  );
  installed = join(prefix, 'lib', 'node_modules', pkg.name);
}, 170_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('npm package', () => {
  it('ships the compiled daemon and nothing else: no tools, tests, sources or source maps', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', pkg.bin['avax-exporter'], 'dist/daemon.js']));
    expect(files.filter((f) => !/^dist\/.+\.js$/.test(f) && !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(f))).toEqual([]);
    expect(files.filter((f) => /tools|bench|soak|metrics-doc|\.test\.js$|\.map$/.test(f))).toEqual([]);
    // Every shipped module exists in src/ (the build is of src/ only, not leftovers of an older tree).
    for (const f of files.filter((x) => x.startsWith('dist/')))
      expect(existsSync(join(ROOT, f.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))), f).toBe(true);
  });

  it('carries the demo (dist/demo/) and none of the test fakes: no file of test/, no fake-*, none of their names in its code', async () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining(['dist/daemon/demo-start.js', 'dist/demo/fleet.js', 'dist/demo/node-server.js', 'dist/demo/data-api-server.js']),
    );
    expect(files.filter((f) => /(^|\/)(test|fakes?)\//.test(f) || /(^|\/)fake-[^/]*$/.test(f))).toEqual([]);
    // The call log, the fault injection and the test-only modes, by the names test/fakes/ gives them.
    const names = await testFakeNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'FakeNode',
        'FakeDataApi',
        'setFault',
        'clearCalls',
        'callsTo',
        'findFault',
        'deliverSlowly',
        'peekRpc',
        'withRealServiceQuirks',
      ]),
    );
    expect(names).toEqual(expect.arrayContaining(['failedChainStart', 'restartedAfterOutage', 'processingMode', 'networkActivityMode', 'fixtureValidatorFor']));
    // The check sees them where they are (the fake's own source)...
    const fakeNode = identifiersOf(readFileSync(join(ROOT, 'test', 'fakes', 'fake-node.ts'), 'utf8'), 'fake-node.ts');
    expect(names.filter((n) => fakeNode.has(n))).toEqual(expect.arrayContaining(['FakeNode', 'setFault', 'clearCalls', 'findFault', 'peekRpc']));
    // ...and in no module the package ships.
    const shipped = [...shippedIdentifiers(join(installed, 'dist'))];
    expect(shipped.length).toBeGreaterThan(100);
    expect(shipped.flatMap(([file, ids]) => names.filter((n) => ids.has(n)).map((n) => `${file}: ${n}`))).toEqual([]);
  });

  it('carries the Apache-2.0 licence its package.json names, and the changelog', () => {
    expect(manifest).toMatchObject({ license: 'Apache-2.0' });
    const licence = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
    expect(licence).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect(licence).toContain('9. Accepting Warranty or Additional Liability.');
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
    expect(readFileSync(join(installed, 'CHANGELOG.md'), 'utf8')).toBe(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'));
  });

  it('installs with production dependencies only, and imports nothing else', () => {
    expect(filesUnder(join(installed, 'dist'))).toEqual(
      packed.files
        .map((f) => f.path)
        .filter((f) => f.startsWith('dist/'))
        .map((f) => f.slice(5))
        .sort(),
    );
    expect(unshippableImports(join(installed, 'dist'))).toEqual([]);
    const deps = readdirSync(join(installed, 'node_modules'));
    for (const dev of Object.keys(manifest.devDependencies ?? {})) expect(deps, `dev dependency ${dev} installed`).not.toContain(dev.split('/')[0]);
    for (const dep of Object.keys(manifest.dependencies ?? {})) expect(existsSync(join(installed, 'node_modules', dep, 'package.json')), dep).toBe(true);
  });

  it('--version prints the package version, and the build revision when known', () => {
    const r = exporter(['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`avax-exporter ${pkg.version}\n`);
    const withRevision = exporter(['--version'], { AVAX_EXPORTER_REVISION: '4c951da0' });
    expect(withRevision.stdout).toBe(`avax-exporter ${pkg.version} (revision 4c951da0)\n`);
  });

  it('--help lists the flags and exits 0', () => {
    const r = exporter(['--help']);
    expect(r.status).toBe(0);
    for (const flag of ['--node.url', '--config.check', '--config.file', '--demo', '--version', '--help']) expect(r.stdout).toContain(flag);
  });

  it('--config.check validates a configuration from there', () => {
    const good = exporter(['--config.check', '--node.url=http://127.0.0.1:9650', '--data-api.enabled=false']);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    expect(good.stdout).toContain('configuration OK');
    expect(good.stdout).toContain('url: http://127.0.0.1:9650');
    const bad = exporter(['--config.check', '--node.url=ftp://x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--node.url: "ftp://x" must be an http(s) URL');
  });
});
