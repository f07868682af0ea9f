/**
 * test/avalanchego/build.sh, which `npm test` runs first and the real-network suites call: it builds the pinned
 * AvalancheGo and our network driver once into a cache outside the repository, reuses that build on every later
 * run, rebuilds only the driver when only the driver changed, and stops at once with what to do when Go, a C
 * compiler or the module proxy is missing. Run on a copy of test/avalanchego/ with a stand-in `go` (which logs its
 * calls and writes a file where `go build -o` points), so the test builds nothing and changes no real cache.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/promql-contract.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface World {
  /** What the stand-in `go env GOVERSION` says; undefined: no `go` on PATH. */
  goVersion?: string;
  /** The stand-in's `go build` fails with this text. */
  buildFails?: string;
  gcc?: boolean;
}

function script(path: string, body: string): void {
  writeFileSync(path, `#!/bin/bash\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A copy of test/avalanchego/ and an empty cache; `run` runs the copy's build.sh in `world`. */
function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-build-'));
  dirs.push(dir);
  const module = join(dir, 'avalanchego');
  cpSync(join(ROOT, 'test', 'avalanchego'), module, { recursive: true });
  const cache = join(dir, 'cache');
  const log = join(dir, 'go.log');
  const run = (world: World) => {
    const bin = join(dir, 'bin');
    rmSync(bin, { recursive: true, force: true });
    mkdirSync(bin);
    if (world.goVersion !== undefined) {
      script(
        join(bin, 'go'),
        [
          `echo "$*" >> ${log}`,
          `case "$1" in`,
          `  env) case "$2" in GOVERSION) echo ${world.goVersion};; GOPROXY) echo https://proxy.example;; esac;;`,
          `  build) ${world.buildFails ? `echo "${world.buildFails}" >&2; exit 1` : 'while [ $# -gt 0 ]; do if [ "$1" = -o ]; then printf \'#!/bin/bash\\necho stand-in 1.14.2\\n\' > "$2"; chmod +x "$2"; fi; shift; done'};;`,
          `esac`,
        ].join('\n'),
      );
    }
    // cgo's compiler is $CC, else gcc: a world without one names a compiler that is nowhere.
    const cc = (world.gcc ?? true) ? {} : { CC: 'no-such-cc' };
    // The system's own tools (coreutils, awk, flock), never the machine's real Go (/usr/local/go/bin is left out).
    const r = spawnSync('/bin/bash', [join(module, 'build.sh')], {
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, AVAX_EXPORTER_CACHE: cache, ...cc },
      encoding: 'utf8',
      timeout: 20_000,
    });
    const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    rmSync(log, { force: true });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, builds: calls.filter((c) => c.startsWith('build ')) };
  };
  return { module, cache, run };
}

describe('building the real AvalancheGo (test/avalanchego/build.sh)', () => {
  it("builds the pinned node, the L1's VM (xsvm) and the driver once into the cache, prints the directory, and reuses it", () => {
    const { cache, run } = setUp();
    const first = run({ goVersion: 'go1.26.8' });
    expect(first.status).toBe(0);
    const out = first.stdout.trim();
    // Keyed by the pinned version and a hash of go.mod and go.sum, outside the repository.
    expect(out).toMatch(new RegExp(`^${cache}/avalanchego-v1\\.14\\.2-[0-9a-f]{12}$`));
    expect(first.builds).toEqual([
      expect.stringMatching(/^build -mod=readonly -trimpath -o .*\/avalanchego github\.com\/ava-labs\/avalanchego\/main$/),
      expect.stringMatching(/^build -mod=readonly -trimpath -o .*\/xsvm github\.com\/ava-labs\/avalanchego\/vms\/example\/xsvm\/cmd\/xsvm$/),
      expect.stringMatching(/^build -mod=readonly -trimpath -o .*\/localnet \.\/localnet$/),
    ]);
    expect(first.stderr).toMatch(/avalanchego: built in \d+ s: stand-in 1\.14\.2, \S+ in /);
    for (const f of ['avalanchego', 'xsvm', 'localnet']) expect(existsSync(join(out, f))).toBe(true);

    const second = run({ goVersion: 'go1.26.8' });
    expect(second).toMatchObject({ status: 0, stdout: `${out}\n`, stderr: '', builds: [] });
  });

  it('rebuilds only the driver when only its sources changed', () => {
    const { module, run } = setUp();
    const out = run({ goVersion: 'go1.26.8' }).stdout;
    appendFileSync(join(module, 'localnet', 'main.go'), '\n// changed\n');
    const again = run({ goVersion: 'go1.26.8' });
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(out);
    expect(again.builds).toEqual([expect.stringMatching(/\/localnet \.\/localnet$/)]);
  });

  it('--quiet prints nothing on standard output (npm test runs it so)', () => {
    const { module, cache } = setUp();
    const r = spawnSync('/bin/bash', [join(module, 'build.sh'), '--quiet'], {
      env: { PATH: '/usr/bin:/bin', HOME: module, AVAX_EXPORTER_CACHE: cache },
      encoding: 'utf8',
    });
    // No Go here: it fails, but says so on standard error only.
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('without Go: stops at once, says what to install and the command to run again', () => {
    const t0 = Date.now();
    const r = setUp().run({});
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('avalanchego: Go is not installed. Install Go 1.25.8 or newer');
    expect(r.stderr).toContain('avalanchego: Then run again: bash test/avalanchego/build.sh');
    expect(r.stdout).toBe('');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('with a Go older than go.mod asks for: says which version is needed, and never fetches another toolchain', () => {
    const r = setUp().run({ goVersion: 'go1.24.3' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('avalanchego: Go 1.24.3 is too old: go.mod needs 1.25.8 or newer.');
    expect(r.builds).toEqual([]);
  });

  it('without a C compiler (AvalancheGo needs cgo): names the package to install', () => {
    const r = setUp().run({ goVersion: 'go1.26.8', gcc: false });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no C compiler (no-such-cc): apt-get install -y gcc');
  });

  it('when the module proxy refuses: shows Go’s error and where GOPROXY points, and leaves no half-built cache', () => {
    const { cache, run } = setUp();
    const r = run({ goVersion: 'go1.26.8', buildFails: 'reading https://proxy.example/github.com/ava-labs/libevm/@v/list: 403 Forbidden' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('403 Forbidden');
    expect(r.stderr).toContain('check that GOPROXY (https://proxy.example) reaches the Go module proxy');
    expect(r.stdout).toBe('');
    // The next run starts the build again rather than taking a directory without binaries for a build.
    expect(run({ goVersion: 'go1.26.8' }).builds).toHaveLength(3);
    expect(existsSync(cache)).toBe(true);
  });
});
