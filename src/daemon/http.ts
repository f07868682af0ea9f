import type { AddressInfo } from 'node:net';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import { createExporterServer, type ServerOptions } from '../server/server.js';

/** Time in-flight responses get to finish on stop, before their connections are cut (shutdown stays bounded). */
const STOP_GRACE_MS = 2_000;

/** The exporter's HTTP server, listening. */
export interface DaemonHttp {
  /** Base URL, e.g. http://127.0.0.1:9785. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections and cuts the idle ones at once; the returned
   * function resolves once in-flight responses finished (or, after a grace
   * time, were cut).
   */
  beginClose(): () => Promise<void>;
}

/** Creates the HTTP server for `options`, listens on the configured address and logs where. */
export async function listenDaemonHttp(
  web: Config['web'],
  options: Omit<ServerOptions, 'telemetryPath' | 'webConfigFile'>,
  logger: Logger,
  nodes: readonly string[],
): Promise<DaemonHttp> {
  const server = createExporterServer({ webConfigFile: web.configFile, telemetryPath: web.telemetryPath, ...options });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(web.port, web.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = web.host ?? '127.0.0.1';
  logger.info({ address: `${web.host ?? ''}:${port}`, telemetry_path: web.telemetryPath, nodes }, 'listening');
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    beginClose() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return async () => {
        const force = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
        await closed;
        clearTimeout(force);
      };
    },
  };
}
