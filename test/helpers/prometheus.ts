/**
 * A real Prometheus server for tests (Debian's prometheus package, which
 * npm test installs first, test/tools/provision.sh): started on a free loopback port with a given config,
 * ready when /-/ready answers, stopped with SIGTERM (SIGKILL after 5 s).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The Prometheus server binary: $PROMETHEUS, or `prometheus` on the PATH. */
export const PROMETHEUS = process.env['PROMETHEUS'] ?? 'prometheus';

/** A running Prometheus. */
export interface Prometheus {
  url: string;
  child: ChildProcess;
  /** The last 20 KB of its output. */
  log: () => string;
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok, fail) => srv.once('error', fail).listen(0, '127.0.0.1', ok));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

/** The first line of `prometheus --version`; throws, saying how to install it, when it cannot run. */
export function checkPrometheusInstalled(): string {
  const r = spawnSync(PROMETHEUS, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.error || r.status !== 0)
    throw new Error(
      `cannot run the Prometheus server "${PROMETHEUS}" (${r.error?.message ?? r.stderr}). ` +
        "This test needs a real Prometheus: install Debian's prometheus package (apt-get install prometheus; .ci/run does) or set PROMETHEUS=/path/to/prometheus.",
    );
  return (r.stdout || r.stderr).split('\n')[0] ?? '';
}

/** Starts Prometheus with `configFile` (TSDB under `dir`) and waits until it is ready, at most `timeoutMs`. */
export function startPrometheus(dir: string, configFile: string, timeoutMs = 25_000): Promise<Prometheus> {
  return startServerProcess(
    'Prometheus',
    PROMETHEUS,
    (port) => [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    timeoutMs,
  );
}

/**
 * Starts a Prometheus-family server (`argsFor` its listen port) on a free
 * loopback port and waits until `/-/ready` answers 200, at most `timeoutMs`;
 * tries another port when the probed one was taken meanwhile.
 */
export async function startServerProcess(what: string, binary: string, argsFor: (port: number) => string[], timeoutMs: number): Promise<Prometheus> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let log = '';
    const child = spawn(binary, argsFor(port), { stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (d: Buffer) => {
      log = (log + d.toString()).slice(-20_000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const url = `http://127.0.0.1:${port}`;
    const end = Date.now() + timeoutMs;
    try {
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}): ${log}`);
        if ((await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200) break;
        if (Date.now() > end) throw new Error(`${what} not ready after ${timeoutMs} ms: ${log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return { url, child, log: () => log };
    } catch (err) {
      await stopProcess(child);
      // Another process may have taken the port between the probe and the start.
      if (attempt < 3 && /address already in use/.test(log)) continue;
      throw err;
    }
  }
}

/** Stops a child process: SIGTERM, then SIGKILL after 5 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Polls `fn` until it returns a value other than undefined, or throws after
 * `timeoutMs` with `what` and the last error `fn` threw.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, stepMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
