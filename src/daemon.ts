import type { Config } from './config/load.js';
import type { Logger } from './log.js';
import { HttpTransport } from './http/transport.js';
import { StateStore } from './state/store.js';
import { declaredMetrics, identityOf, PRODUCT_CATALOG, sourcesByName, type SourceCatalog } from './sources/catalog.js';
import type { Exposition } from './exposition/render.js';
import { processMetricsOfThisProcess } from './exposition/process-metrics.js';
import { ProbeService } from './probe/probe-service.js';
import { createProbeHandler } from './server/probe.js';
import { startDemoUpstreams } from './daemon/demo-start.js';
import { RenderLoop } from './daemon/render-loop.js';
import { Fleet } from './daemon/fleet.js';
import { ConfigReloads, type ReloadResult } from './daemon/config-reload.js';
import { daemonRenderInput } from './daemon/render-input.js';
import { landingPage, statusBody } from './daemon/status.js';
import { listenDaemonHttp } from './daemon/http.js';
import { logTransition } from './daemon/log-transition.js';
import { registerTestHandle } from './daemon/test-handle.js';

export { BUILD } from './daemon/build-info.js';
export { testHandle } from './daemon/test-handle.js';

/** A running exporter, as the CLI and operators use it (tests reach further through {@link testHandle}). */
export interface Daemon {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:9785. */
  readonly url: string;
  readonly port: number;
  /** Re-reads the configuration and applies it; a bad one is rejected and the running one kept. */
  reload(): Promise<ReloadResult>;
  /** The exposition currently served. */
  exposition(): Exposition;
  /** True once every node has completed a poll round. */
  ready(): boolean;
  /** Stops polling, finishes in-flight responses and closes the server. */
  stop(): Promise<void>;
}

/** Options beyond the config, mostly for tests and the CLI. */
export interface DaemonOptions {
  logger: Logger;
  /** Sources to poll, by family (default: the product's catalog, src/sources/catalog.ts). */
  sources?: SourceCatalog;
  /** Jitter of the poll interval (fraction); tests set 0. */
  jitter?: number;
  /** Largest upstream response body accepted (default 64 MiB). */
  maxResponseBytes?: number;
  /** Start the poll timers (default). Off, rounds run only through the test handle's `pollNow` (soak runs and benchmarks drive time themselves). */
  autoStart?: boolean;
  /** Reads the configuration again (flags, environment, file) for a reload; without it, reloads fail. */
  reloadConfig?: () => Config;
}

/**
 * Starts the exporter: the demo's upstreams (if asked), the pollers, the
 * first render, then the HTTP server, then polling. Only wires the parts
 * under src/daemon/; each owns its own state.
 */
export async function startDaemon(config: Config, opts: DaemonOptions): Promise<Daemon> {
  const { logger } = opts;
  const sources = opts.sources ?? PRODUCT_CATALOG;
  const store = new StateStore();
  const transport = new HttpTransport({ maxResponseBytes: opts.maxResponseBytes });
  const processMetrics = processMetricsOfThisProcess();
  await processMetrics.refresh();
  const demo = await startDemoUpstreams(config, logger);

  const loop = new RenderLoop(logger, declaredMetrics(sources));
  const fleet = new Fleet({ config, demo, sources, transport, store, logger, jitter: opts.jitter, autoStart: opts.autoStart !== false, rounds: loop });
  const reloads = new ConfigReloads({ fleet, logger, reloadConfig: opts.reloadConfig, onOutcome: loop.requestRender });
  // /probe: configured nodes from this store, allow-listed URLs through pollers of its own (src/probe/).
  const probe = new ProbeService({
    config: () => fleet.config,
    nodes: () => fleet.nodes,
    store,
    sources: sources.node,
    identitySource: identityOf(sources.node).name,
    transport,
    logger,
    onTransitions: (ts) => ts.forEach((t) => logTransition(logger, t)),
    onTargetsChanged: loop.requestRender,
    // A configured node's probe answer is rendered once per /metrics render.
    generation: () => loop.renders,
  });
  // Rendered once before listening: no scrape ever finds nothing to serve.
  await loop.start(daemonRenderInput({ store, sources, fleet, probe, reloads }));

  const views = { fleet, store, ready: loop.ready, lastReloadOk: () => reloads.lastOk, sources: sourcesByName(sources) };
  const http = await listenDaemonHttp(
    config.web,
    {
      onWebConfigError: reloads.webConfigFailed,
      onWebConfigReload: reloads.webConfigReloaded,
      ...(config.web.enableLifecycle ? { reload: reloads.reload } : {}),
      status: () => statusBody(views),
      exposition: () => loop.exposition,
      processBlock: () => processMetrics.current(),
      probe: createProbeHandler(probe),
      probeTargets: () => probe.allowedTargets,
      ready: loop.ready,
      landing: () => landingPage(views),
    },
    logger,
    fleet.nodes.map((n) => n.name),
  );
  fleet.start();

  let stopping: Promise<void> | undefined;
  const daemon: Daemon = {
    url: http.url,
    port: http.port,
    reload: reloads.reload,
    exposition: () => loop.exposition,
    ready: loop.ready,
    stop() {
      stopping ??= (async () => {
        const closed = http.beginClose();
        await Promise.all([fleet.stop(), probe.stop()]);
        await closed();
        await loop.inFlight;
        await transport.close();
        await demo.stop();
      })();
      return stopping;
    },
  };
  registerTestHandle(daemon, {
    store,
    get pollers() {
      return fleet.pollers;
    },
    renderFresh: () => loop.renderFresh(),
    renderCached: () => loop.renderCached(),
    async pollNow() {
      await Promise.all(fleet.nodePollers.map((p) => p.runRound()));
      // A render chain may still be running (or re-running for a late change): wait until it settles.
      await loop.settle();
    },
    waitForRounds: (rounds) => loop.waitForRounds(rounds),
    freshnessLagsMs: () => loop.freshnessLagsMs(),
    probeRenders: () => probe.renders,
  });
  return daemon;
}
