import type { RawConfig } from './schema.js';
import { parseListenAddress } from './values.js';
import { DEFAULT_PORT, DEFAULT_TELEMETRY_PATH } from './defaults.js';

/** The `web` section: where and how the metrics are served. */
export interface WebConfig {
  listenAddress: string;
  host: string | undefined;
  port: number;
  telemetryPath: string;
  /** `--web.config.file`: TLS, basic auth and headers in the exporter-toolkit format. */
  configFile: string | undefined;
  /** `--web.enable-lifecycle`: answer POST /-/reload. */
  enableLifecycle: boolean;
}

/** Applies the section's defaults. */
export function finalizeWeb(raw: RawConfig['web']): WebConfig {
  const listenAddress = raw?.listen_address ?? `:${DEFAULT_PORT}`;
  // The schema admits only addresses this parses.
  const listen = parseListenAddress(listenAddress) as { host: string | undefined; port: number };
  return {
    listenAddress,
    host: listen.host,
    port: listen.port,
    telemetryPath: raw?.telemetry_path ?? DEFAULT_TELEMETRY_PATH,
    configFile: raw?.config_file,
    enableLifecycle: raw?.enable_lifecycle ?? false,
  };
}

/** The section as `--config.check` prints it (an unset config_file left out). */
export function printWeb(c: WebConfig): Record<string, unknown> {
  return { listen_address: c.listenAddress, telemetry_path: c.telemetryPath, config_file: c.configFile, enable_lifecycle: c.enableLifecycle };
}
