import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Config, NodeConfig } from './config/load.js';
import { redactConfig, redactUrl } from './config/load.js';
import type { Logger } from './log.js';
import { HttpTransport } from './http/transport.js';
import { StateStore, type StateTransition } from './state/store.js';
import { NODE_SOURCES, IDENTITY_SOURCE, CONFIGURED_NODE_SOURCES, sourceMinIntervals } from './sources/index.js';
import { SLOW_REFRESH_ROUNDS, type SourceDef } from './sources/source.js';
import { NetworkShared } from './sources/network-shared.js';
import { NodePoller, startSpread, type PollerHandle } from './scheduler.js';
import { SampleAssembler } from './exposition/assemble.js';
import { ExpositionRenderer, type Exposition } from './exposition/render.js';
import { createExporterServer } from './server/server.js';
import { ProcessMetrics } from './exposition/process-metrics.js';
import { renderLanding } from './server/landing.js';
import { startDemo, type Demo } from './fake/demo.js';
import { startDemoDataApi } from './fake/demo-data-api.js';
import { DataApiPoller, DATA_API_POLLER_NAME } from './data-api/poller.js';
import { DATA_API_SOURCES } from './data-api/sources.js';
import { DEFAULT_DATA_API_URL } from './data-api/client.js';
import { collectDataApiStats } from './data-api/collect.js';
import { ProbeService } from './probe/probe-service.js';
import { createProbeHandler } from './server/probe.js';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/** Build identity exported as avax_exporter_build_info. */
export const BUILD = {
  version: pkg.version,
  revision: process.env['AVAX_EXPORTER_REVISION'] ?? 'unknown',
  nodejs: process.version,
};

/** A running exporter. */
export interface Daemon {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:9785. */
  readonly url: string;
  readonly port: number;
  readonly store: StateStore;
  /** Node pollers first, in config order, then any other poller (changes on reload). */
  readonly pollers: readonly PollerHandle[];
  /** Re-reads the configuration and applies it; a bad one is rejected and the running one kept. */
  reload(): Promise<{ ok: boolean; message: string }>;
  /** The exposition currently served. */
  exposition(): Exposition;
  /** True once every node has completed a poll round. */
  ready(): boolean;
  /** Renders the current state again with a fresh renderer, as of the served exposition's time (for checking the cache). */
  renderFresh(): Promise<Exposition>;
  /** Renders the current state again with the daemon's own (caching) renderer, without serving it: the cost of a render when nothing changed. */
  renderCached(): Promise<Exposition>;
  /** Runs one round of every node now and resolves once its render is served. */
  pollNow(): Promise<void>;
  /** Resolves after the next render that follows `rounds` more completed rounds of every node. */
  waitForRounds(rounds?: number): Promise<void>;
  /**
   * How fresh /metrics is: for each recent render that followed a completed
   * round (the last 1,024), the milliseconds from the end of the earliest
   * round it took in to the moment it was served, oldest first.
   */
  freshnessLagsMs(): readonly number[];
  /** Probe answers rendered so far (a configured node's is rendered once per /metrics render, however many probes ask). */
  probeRenders(): number;
  /** Stops polling, finishes in-flight responses and closes the server. */
  stop(): Promise<void>;
}

/** Options beyond the config, mostly for tests and the CLI. */
export interface DaemonOptions {
  logger: Logger;
  /** Sources to poll (defaults to every node source). */
  sources?: readonly SourceDef<unknown>[];
  /** Jitter of the poll interval (fraction); tests set 0. */
  jitter?: number;
  /** Largest upstream response body accepted (default 64 MiB). */
  maxResponseBytes?: number;
  /** Start the poll timers (default). Off, rounds run only through `pollNow` (soak runs and benchmarks drive time themselves). */
  autoStart?: boolean;
  /** Reads the configuration again (flags, environment, file) for a reload; without it, reloads fail. */
  reloadConfig?: () => Config;
}

/** Settings a reload cannot change: they shape the process or its listening socket. */
function restartOnlyChanges(a: Config, b: Config): string[] {
  const out: string[] = [];
  if (a.web.listenAddress !== b.web.listenAddress) out.push('web.listen_address');
  if (a.web.telemetryPath !== b.web.telemetryPath) out.push('web.telemetry_path');
  if (a.web.configFile !== b.web.configFile) out.push('web.config_file');
  if (a.web.enableLifecycle !== b.web.enableLifecycle) out.push('web.enable_lifecycle');
  if (a.log.format !== b.log.format) out.push('log.format');
  if (a.demo !== b.demo) out.push('demo');
  return out;
}

/** Freshness lags kept for freshnessLagsMs(). */
const MAX_FRESHNESS_LAGS = 1_024;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function logTransition(logger: Logger, t: StateTransition): void {
  const fields = { node: t.node, source: t.source, ...(t.reason ? { reason: t.reason } : {}) };
  if (t.change) logger[t.change.level]({ ...fields, ...t.change.detail }, t.change.message);
  else if (t.kind === 'source_down') logger.warn({ ...fields, err: t.message }, 'source down');
  else if (t.kind === 'source_up') logger.info(fields, 'source up');
}

/** Starts the exporter: demo node (if asked), pollers, renderer, HTTP server. */
export async function startDaemon(initialConfig: Config, opts: DaemonOptions): Promise<Daemon> {
  const { logger } = opts;
  let config = initialConfig;
  const sources = opts.sources ?? [...NODE_SOURCES, ...CONFIGURED_NODE_SOURCES];
  // Collectors by source name; the Data API's only read values, so their poll context does not matter here.
  const sourceByName = new Map<string, SourceDef<unknown>>(sources.map((s) => [s.name, s]));
  // Registered whether or not the Data API is on, so a reload can turn it on.
  for (const s of DATA_API_SOURCES) sourceByName.set(s.name, s as unknown as SourceDef<unknown>);
  const store = new StateStore();
  const transport = new HttpTransport({ maxResponseBytes: opts.maxResponseBytes });
  // Both keep what they made for unchanged source values, so a render after one node's round formats that node only.
  const renderer = new ExpositionRenderer();
  const assembler = new SampleAssembler();
  const processMetrics = new ProcessMetrics();
  await processMetrics.refresh();

  let demo: Demo | undefined;
  if (config.demo) {
    demo = await startDemo();
    logger.info({ nodes: demo.nodes.map((n) => ({ name: n.name, url: n.url })) }, 'demo nodes started');
  }
  let demoDataApi: Awaited<ReturnType<typeof startDemoDataApi>> | undefined;
  if (demo && config.dataApi.enabled && config.dataApi.url === undefined) {
    demoDataApi = await startDemoDataApi(demo.primary);
    logger.info({ url: demoDataApi.url }, 'demo Data API started');
  }
  const demoNodes = demo?.nodes ?? [];
  const nodesOf = (c: Config): NodeConfig[] => [...c.nodes, ...demoNodes];
  let nodes = nodesOf(config);
  const dataApiUrlOf = (c: Config) => c.dataApi.url ?? demoDataApi?.url ?? DEFAULT_DATA_API_URL;
  let dataApiUrl = dataApiUrlOf(config);
  // The Data API polls less often than the nodes; its series keep their own max age.
  const maxAgeByNode = new Map([[DATA_API_POLLER_NAME, config.dataApi.maxAgeMs]]);
  // Sources asked less often than every round, and by as much longer their values stay current.
  let minIntervals = sourceMinIntervals(config.poll);
  let reloadState = { ok: true, successMs: Date.now() };
  let webConfigReloadOk = true;

  let exposition: Exposition;
  let rendering: Promise<void> | undefined;
  let dirty = false;
  let renders = 0;
  // performance.now() at the end of the earliest round that no served render includes yet.
  let unservedRoundEnd: number | undefined;
  const freshnessLags: number[] = [];
  const renderWaiters: { afterRender: number; resolve: () => void }[] = [];
  // Readiness and round waits are about the nodes: the Data API is a third party that starts after them.
  const roundsDone = () => nodePollers.every((p) => p.completedRounds > 0);
  // Ready only once the served exposition contains every node's first round,
  // so a scraper told "ready" never gets the empty start-up exposition.
  let servedReady = false;
  const isReady = () => servedReady;

  let lastRender = { nowMs: 0, ready: false, prevSeries: 0 };
  const groupsAt = (nowMs: number, ready: boolean, prevSeries: number, using = assembler) =>
    using.assemble({
      states: store.all(),
      sources: sourceByName,
      nowMs,
      maxAgeMs: config.poll.maxAgeMs,
      maxAgeByNode,
      extraMaxAgeBySource: minIntervals,
      build: BUILD,
      ready,
      extra: [
        ...(dataApi?.network ? collectDataApiStats(dataApi.network, dataApi.client.stats) : []),
        { name: 'avax_exporter_series', labels: {}, value: prevSeries },
        { name: 'avax_exporter_probe_targets', labels: {}, value: probe.size },
        { name: 'avax_exporter_config_last_reload_successful', labels: {}, value: reloadState.ok ? 1 : 0 },
        { name: 'avax_exporter_config_last_reload_success_timestamp_seconds', labels: {}, value: reloadState.successMs / 1000 },
        ...(config.web.configFile ? [{ name: 'avax_exporter_web_config_last_reload_successful' as const, labels: {}, value: webConfigReloadOk ? 1 : 0 }] : []),
      ],
    });
  const renderNow = async () => {
    const covers = unservedRoundEnd;
    unservedRoundEnd = undefined;
    const nowMs = Date.now();
    const ready = roundsDone();
    store.expire(nowMs, config.poll.maxAgeMs, maxAgeByNode, minIntervals);
    // The series count of the exposition being replaced: the new one's is only known once it is rendered.
    const prevSeries = exposition?.series ?? 0;
    try {
      exposition = await renderer.renderGroups(groupsAt(nowMs, ready, prevSeries));
    } catch (err) {
      // Nothing new was served: the next render is still the one that makes these rounds visible.
      if (covers !== undefined) unservedRoundEnd = Math.min(covers, unservedRoundEnd ?? covers);
      throw err;
    }
    lastRender = { nowMs, ready, prevSeries };
    servedReady = ready;
    if (covers !== undefined) {
      freshnessLags.push(performance.now() - covers);
      if (freshnessLags.length > MAX_FRESHNESS_LAGS) freshnessLags.splice(0, freshnessLags.length - MAX_FRESHNESS_LAGS);
    }
    if (renderer.rejected > 0) logger.error({ rejected: renderer.rejected }, 'samples did not match their metric definitions');
    renders++;
    for (const w of renderWaiters.splice(0)) {
      if (renders >= w.afterRender) w.resolve();
      else renderWaiters.push(w);
    }
  };
  // Rounds of several nodes can end together: coalesce them into one render.
  const requestRender = () => {
    if (rendering) {
      dirty = true;
      return;
    }
    rendering = renderNow()
      .catch((err: unknown) => {
        // The last good exposition stays served; nobody waits forever for this one.
        logger.error({ err }, 'render failed');
        renders++;
        for (const w of renderWaiters.splice(0)) w.resolve();
      })
      .finally(() => {
        rendering = undefined;
        if (dirty) {
          dirty = false;
          requestRender();
        }
      });
  };

  let wasReady = false;
  const roundWaiters: { target: number; resolve: () => void }[] = [];
  const onRound = (name: string, transitions: StateTransition[]) => {
    unservedRoundEnd ??= performance.now();
    for (const t of transitions) logTransition(logger, t);
    if (dataApi && name !== DATA_API_POLLER_NAME) {
      const blocked = dataApi.nodesProgressed();
      if (blocked) logger[blocked.waiting ? 'info' : 'warn']({ node: DATA_API_POLLER_NAME }, blocked.message);
      else if (dataApi.running && !dataApiAnnounced) {
        dataApiAnnounced = true;
        logger.info(
          { node: DATA_API_POLLER_NAME, url: redactUrl(dataApiUrl), network: dataApi.network, key: config.dataApi.key ? 'set' : 'none' },
          'Data API polling started',
        );
      }
    }
    if (!wasReady && roundsDone()) {
      wasReady = true;
      logger.info({ nodes: nodes.length }, 'first poll round complete, ready');
    }
    const minRounds = Math.min(...nodePollers.map((p) => p.completedRounds));
    const nextRender = renders + 1 + (rendering ? 1 : 0);
    for (const w of roundWaiters.splice(0)) {
      if (minRounds >= w.target) renderWaiters.push({ afterRender: nextRender, resolve: w.resolve });
      else roundWaiters.push(w);
    }
    requestRender();
  };

  // Network-wide data (the validator set's stake) is fetched by one node for all of its network, as often as a node would.
  const network = new NetworkShared(() => config.poll.intervalMs * SLOW_REFRESH_ROUNDS);
  const makeNodePoller = (node: NodeConfig, cfg: Config = config) =>
    new NodePoller(node, {
      network,
      minIntervalMs: sourceMinIntervals(cfg.poll),
      intervalMs: cfg.poll.intervalMs,
      timeoutMs: cfg.poll.timeoutMs,
      jitter: opts.jitter,
      sources,
      transport,
      store,
      onRound,
    });
  const makeDataApi = (cfg: Config = config, baseUrl = dataApiUrl, nodeList: readonly NodePoller[] = nodePollers) =>
    cfg.dataApi.enabled
      ? new DataApiPoller({
          config: cfg.dataApi,
          baseUrl,
          transport,
          store,
          nodes: nodeList,
          jitter: opts.jitter,
          userAgent: `avax-exporter/${BUILD.version}`,
          onRound,
        })
      : undefined;
  let nodePollers: NodePoller[] = nodes.map((n) => makeNodePoller(n));
  let dataApiAnnounced = false;
  let dataApi = makeDataApi();
  let pollers: PollerHandle[] = [...nodePollers, ...(dataApi ? [dataApi] : [])];
  // /probe: configured nodes from this store, allow-listed URLs through pollers of its own (src/probe/).
  const probe = new ProbeService({
    config: () => config,
    nodes: () => nodes,
    store,
    sources,
    identitySource: IDENTITY_SOURCE,
    transport,
    logger,
    onTransitions: (ts) => ts.forEach((t) => logTransition(logger, t)),
    onTargetsChanged: () => requestRender(),
    // A configured node's probe answer is rendered once per /metrics render.
    generation: () => renders,
  });
  await renderNow();

  /**
   * Applies a new configuration. Nodes whose settings did not change keep
   * their poller (and what it learned); new or changed nodes get a new one;
   * removed nodes are stopped and their series forgotten. Series are kept by
   * node name in the store, so a changed node loses no data either.
   */
  const applyConfig = async (next: Config): Promise<string> => {
    const prevConfig = config;
    const nextNodes = nodesOf(next);
    const pollSame = same(prevConfig.poll, next.poll);
    const byName = new Map(nodePollers.map((p) => [p.node.name, p]));
    const kept = new Map<string, NodePoller>();
    const toStop: PollerHandle[] = [];
    for (const n of nextNodes) {
      const old = byName.get(n.name);
      if (old && pollSame && same(old.node, n)) kept.set(n.name, old);
      else if (old) toStop.push(old);
    }
    const removed = [...byName.keys()].filter((name) => !nextNodes.some((n) => n.name === name));
    for (const name of removed) toStop.push(byName.get(name) as NodePoller);
    const dataApiSame = same(prevConfig.dataApi, next.dataApi) && toStop.length === 0 && nextNodes.length === nodePollers.length;
    // Every new poller is built before anything is stopped: one that cannot be built fails the
    // reload with nothing changed, rather than leaving a stopped poller's last series served.
    const created: PollerHandle[] = [];
    const nextNodePollers = nextNodes.map((n) => {
      const k = kept.get(n.name);
      if (k) return k;
      const p = makeNodePoller(n, next);
      created.push(p);
      return p;
    });
    const nextDataApiUrl = dataApiUrlOf(next);
    const nextDataApi = !dataApiSame || !dataApi ? makeDataApi(next, nextDataApiUrl, nextNodePollers) : dataApi;
    if (nextDataApi && nextDataApi !== dataApi) created.push(nextDataApi);
    if (dataApi && nextDataApi !== dataApi) toStop.push(dataApi);
    config = next;
    await Promise.all(toStop.map((p) => p.stop()));
    for (const name of removed) store.removeNode(name);
    nodes = nextNodes;
    dataApiUrl = nextDataApiUrl;
    maxAgeByNode.set(DATA_API_POLLER_NAME, next.dataApi.maxAgeMs);
    minIntervals = sourceMinIntervals(next.poll);
    nodePollers = nextNodePollers;
    if (nextDataApi !== dataApi) {
      if (!next.dataApi.enabled) store.removeNode(DATA_API_POLLER_NAME);
      dataApiAnnounced = false;
      dataApi = nextDataApi;
    }
    pollers = [...nodePollers, ...(dataApi ? [dataApi] : [])];
    if (opts.autoStart !== false) startSpread(created, next.poll.intervalMs);
    logger.level = next.log.level;
    return `configuration reloaded: ${kept.size} node(s) unchanged, ${created.filter((p) => p !== dataApi).length} started, ${removed.length} removed`;
  };

  let reloading: Promise<{ ok: boolean; message: string }> | undefined;
  const reload = (): Promise<{ ok: boolean; message: string }> => {
    // Reloads never overlap: a second request while one runs gets the same answer.
    reloading ??= (async () => {
      try {
        if (!opts.reloadConfig) throw new Error('this daemon was started without a way to re-read its configuration');
        const next = opts.reloadConfig();
        const fixed = restartOnlyChanges(config, next);
        if (fixed.length) throw new Error(`${fixed.join(', ')} cannot change without a restart`);
        const message = await applyConfig(next);
        reloadState = { ok: true, successMs: Date.now() };
        logger.info({ nodes: nodes.map((n) => n.name) }, message);
        requestRender();
        return { ok: true, message };
      } catch (err) {
        reloadState = { ...reloadState, ok: false };
        const message = `configuration reload failed, the running configuration is kept: ${(err as Error).message}`;
        logger.error(message);
        requestRender();
        return { ok: false, message };
      }
    })().finally(() => {
      // Cleared after the assignment above (a failing reload can settle synchronously).
      reloading = undefined;
    });
    return reloading;
  };

  const server: Server = createExporterServer({
    webConfigFile: config.web.configFile,
    onWebConfigError: (err) => logger.error({ err: err.message }, 'web config reload failed, the previous one is kept'),
    onWebConfigReload: (ok) => {
      if (ok) logger.info({ file: config.web.configFile }, 'web config reloaded');
      if (ok !== webConfigReloadOk) {
        webConfigReloadOk = ok;
        requestRender();
      }
    },
    ...(config.web.enableLifecycle ? { reload } : {}),
    telemetryPath: config.web.telemetryPath,
    status: () => ({
      version: BUILD.version,
      ready: isReady(),
      config: redactConfig(config),
      last_reload_successful: reloadState.ok,
      sources: store.all().map((st) => ({
        node: st.node,
        source: st.source,
        up: st.up ?? null,
        last_success: st.lastSuccessMs === undefined ? null : new Date(st.lastSuccessMs).toISOString(),
        last_error: st.lastError ? { reason: st.lastError.reason, message: st.lastError.message, at: new Date(st.lastError.atMs).toISOString() } : null,
      })),
    }),
    exposition: () => exposition,
    processBlock: () => processMetrics.current(),
    probe: createProbeHandler(probe),
    ready: isReady,
    landing: () =>
      renderLanding({
        telemetryPath: config.web.telemetryPath,
        version: BUILD.version,
        ready: isReady(),
        nodes: [
          ...nodes.map((n) => ({ name: n.name, url: redactUrl(n.url) })),
          ...(dataApi ? [{ name: DATA_API_POLLER_NAME, url: redactUrl(dataApiUrl) }] : []),
        ],
        states: store.all(),
        nowMs: Date.now(),
        // The status view updates itself once per poll round.
        refreshSeconds: config.poll.intervalMs / 1000,
      }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.web.port, config.web.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.web.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info({ address: `${config.web.host ?? ''}:${port}`, telemetry_path: config.web.telemetryPath, nodes: nodes.map((n) => n.name) }, 'listening');
  if (opts.autoStart !== false) startSpread(pollers, config.poll.intervalMs);

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    store,
    get pollers() {
      return pollers;
    },
    reload,
    exposition: () => exposition,
    ready: isReady,
    // Nothing cached: collected and formatted anew, to check the cached path against.
    renderFresh: () => new ExpositionRenderer().renderGroups(groupsAt(lastRender.nowMs, lastRender.ready, lastRender.prevSeries, new SampleAssembler()), false),
    renderCached: () => renderer.renderGroups(groupsAt(lastRender.nowMs, lastRender.ready, lastRender.prevSeries)),
    async pollNow() {
      await Promise.all(nodePollers.map((p) => p.runRound()));
      // A render chain may still be running (or re-running for a late change): wait until it settles.
      while (rendering) await rendering;
    },
    waitForRounds(rounds = 1) {
      const target = Math.min(...nodePollers.map((p) => p.completedRounds)) + rounds;
      return new Promise<void>((resolve) => roundWaiters.push({ target, resolve }));
    },
    freshnessLagsMs: () => freshnessLags.slice(),
    probeRenders: () => probe.renders,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.all([...pollers.map((p) => p.stop()), probe.stop()]);
        // In-flight responses get a moment to finish; then connections are cut so shutdown stays bounded.
        const force = setTimeout(() => server.closeAllConnections(), 2_000);
        await closed;
        clearTimeout(force);
        await rendering;
        await transport.close();
        await demoDataApi?.stop();
        await demo?.stop();
      })();
      return stopping;
    },
  };
}
