#!/usr/bin/env node
import { stringify as toYaml } from 'yaml';
import { ConfigError, DATA_API_KEY_ENV, loadConfig, redactConfig, wantsHelp, type Config } from './config/load.js';
import type { WatchedAddress } from './config/addresses.js';
import { DEFAULT_DATA_API_URL } from './data-api/client.js';
import { formatDuration } from './config/duration.js';
import { createLogger } from './log.js';
import { BUILD, startDaemon } from './daemon.js';
import { WebConfigError, loadWebConfig } from './server/web-config.js';
import { tuneHeap } from './runtime/heap-tuning.js';

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 5_000;

function describeAddress(a: WatchedAddress): Record<string, unknown> {
  return { alias: a.alias, chain: a.chain, address: a.address, ...(a.floorAvax !== undefined ? { floor_avax: a.floorAvax } : {}) };
}

function describeConfig(config: Config): string {
  const c = redactConfig(config);
  return toYaml({
    web: { listen_address: c.web.listenAddress, telemetry_path: c.web.telemetryPath },
    poll: {
      interval: formatDuration(c.poll.intervalMs),
      timeout: formatDuration(c.poll.timeoutMs),
      max_age: formatDuration(c.poll.maxAgeMs),
      peers_interval: formatDuration(c.poll.peersIntervalMs),
    },
    nodes: c.nodes.map((n) => ({
      name: n.name,
      url: n.url,
      ...(Object.keys(n.headers).length ? { headers: n.headers } : {}),
      watch: { node_ids: n.watch.nodeIds, all_validators: n.watch.allValidators, subnet_ids: n.watch.subnetIds },
    })),
    data_api: {
      enabled: c.dataApi.enabled,
      url: c.dataApi.url ?? (c.demo ? 'the built-in demo Data API' : DEFAULT_DATA_API_URL),
      network: c.dataApi.network ?? "the polled nodes' network",
      // Only whether a key is set, never the key.
      key: c.dataApi.key ?? `none (set ${DATA_API_KEY_ENV} or key_file)`,
      key_header: c.dataApi.keyHeader,
      rate_limit: c.dataApi.rateLimitPerMinute,
      interval: formatDuration(c.dataApi.intervalMs),
      max_pages: c.dataApi.maxPages,
    },
    probe: { targets: c.probe.targets.map((t) => t.url), max_targets: c.probe.maxTargets, idle_timeout: formatDuration(c.probe.idleTimeoutMs) },
    // Every watched wallet, with where its balance is asked (the node's RPC, or the Data API for P-Chain).
    addresses: [
      ...c.nodes.flatMap((n) => (n.addresses ?? []).map((a) => ({ ...describeAddress(a), rpc_node: n.name }))),
      ...(c.dataApi.addresses ?? []).map((a) => ({ ...describeAddress(a), via: 'data_api' })),
    ],
    log: c.log,
    demo: c.demo,
  });
}

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
  if (wantsVersion(argv) && !wantsHelp(argv)) {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
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
  if (wantsHelp(argv)) return 0;
  const { config, checkOnly } = loaded;
  if (config.web.configFile) {
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
    process.stdout.write(`configuration OK\n---\n${describeConfig(config)}`);
    return 0;
  }
  const logger = createLogger({ ...config.log, secretHeaders: [config.dataApi.keyHeader] });
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
