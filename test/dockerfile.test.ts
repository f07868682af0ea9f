/**
 * The container image, as far as it can be checked without a Docker engine:
 * the Dockerfile is read instruction by instruction (multi-stage, Node 24 slim
 * base, non-root user, OCI labels, EXPOSE of the default port, a HEALTHCHECK
 * on /-/healthy, an ENTRYPOINT naming the built entry point of package.json's
 * `bin`), .dockerignore keeps node_modules and dist out of the context but
 * not what the image copies, and the entry point the image runs, compiled as
 * the build stage does, starts with the image's environment and serves
 * /metrics; the HEALTHCHECK command itself is run against it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../src/config/load.js';
import { eventually, valueOf, seriesOf } from './helpers/daemon.js';
import { ROOT } from './helpers/promql-contract.js';
import { DAEMON_RUNTIME_ENV } from './tools/bench/runtime-env.js';
import { filesUnder, unshippableImports } from './helpers/shipped.js';

interface Instruction {
  cmd: string;
  args: string;
  line: number;
}
interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Splits a Dockerfile into instructions: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let buf = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (!buf && (/^\s*#/.test(line) || !line.trim())) return;
    if (buf && /^\s*#/.test(line)) return; // comment lines inside a continuation are skipped
    if (!buf) start = i + 1;
    if (line.endsWith('\\')) {
      buf += `${line.slice(0, -1)} `;
      return;
    }
    buf += line;
    const m = /^\s*(\w+)\s+([\s\S]*)$/.exec(buf);
    if (m) out.push({ cmd: (m[1] as string).toUpperCase(), args: (m[2] as string).trim(), line: start });
    buf = '';
  });
  return out;
}

/** `KEY=value KEY2="value 2"` pairs (LABEL, ENV, ARG). */
function keyValues(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const v = m[2] as string;
    out[m[1] as string] = v.startsWith('"') ? (JSON.parse(v) as string) : v;
  }
  return out;
}

function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a: string | undefined, b: string | undefined) => vars[(a ?? b) as string] ?? whole);
}

/** The exec (JSON array) form of CMD / ENTRYPOINT / HEALTHCHECK CMD; the shell form is not accepted. */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error(`not an exec-form array: ${args}`);
  return parsed;
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const BIN = pkg.bin['avax-exporter'] as string;

/** ARGs declared before the first FROM, with their defaults. */
const globalArgs: Record<string, string> = {};
const stages: Stage[] = [];
for (const ins of instructions) {
  if (ins.cmd === 'FROM') {
    const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
    if (!m) throw new Error(`cannot read FROM at line ${ins.line}: ${ins.args}`);
    stages.push({ from: substitute(m[1] as string, globalArgs), name: m[2], instructions: [] });
  } else if (stages.length === 0) {
    if (ins.cmd === 'ARG') Object.assign(globalArgs, keyValues(ins.args));
  } else {
    (stages[stages.length - 1] as Stage).instructions.push(ins);
  }
}
const final = stages[stages.length - 1] as Stage;
const finalOf = (cmd: string) => final.instructions.filter((i) => i.cmd === cmd);
const lastOf = (cmd: string) => finalOf(cmd).at(-1);

/** The final stage's WORKDIR at the end (absolute). */
function workdirOf(stage: Stage): string {
  let wd = '/';
  for (const i of stage.instructions) if (i.cmd === 'WORKDIR') wd = posix.resolve(wd, i.args);
  return wd;
}

/** The final stage's ARG defaults, overridden by `buildArgs` (as `docker build --build-arg`). */
function stageArgs(buildArgs: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of finalOf('ARG')) Object.assign(out, keyValues(i.args));
  return { ...out, ...buildArgs };
}

describe('Dockerfile', () => {
  it('is multi-stage: the runtime stage takes the compiled output from a build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.find((s) => s.instructions.some((i) => i.cmd === 'RUN' && /\bnpm run build\b/.test(i.args)));
    expect(build?.name, 'a named stage runs npm run build').toBeTruthy();
    expect(build).not.toBe(final);
    const copies = finalOf('COPY').filter((i) => i.args.includes(`--from=${build?.name}`));
    expect(copies.map((c) => c.args)).toEqual([expect.stringMatching(/\/dist\s+\.\/dist$/)]);
    // The runtime stage installs production dependencies only and runs no compiler.
    expect(finalOf('RUN').some((i) => /npm ci\b.*--omit=dev/.test(i.args))).toBe(true);
    expect(finalOf('RUN').some((i) => /npm run build|\btsc\b/.test(i.args))).toBe(false);
  });

  it('every stage is based on Node 24 slim', () => {
    for (const s of stages) expect(s.from, `FROM ${s.from}`).toMatch(/^(docker\.io\/(library\/)?)?node:24(\.\d+){0,2}(-[a-z]+)?-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it('ENTRYPOINT runs the built entry point of package.json bin with node, in exec form', () => {
    const entry = lastOf('ENTRYPOINT');
    expect(entry, 'no ENTRYPOINT').toBeDefined();
    const argv = execForm(entry?.args ?? '[]');
    expect(argv[0]).toBe('node');
    expect(BIN).toBe('dist/cli.js');
    expect(argv[1]).toBe(posix.join(workdirOf(final), BIN));
    // CMD, if any, only adds arguments (flags) to it.
    const cmd = lastOf('CMD');
    if (cmd) for (const a of execForm(cmd.args)) expect(a).toMatch(/^--/);
    // The build stage compiles into dist/, the directory the runtime stage copies.
    const outDir = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: { outDir: string } }).compilerOptions.outDir;
    expect(posix.normalize(outDir)).toBe(posix.dirname(BIN));
    expect(pkg.scripts['build']).toBe('tsc -p tsconfig.build.json');
  });

  it('sets the runtime environment the benchmark measures, as the systemd unit does', () => {
    // docs/performance.md is measured with DAEMON_RUNTIME_ENV; both shipped ways to run the daemon must set the same.
    const imageEnv: Record<string, string> = {};
    for (const i of finalOf('ENV')) Object.assign(imageEnv, keyValues(i.args));
    const unit = readFileSync(join(ROOT, 'examples/systemd/avax-exporter.service'), 'utf8');
    const unitEnv: Record<string, string> = {};
    for (const m of unit.matchAll(/^Environment=([\w.-]+)=(.*)$/gm)) unitEnv[m[1] as string] = (m[2] as string).trim();
    expect(Object.keys(DAEMON_RUNTIME_ENV).length).toBeGreaterThan(0);
    for (const [k, v] of Object.entries(DAEMON_RUNTIME_ENV)) {
      expect(imageEnv[k], `Dockerfile ENV ${k}`).toBe(v);
      expect(unitEnv[k], `systemd Environment=${k}`).toBe(v);
    }
  });

  it('EXPOSEs the default port and listens on it', () => {
    expect(finalOf('EXPOSE').flatMap((i) => i.args.split(/\s+/))).toContain(`${DEFAULT_PORT}`);
    const env = keyValues(
      finalOf('ENV')
        .map((i) => i.args)
        .join(' '),
    );
    if (env['AVAX_EXPORTER_WEB_LISTEN_ADDRESS'] !== undefined) expect(env['AVAX_EXPORTER_WEB_LISTEN_ADDRESS']).toBe(`:${DEFAULT_PORT}`);
  });

  it('has a HEALTHCHECK on /-/healthy of the default port, in exec form', () => {
    const hc = lastOf('HEALTHCHECK');
    expect(hc, 'no HEALTHCHECK').toBeDefined();
    const m = /^((?:--[\w-]+=\S+\s+)*)CMD\s+(.+)$/s.exec(hc?.args ?? '');
    expect(m, hc?.args).toBeTruthy();
    const argv = execForm(m?.[2] ?? '[]');
    expect(argv.join(' ')).toContain(`http://127.0.0.1:${DEFAULT_PORT}/-/healthy`);
    expect(m?.[1]).toMatch(/--timeout=\d+s/);
  });

  it('runs as a non-root user', () => {
    const user = lastOf('USER');
    expect(user, 'no USER').toBeDefined();
    const name = user?.args.split(':')[0] ?? '';
    expect(['root', '0', '']).not.toContain(name);
    // The user is set before the entry point runs.
    const idx = (i: Instruction | undefined) => (i ? final.instructions.indexOf(i) : -1);
    expect(idx(user)).toBeLessThan(idx(lastOf('ENTRYPOINT')));
  });

  it('carries the OCI image labels', () => {
    const labels = keyValues(
      finalOf('LABEL')
        .map((i) => i.args)
        .join(' '),
    );
    for (const k of ['title', 'description', 'source', 'licenses', 'version', 'revision', 'created'])
      expect(labels[`org.opencontainers.image.${k}`], k).toBeTruthy();
    expect(labels['org.opencontainers.image.licenses']).toBe(pkg.license);
    expect(labels['org.opencontainers.image.title']).toBe('avax-exporter');
    const args = stageArgs({});
    for (const k of ['version', 'revision', 'created'])
      expect(labels[`org.opencontainers.image.${k}`], `${k} comes from a build argument`).toMatch(/^\$\{?\w+\}?$/);
    expect(Object.keys(args)).toEqual(expect.arrayContaining(['VERSION', 'REVISION', 'CREATED']));
  });
});

describe('.dockerignore', () => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const toRegex = (p: string) =>
    new RegExp(
      `^${p
        .replace(/^\/+|\/+$/g, '')
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\ue000')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/\ue000/g, '.*')}(/.*)?$`,
    );
  /** Docker's rule: the last matching pattern wins; `!` re-includes. */
  const excluded = (path: string) => {
    let out = false;
    for (const p of patterns) {
      const neg = p.startsWith('!');
      if (toRegex(neg ? p.slice(1) : p).test(path)) out = !neg;
    }
    return out;
  };

  it('keeps node_modules, dist and .git out of the build context', () => {
    for (const p of ['node_modules', 'node_modules/yaml/package.json', 'dist', 'dist/cli.js', '.git']) expect(excluded(p), p).toBe(true);
  });

  it('does not exclude what the Dockerfile copies from the context', () => {
    const sources = instructions
      .filter((i) => (i.cmd === 'COPY' || i.cmd === 'ADD') && !/--from=/.test(i.args))
      .flatMap((i) => {
        const parts = i.args.split(/\s+/).filter((x) => !x.startsWith('--'));
        return parts.slice(0, -1);
      });
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src']));
    for (const s of sources) {
      expect(existsSync(join(ROOT, s)), `${s} exists`).toBe(true);
      expect(excluded(s), `${s} is excluded by .dockerignore`).toBe(false);
    }
    expect(excluded('src/cli.ts')).toBe(false);
  });
});

describe('the entry point the image runs', () => {
  let dir = '';
  let child: ChildProcess | undefined;
  const exitGuard = () => child?.kill('SIGKILL');

  beforeAll(() => {
    // The image's layout: dist/ compiled by tsconfig.build.json next to package.json
    // (dist/daemon.js reads ../package.json), dependencies in node_modules.
    dir = mkdtempSync(join(tmpdir(), 'avax-exporter-image-'));
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 180_000,
      },
    );
    if (tsc.status !== 0)
      throw new Error(`tsc -p tsconfig.build.json failed (${tsc.status ?? tsc.signal}): ${tsc.stdout}${tsc.stderr}${tsc.error?.message ?? ''}`);
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((ok) => child?.once('exit', ok));
      child.kill('SIGKILL');
      await exited;
    }
    process.off('exit', exitGuard);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the daemon only: no developer tool, and imports nothing a production install lacks', () => {
    const files = filesUnder(join(dir, 'dist'));
    expect(files).toContain('cli.js');
    expect(files.filter((f) => /tools|bench|soak|metrics-doc/.test(f))).toEqual([]);
    expect(unshippableImports(join(dir, 'dist'))).toEqual([]);
  });

  it('answers --version with the image version and the revision it was built from', () => {
    const script = join(dir, posix.relative(workdirOf(final), execForm(lastOf('ENTRYPOINT')?.args ?? '[]')[1] ?? ''));
    const args = stageArgs({ VERSION: pkg.version, REVISION: 'abc1234', CREATED: '2026-01-01T00:00:00Z' });
    const imageEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(
      keyValues(
        finalOf('ENV')
          .map((i) => i.args)
          .join(' '),
      ),
    ))
      imageEnv[k] = substitute(v, args);
    const r = spawnSync(process.execPath, [script, '--version'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', ...imageEnv },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`avax-exporter ${pkg.version} (revision abc1234)\n`);
  });

  it('starts with the image environment, serves /metrics and /-/healthy, passes the HEALTHCHECK and stops on SIGTERM', { timeout: 60_000 }, async () => {
    const entry = execForm(lastOf('ENTRYPOINT')?.args ?? '[]');
    // Map the image path (/app/dist/cli.js) to the temp layout.
    const script = join(dir, posix.relative(workdirOf(final), entry[1] ?? ''));
    expect(existsSync(script), script).toBe(true);
    // The image's environment, with the build arguments CI would pass.
    const args = stageArgs({ VERSION: pkg.version, REVISION: 'abc1234', CREATED: '2026-01-01T00:00:00Z' });
    const imageEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(
      keyValues(
        finalOf('ENV')
          .map((i) => i.args)
          .join(' '),
      ),
    ))
      imageEnv[k] = substitute(v, args);
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_'))), ...imageEnv };

    process.once('exit', exitGuard);
    const proc = spawn(
      entry[0] === 'node' ? process.execPath : (entry[0] as string),
      [script, ...entry.slice(2), '--demo', '--web.listen-address=127.0.0.1:0', '--poll.interval=1s'],
      {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    const lines: Record<string, unknown>[] = [];
    let out = '';
    let err = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const parts = out.split('\n');
      out = parts.pop() ?? '';
      for (const p of parts) if (p.trim().startsWith('{')) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));

    await eventually(() => lines.some((l) => l['msg'] === 'listening') || proc.exitCode !== null, 30_000, 100);
    const listening = lines.find((l) => l['msg'] === 'listening');
    expect(listening, `the entry point did not start: ${err}`).toBeDefined();
    const port = Number(String(listening?.['address']).split(':').pop());
    const url = `http://127.0.0.1:${port}`;

    expect((await fetch(`${url}/-/healthy`)).status).toBe(200);
    let text = '';
    await eventually(
      async () => {
        const res = await fetch(`${url}/metrics`);
        text = await res.text();
        return res.status === 200 && valueOf(text, 'avax_exporter_ready') === 1;
      },
      30_000,
      200,
    );
    expect(isExposition(text)).toBe(true);
    expect(seriesOf(text, 'avax_exporter_build_info', { version: pkg.version, revision: 'abc1234' })).toHaveLength(1);
    expect(seriesOf(text, 'avax_node_info', { node: 'demo' })).toHaveLength(1);

    // The HEALTHCHECK command, pointed at this port, succeeds; pointed at a closed port, fails.
    const hc = execForm(/CMD\s+(.+)$/s.exec(lastOf('HEALTHCHECK')?.args ?? '')?.[1] ?? '[]');
    const runHc = (p: number) =>
      spawnSync(
        hc[0] === 'node' ? process.execPath : (hc[0] as string),
        hc.slice(1).map((a) => a.replace(`:${DEFAULT_PORT}/`, `:${p}/`)),
        { encoding: 'utf8', timeout: 15_000 },
      );
    expect(runHc(port).status).toBe(0);

    const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(runHc(port).status).toBe(1);
  });
});

/** The exposition is the Prometheus text format (HELP/TYPE lines and samples). */
function isExposition(text: string): boolean {
  return /^# HELP avax_/m.test(text) && /^# TYPE avax_\S+ (gauge|counter)$/m.test(text);
}
