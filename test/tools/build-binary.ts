/**
 * `npm run build:binary [-- --out=<file>]`: the exporter as one executable for linux-x64 that needs no
 * Node.js on the host (a Node single executable application, https://nodejs.org/api/single-executable-applications.html).
 *
 * 1. esbuild bundles src/cli.ts and every production dependency into one CommonJS script (a SEA's main
 *    script must be CommonJS, and its `require` reaches only Node's built-in modules).
 * 2. `node --experimental-sea-config` turns the script into a preparation blob (with V8's code cache,
 *    which saves the start-up compile).
 * 3. The running `node` binary is copied and the blob injected into the copy with postject, which also
 *    flips the binary's SEA fuse.
 *
 * The result is the Node that runs this script plus the exporter: build with an official Node build
 * (nodejs.org, `npx -p node@24`), which needs only glibc and libstdc++, not with a distribution's
 * `node` that links a shared libnode. Default output: build/avax-exporter-<version>-linux-x64.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SEA_BCRYPT_ASSET } from '../../src/server/bcrypt-pool.js';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The fuse postject flips in the copied node binary so that it runs the injected blob (Node's documented sentinel). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function fail(message: string): never {
  process.stderr.write(`build:binary: ${message}\n`);
  process.exit(1);
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) fail(`${what} failed (${r.status ?? r.signal}): ${r.error?.message ?? ''}\n${r.stdout}\n${r.stderr}`);
}

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const outArg = process.argv.slice(2).find((a) => a.startsWith('--out='));
const out = resolve(outArg ? outArg.slice('--out='.length) : join(ROOT, 'build', `avax-exporter-${version}-linux-x64`));

if (process.platform !== 'linux' || process.arch !== 'x64') fail(`builds for linux-x64 on linux-x64 only (this is ${process.platform}-${process.arch})`);
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) fail(`needs Node.js >= 20.19 (this is ${process.version}): the binary is a copy of the Node that builds it`);
const node = readFileSync(process.execPath);
if (node.indexOf(SEA_FUSE) < 0) fail(`${process.execPath} has no SEA fuse: it cannot become a single executable (use an official Node build)`);
if (node.indexOf('libnode.so') >= 0)
  fail(`${process.execPath} links a shared libnode (a distribution build): its copy would not run elsewhere; use an official Node build`);

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'avax-exporter-sea-'));
try {
  const bundle = join(work, 'avax-exporter.cjs');
  await build({
    entryPoints: [join(ROOT, 'src/cli.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'cjs',
    outfile: bundle,
    legalComments: 'none',
    logLevel: 'warning',
    // The SEA runs this script as CommonJS: import.meta.url becomes the executable's own file URL (yargs
    // derives paths from it and finds nothing there, which it handles), and the version is built in
    // because no package.json travels with the binary (src/daemon/build-info.ts).
    banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { 'import.meta.url': '__importMetaUrl', __AVAX_EXPORTER_VERSION__: JSON.stringify(version) },
  });
  // The entry point's `#!/usr/bin/env node` line is for the npm package's bin, not for a SEA's script.
  writeFileSync(bundle, readFileSync(bundle, 'utf8').replace(/^#!.*\n/, ''));

  const blob = join(work, 'sea-prep.blob');
  const seaConfig = join(work, 'sea-config.json');
  // Files the exporter reads from the executable at run time (`node:sea` getAsset), as it would read them
  // from node_modules: bcryptjs's self-contained UMD build, the code of the bcrypt worker threads
  // (src/server/bcrypt-pool.ts starts them from inline code; without the asset it compares in-process).
  const assets = { [SEA_BCRYPT_ASSET]: createRequire(import.meta.url).resolve('bcryptjs') };
  writeFileSync(seaConfig, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }, null, 2));
  run(process.execPath, ['--experimental-sea-config', seaConfig], 'node --experimental-sea-config');

  mkdirSync(dirname(out), { recursive: true });
  rmSync(out, { force: true });
  copyFileSync(process.execPath, out);
  chmodSync(out, 0o755);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  run(process.execPath, [postject, out, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], 'postject');

  const size = statSync(out).size;
  process.stdout.write(
    `${out}: ${(size / 1024 / 1024).toFixed(1)} MiB (Node ${process.version}, script ${(statSync(bundle).size / 1024).toFixed(0)} KiB), built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
