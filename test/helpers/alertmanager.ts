/**
 * A real Alertmanager for tests (Debian's prometheus-alertmanager, which npm
 * test installs first: test/tools/provision.sh): started on a free loopback
 * port with a given config and no cluster gossip, ready when /-/ready answers.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, stopProcess, type Prometheus } from './prometheus.js';

/** The Alertmanager server binary: $ALERTMANAGER, or Debian's `prometheus-alertmanager` on the PATH. */
export const ALERTMANAGER = process.env['ALERTMANAGER'] ?? 'prometheus-alertmanager';

/** A running Alertmanager (same shape as a running Prometheus). */
export type Alertmanager = Prometheus;

/** Throws, saying how to install it, when the Alertmanager binary cannot run. */
export function checkAlertmanagerInstalled(): string {
  const r = spawnSync(ALERTMANAGER, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.error || r.status !== 0)
    throw new Error(
      `cannot run Alertmanager "${ALERTMANAGER}" (${r.error?.message ?? r.stderr}). ` +
        "Install Debian's prometheus-alertmanager (apt-get install prometheus-alertmanager; npm test does) or set ALERTMANAGER=/path/to/alertmanager.",
    );
  return (r.stdout || r.stderr).split('\n')[0] ?? '';
}

/** Starts Alertmanager with `configFile` (state under `dir`) and waits until it is ready. */
export async function startAlertmanager(dir: string, configFile: string, timeoutMs = 25_000): Promise<Alertmanager> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let log = '';
    const child = spawn(
      ALERTMANAGER,
      [
        `--config.file=${configFile}`,
        `--storage.path=${join(dir, 'am-data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const append = (d: Buffer) => {
      log = (log + d.toString()).slice(-20_000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const url = `http://127.0.0.1:${port}`;
    const end = Date.now() + timeoutMs;
    try {
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`alertmanager exited (${child.exitCode ?? child.signalCode}): ${log}`);
        if ((await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200) break;
        if (Date.now() > end) throw new Error(`Alertmanager not ready after ${timeoutMs} ms: ${log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return { url, child, log: () => log };
    } catch (err) {
      await stopProcess(child);
      if (attempt < 3 && /address already in use/.test(log)) continue;
      throw err;
    }
  }
}
