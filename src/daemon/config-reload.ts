import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import type { Fleet } from './fleet.js';

/** What a reload answers (the lifecycle endpoint and SIGHUP report it). */
export interface ReloadResult {
  ok: boolean;
  message: string;
}

/** Settings a reload cannot change: they shape the process or its listening socket. */
export function restartOnlyChanges(a: Config, b: Config): string[] {
  const out: string[] = [];
  if (a.web.listenAddress !== b.web.listenAddress) out.push('web.listen_address');
  if (a.web.telemetryPath !== b.web.telemetryPath) out.push('web.telemetry_path');
  if (a.web.configFile !== b.web.configFile) out.push('web.config_file');
  if (a.web.enableLifecycle !== b.web.enableLifecycle) out.push('web.enable_lifecycle');
  if (a.log.format !== b.log.format) out.push('log.format');
  if (a.demo !== b.demo) out.push('demo');
  return out;
}

/** What configuration reloads need. */
export interface ConfigReloadOptions {
  fleet: Fleet;
  logger: Logger;
  /** Reads the configuration again (flags, environment, file); without it, reloads fail. */
  reloadConfig: (() => Config) | undefined;
  /** Called when the outcome of a reload (or of a web config reload) changes what /metrics shows. */
  onOutcome: () => void;
}

/**
 * Reloads of the configuration and of the web config file, and how the last
 * ones went (exported as avax_exporter_config_last_reload_* and
 * avax_exporter_web_config_last_reload_successful). A configuration that
 * cannot be read or applied is rejected and the running one kept.
 */
export class ConfigReloads {
  readonly #opts: ConfigReloadOptions;
  #last = { ok: true, successMs: Date.now() };
  #webConfigOk = true;
  #reloading: Promise<ReloadResult> | undefined;

  constructor(opts: ConfigReloadOptions) {
    this.#opts = opts;
  }

  /** Whether the last configuration reload succeeded (true before any). */
  get lastOk(): boolean {
    return this.#last.ok;
  }

  /** When the configuration was last loaded successfully (start-up counts). */
  get lastSuccessMs(): number {
    return this.#last.successMs;
  }

  /** Whether the last web config file reload succeeded. */
  get webConfigOk(): boolean {
    return this.#webConfigOk;
  }

  /** Re-reads the configuration and applies it; reloads never overlap: a second request while one runs gets the same answer. */
  readonly reload = (): Promise<ReloadResult> => {
    const { fleet, logger, reloadConfig, onOutcome } = this.#opts;
    this.#reloading ??= (async () => {
      try {
        if (!reloadConfig) throw new Error('this daemon was started without a way to re-read its configuration');
        const next = reloadConfig();
        const fixed = restartOnlyChanges(fleet.config, next);
        if (fixed.length) throw new Error(`${fixed.join(', ')} cannot change without a restart`);
        const message = await fleet.apply(next);
        this.#last = { ok: true, successMs: Date.now() };
        logger.info({ nodes: fleet.nodes.map((n) => n.name) }, message);
        onOutcome();
        return { ok: true, message };
      } catch (err) {
        this.#last = { ...this.#last, ok: false };
        const message = `configuration reload failed, the running configuration is kept: ${(err as Error).message}`;
        logger.error(message);
        onOutcome();
        return { ok: false, message };
      }
    })().finally(() => {
      // Cleared after the assignment above (a failing reload can settle synchronously).
      this.#reloading = undefined;
    });
    return this.#reloading;
  };

  /** The web config file was reloaded (`ok`) or found invalid (the previous one is kept). */
  readonly webConfigReloaded = (ok: boolean): void => {
    if (ok) this.#opts.logger.info({ file: this.#opts.fleet.config.web.configFile }, 'web config reloaded');
    if (ok !== this.#webConfigOk) {
      this.#webConfigOk = ok;
      this.#opts.onOutcome();
    }
  };

  /** Logs why a web config file reload failed. */
  readonly webConfigFailed = (err: Error): void => {
    this.#opts.logger.error({ err: err.message }, 'web config reload failed, the previous one is kept');
  };
}
