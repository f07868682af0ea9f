/**
 * A real Alertmanager for tests (Debian's prometheus-alertmanager, which npm
 * test installs first: test/tools/provision.sh): started on a free loopback
 * port with a given config and no cluster gossip, ready when /-/ready answers.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startServerProcess, type Prometheus } from './prometheus.js';

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
export function startAlertmanager(dir: string, configFile: string, timeoutMs = 25_000): Promise<Alertmanager> {
  return startServerProcess(
    'Alertmanager',
    ALERTMANAGER,
    (port) => [
      `--config.file=${configFile}`,
      `--storage.path=${join(dir, 'am-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    timeoutMs,
  );
}
