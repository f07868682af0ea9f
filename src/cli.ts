#!/usr/bin/env node
import { ConfigError, configFileGiven, loadConfig } from './config/load.js';
import { helpText, wantsHelp } from './config/flags.js';
import { createLogger, loadPrettyFormat } from './log.js';
import { BUILD, startDaemon } from './daemon.js';
import { WebConfigError, loadWebConfig } from './server/web-config.js';
import { tuneHeap } from './runtime/heap-tuning.js';
import { loadYaml } from './runtime/yaml.js';

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 5_000;

/** `avax-exporter 0.1.0`, with ` (revision <commit>)` when the build says which (AVAX_EXPORTER_REVISION, set by the Docker image). */
function versionLine(): string {
  const known = BUILD.revision !== '' && BUILD.revision !== 'unknown';
  return `avax-exporter ${BUILD.version}${known ? ` (revision ${BUILD.revision})` : ''}`;
}

/** True when argv asks for --version; answered before the configuration is read, so a broken one does not hide it. */
function wantsVersion(argv: string[]): boolean {
  return argv.includes('--version');
}

async function main(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(`${await helpText()}\n`);
    return 0;
  }
  if (wantsVersion(argv)) {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  // The YAML parser is loaded only for a configuration file (reloads read the same one).
  if (configFileGiven(argv)) await loadYaml();
  let loaded;
  try {
    loaded = loadConfig(argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`avax-exporter: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const { config, checkOnly, warnings } = loaded;
  if (config.web.configFile) {
    await loadYaml();
    try {
      loadWebConfig(config.web.configFile);
    } catch (err) {
      if (err instanceof WebConfigError) {
        process.stderr.write(`avax-exporter: ${config.web.configFile}: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  }
  if (checkOnly) {
    for (const w of warnings) process.stderr.write(`avax-exporter: warning: ${w}\n`);
    // "configuration OK" as a YAML comment: the whole output is a file --config.file reads back.
    // Loaded only here: it writes YAML with yaml's document API.
    const { describeConfig } = await import('./config/describe.js');
    process.stdout.write(`# configuration OK\n${describeConfig(config)}`);
    return 0;
  }
  if (config.log.format === 'pretty') await loadPrettyFormat();
  const logger = createLogger({ ...config.log, secretHeaders: [config.dataApi.keyHeader] });
  for (const w of warnings) logger.warn(w);
  // A long-running daemon: collect dead poll rounds sooner than V8's throughput-minded default.
  tuneHeap();
  // Keep the process up whatever a stray promise does: an upstream failure must never crash the exporter.
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
  const daemon = await startDaemon(config, { logger, reloadConfig: () => loadConfig(argv).config });
  process.on('SIGHUP', () => {
    logger.info({ signal: 'SIGHUP' }, 'reloading configuration');
    void daemon.reload();
  });
  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      const hard = setTimeout(() => {
        logger.warn('shutdown took too long, exiting');
        resolve(0);
      }, SHUTDOWN_LIMIT_MS);
      hard.unref();
      daemon.stop().then(
        () => {
          clearTimeout(hard);
          resolve(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'error during shutdown');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Flush logs, then leave even if a stray handle is still open.
    setTimeout(() => process.exit(code), 50).unref();
  },
  (err: unknown) => {
    process.stderr.write(`avax-exporter: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
