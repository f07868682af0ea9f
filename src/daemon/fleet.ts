import type { Config, NodeConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import type { HttpTransport } from '../http/transport.js';
import type { StateStore, StateTransition } from '../state/store.js';
import { allSources, sourceMinIntervals, type SourceCatalog } from '../sources/catalog.js';
import type { PollTiming } from '../sources/source.js';
import { SLOW_REFRESH_ROUNDS } from '../sources/node/source.js';
import { NetworkShared } from '../sources/node/network-shared.js';
import { NodePoller, startSpread, type PollerHandle } from '../scheduler.js';
import { DataApiPoller, DATA_API_POLLER_NAME } from './data-api-poller.js';
import { DEFAULT_DATA_API_URL } from '../config/data-api.js';
import { redactUrl } from '../config/load.js';
import { sameSettings } from '../config/same.js';
import { BUILD } from './build-info.js';
import { logTransition } from './log-transition.js';
import type { DemoUpstreams } from './demo-start.js';

/** Told of every poller's round, around the fleet's own logging of it. */
export interface RoundObserver {
  /** A round just ended (before anything about it is logged). */
  roundEnded(): void;
  /** The round is logged and the fleet's progress updated. */
  roundsAdvanced(): void;
}

/** What a fleet needs. */
export interface FleetOptions {
  config: Config;
  /** The demo's nodes (polled after the configured ones) and Data API, when the daemon runs one. */
  demo: DemoUpstreams;
  /** The sources the daemon was given, by family. */
  sources: SourceCatalog;
  transport: HttpTransport;
  store: StateStore;
  logger: Logger;
  /** Jitter of the poll interval (fraction). */
  jitter: number | undefined;
  /** Whether pollers start their timers (off, rounds run only when a caller runs them). */
  autoStart: boolean;
  rounds: RoundObserver;
}

/**
 * The pollers the running configuration asks for: one per node (configured,
 * then demo), and the Data API's when it is on. Owns the running
 * configuration, so a reload ({@link Fleet.apply}) is one diff: unchanged
 * nodes keep their poller and what it learned.
 */
export class Fleet {
  readonly #opts: FleetOptions;
  #config: Config;
  #nodes: NodeConfig[];
  #dataApiUrl: string;
  #nodePollers: NodePoller[];
  #dataApi: DataApiPoller | undefined;
  #dataApiAnnounced = false;
  #wasReady = false;
  // Network-wide data (the validator set's stake) is fetched by one node for all of its network, as often as a node would.
  readonly #network: NetworkShared;
  readonly #maxAgeByNode: Map<string, number>;
  #minIntervals: ReadonlyMap<string, number>;

  constructor(opts: FleetOptions) {
    this.#opts = opts;
    this.#config = opts.config;
    this.#network = new NetworkShared(() => this.#config.poll.intervalMs * SLOW_REFRESH_ROUNDS);
    this.#nodes = this.#nodesOf(opts.config);
    this.#dataApiUrl = this.#dataApiUrlOf(opts.config);
    this.#maxAgeByNode = new Map([[DATA_API_POLLER_NAME, opts.config.dataApi.maxAgeMs]]);
    this.#minIntervals = this.#minIntervalsOf(opts.config.poll);
    this.#nodePollers = this.#nodes.map((n) => this.#makeNodePoller(n, opts.config));
    this.#dataApi = this.#makeDataApi(opts.config, this.#dataApiUrl, this.#nodePollers);
  }

  /** The running configuration. */
  get config(): Config {
    return this.#config;
  }

  /** The polled nodes: configured, then demo. */
  get nodes(): readonly NodeConfig[] {
    return this.#nodes;
  }

  get nodePollers(): readonly NodePoller[] {
    return this.#nodePollers;
  }

  /** The Data API's poller, when it is on. */
  get dataApi(): DataApiPoller | undefined {
    return this.#dataApi;
  }

  /** The Data API base URL polled (the configured one, the demo's, or the public service). */
  get dataApiUrl(): string {
    return this.#dataApiUrl;
  }

  /** Node pollers first, in config order, then any other poller. */
  get pollers(): readonly PollerHandle[] {
    return [...this.#nodePollers, ...(this.#dataApi ? [this.#dataApi] : [])];
  }

  /** Max age of a pseudo-node's series where it differs from the nodes': the Data API polls less often than the nodes. */
  get maxAgeByNode(): ReadonlyMap<string, number> {
    // The Data API's rounds may be spread out to fit its rate limit (DataApiPoller.plan); its series are kept as much longer.
    if (this.#dataApi) this.#maxAgeByNode.set(DATA_API_POLLER_NAME, this.#dataApi.maxAgeMs);
    return this.#maxAgeByNode;
  }

  /** Sources asked less often than every round, and by as much longer their values stay current. */
  get minIntervals(): ReadonlyMap<string, number> {
    return this.#minIntervals;
  }

  /** Completed rounds of each node poller. */
  nodeRounds(): number[] {
    return this.#nodePollers.map((p) => p.completedRounds);
  }

  /** Starts every poller, spread over the first interval (unless the daemon drives rounds itself). */
  start(): void {
    if (this.#opts.autoStart) startSpread(this.pollers, this.#config.poll.intervalMs);
  }

  /** Stops every poller. */
  async stop(): Promise<void> {
    await Promise.all(this.pollers.map((p) => p.stop()));
  }

  /**
   * Applies a new configuration. Nodes whose settings did not change keep
   * their poller (and what it learned); new or changed nodes get a new one;
   * removed nodes are stopped and their series forgotten. Series are kept by
   * node name in the store, so a changed node loses no data either. Returns
   * the line to log.
   */
  async apply(next: Config): Promise<string> {
    const { store } = this.#opts;
    const prevConfig = this.#config;
    const nextNodes = this.#nodesOf(next);
    const pollSame = sameSettings(prevConfig.poll, next.poll);
    const byName = new Map(this.#nodePollers.map((p) => [p.node.name, p]));
    const kept = new Map<string, NodePoller>();
    const toStop: PollerHandle[] = [];
    for (const n of nextNodes) {
      const old = byName.get(n.name);
      if (old && pollSame && sameSettings(old.node, n)) kept.set(n.name, old);
      else if (old) toStop.push(old);
    }
    const removed = [...byName.keys()].filter((name) => !nextNodes.some((n) => n.name === name));
    for (const name of removed) toStop.push(byName.get(name) as NodePoller);
    const dataApiSame = sameSettings(prevConfig.dataApi, next.dataApi) && toStop.length === 0 && nextNodes.length === this.#nodePollers.length;
    // Every new poller is built before anything is stopped: one that cannot be built fails the
    // reload with nothing changed, rather than leaving a stopped poller's last series served.
    const created: PollerHandle[] = [];
    const nextNodePollers = nextNodes.map((n) => {
      const k = kept.get(n.name);
      if (k) return k;
      const p = this.#makeNodePoller(n, next);
      created.push(p);
      return p;
    });
    const nextDataApiUrl = this.#dataApiUrlOf(next);
    const dataApi = this.#dataApi;
    const nextDataApi = !dataApiSame || !dataApi ? this.#makeDataApi(next, nextDataApiUrl, nextNodePollers) : dataApi;
    if (nextDataApi && nextDataApi !== dataApi) created.push(nextDataApi);
    if (dataApi && nextDataApi !== dataApi) toStop.push(dataApi);
    this.#config = next;
    await Promise.all(toStop.map((p) => p.stop()));
    for (const name of removed) store.removeNode(name);
    this.#nodes = nextNodes;
    this.#dataApiUrl = nextDataApiUrl;
    this.#maxAgeByNode.set(DATA_API_POLLER_NAME, next.dataApi.maxAgeMs);
    this.#minIntervals = this.#minIntervalsOf(next.poll);
    this.#nodePollers = nextNodePollers;
    if (nextDataApi !== dataApi) {
      if (!next.dataApi.enabled) store.removeNode(DATA_API_POLLER_NAME);
      this.#dataApiAnnounced = false;
      this.#dataApi = nextDataApi;
    }
    if (this.#opts.autoStart) startSpread(created, next.poll.intervalMs);
    this.#opts.logger.level = next.log.level;
    return `configuration reloaded: ${kept.size} node(s) unchanged, ${created.filter((p) => p !== this.#dataApi).length} started, ${removed.length} removed`;
  }

  readonly #onRound = (name: string, transitions: StateTransition[]): void => {
    const { logger, rounds } = this.#opts;
    rounds.roundEnded();
    for (const t of transitions) logTransition(logger, t);
    const dataApi = this.#dataApi;
    if (dataApi) {
      // After any round, not only the Data API's: its plan is made as its round starts, and a round spread over many minutes ends late.
      const stretched = dataApi.stretched();
      if (stretched)
        logger.warn(
          { node: DATA_API_POLLER_NAME, requests: dataApi.plan?.need, capacity: dataApi.plan?.capacity, interval_ms: dataApi.plan?.intervalMs },
          stretched,
        );
    }
    if (dataApi && name !== DATA_API_POLLER_NAME) {
      const blocked = dataApi.nodesProgressed();
      if (blocked) logger[blocked.waiting ? 'info' : 'warn']({ node: DATA_API_POLLER_NAME }, blocked.message);
      else if (dataApi.running && !this.#dataApiAnnounced) {
        this.#dataApiAnnounced = true;
        logger.info(
          { node: DATA_API_POLLER_NAME, url: redactUrl(this.#dataApiUrl), network: dataApi.network, key: this.#config.dataApi.key ? 'set' : 'none' },
          'Data API polling started',
        );
      }
    }
    if (!this.#wasReady && this.#nodePollers.every((p) => p.completedRounds > 0)) {
      this.#wasReady = true;
      logger.info({ nodes: this.#nodes.length }, 'first poll round complete, ready');
    }
    rounds.roundsAdvanced();
  };

  /** Least intervals of the sources this fleet polls (the daemon's, not the product's). */
  #minIntervalsOf(poll: PollTiming): ReadonlyMap<string, number> {
    return sourceMinIntervals(poll, allSources(this.#opts.sources));
  }

  #nodesOf(c: Config): NodeConfig[] {
    return [...c.nodes, ...this.#opts.demo.nodes];
  }

  #dataApiUrlOf(c: Config): string {
    return c.dataApi.url ?? this.#opts.demo.dataApiUrl ?? DEFAULT_DATA_API_URL;
  }

  #makeNodePoller(node: NodeConfig, cfg: Config): NodePoller {
    const { sources, transport, store, jitter } = this.#opts;
    return new NodePoller(node, {
      network: this.#network,
      minIntervalMs: this.#minIntervalsOf(cfg.poll),
      intervalMs: cfg.poll.intervalMs,
      timeoutMs: cfg.poll.timeoutMs,
      jitter,
      sources: sources.node,
      transport,
      store,
      onRound: this.#onRound,
    });
  }

  #makeDataApi(cfg: Config, baseUrl: string, nodeList: readonly NodePoller[]): DataApiPoller | undefined {
    const { sources, transport, store, jitter } = this.#opts;
    return cfg.dataApi.enabled
      ? new DataApiPoller({
          // The demo's Data API is a local fake with no limit of its own: the public service's rate
          // limit would only slow the demo down (its three watched ids ask 18 requests a round, five
          // per id and three heads, spaced a second apart at the default limit).
          config:
            baseUrl === this.#opts.demo.dataApiUrl ? { ...cfg.dataApi, rateLimitPerMinute: Math.max(cfg.dataApi.rateLimitPerMinute, 6_000) } : cfg.dataApi,
          sources: sources.dataApi,
          minIntervalMs: this.#minIntervalsOf(cfg.poll),
          baseUrl,
          transport,
          store,
          nodes: nodeList,
          probeNodeIds: [...new Set(cfg.probe.targets.flatMap((t) => t.watch.nodeIds))],
          jitter,
          userAgent: `avax-exporter/${BUILD.version}`,
          onRound: this.#onRound,
        })
      : undefined;
  }
}
