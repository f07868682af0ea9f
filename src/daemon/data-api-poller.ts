import type { DataApiConfig } from '../config/load.js';
import type { HttpTransport } from '../http/transport.js';
import { makeRedactor, secretsOf } from '../http/redact.js';
import { Poller, type NodePoller } from '../scheduler.js';
import type { StateStore, StateTransition } from '../state/store.js';
import { DataApiClient, dataApiNetworkOf, networkIdOf, type DataApiNetwork } from '../data-api/client.js';
import type { DataApiAsked, DataApiContext, DataApiSourceDef } from '../sources/data-api/source.js';
import { writeDuration } from '../config/duration.js';

/** The poller's name: the `node` label of the Data API sources' self-metrics. */
export const DATA_API_POLLER_NAME = 'data_api';

/**
 * Share of its interval a Data API round may last. The client-side limit is a
 * rate: a round cut off at the poll timeout could send one burst plus the rate
 * times the timeout (10 + 10 of the 60 requests a minute the defaults allow),
 * and a round that needs more, from four watched ids up, would fail as
 * `rate_limited` every time while most of the budget goes unused. Rounds never
 * overlap (the next is scheduled after one ends); the rest of the interval is
 * for its jitter.
 */
export const DATA_API_ROUND_SHARE = 0.9;

/** How long one Data API round may last: most of its interval, and at least the poll timeout. */
export function dataApiRoundMs(config: Pick<DataApiConfig, 'intervalMs' | 'timeoutMs'>): number {
  return Math.max(config.timeoutMs, Math.floor(config.intervalMs * DATA_API_ROUND_SHARE));
}

/** A Data API round's need, weighed against what the rate limit lets one round send. */
export interface DataApiRoundPlan {
  /** The fewest requests the round sends (one page per listing), by source. */
  bySource: ReadonlyMap<string, number>;
  /** Their sum. */
  need: number;
  /** Requests the rate limit lets one round send: a burst, then the rate over the round's length. */
  capacity: number;
  asked: DataApiAsked;
}

/** Weighs a round's requests against the limit. Pure. */
export function planRound(
  sources: readonly Pick<DataApiSourceDef<unknown>, 'name' | 'requestsPerPoll'>[],
  asked: DataApiAsked,
  limit: { perMinute: number; burst: number; roundMs: number },
): DataApiRoundPlan {
  const bySource = new Map(sources.map((s) => [s.name, s.requestsPerPoll(asked)]));
  const need = [...bySource.values()].reduce((a, b) => a + b, 0);
  return { bySource, need, capacity: limit.burst + Math.floor((limit.perMinute * limit.roundMs) / 60_000), asked };
}

/**
 * What to tell an operator whose Data API round cannot fit its rate limit:
 * the figures, and the settings that would make it fit (the interval computed
 * for the current limit). Undefined when it fits.
 */
export function describeOverBudget(
  plan: DataApiRoundPlan,
  config: Pick<DataApiConfig, 'rateLimitPerMinute' | 'intervalMs' | 'key'>,
  roundMs: number,
): string | undefined {
  if (plan.need <= plan.capacity) return undefined;
  const parts = [...plan.bySource].filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
  const burst = plan.capacity - Math.floor((config.rateLimitPerMinute * roundMs) / 60_000);
  // need <= burst + rate × share × interval: the shortest interval that fits at this limit (whole seconds), and the least limit at this interval.
  const intervalMs = Math.ceil(((plan.need - burst) * 60_000) / (config.rateLimitPerMinute * DATA_API_ROUND_SHARE) / 1000) * 1000;
  const perMinute = Math.ceil(((plan.need - burst) * 60_000) / roundMs);
  return (
    `a Data API round needs at least ${plan.need} requests (${parts.join(', ')}; ${plan.asked.nodeIds} watched node id(s)), ` +
    `but the rate limit of ${config.rateLimitPerMinute}/min lets a round of ${writeDuration(roundMs)} send ${plan.capacity}: ` +
    `the requests past that are not sent and their sources fail as rate_limited every round. ` +
    `Set data_api.interval to at least ${writeDuration(intervalMs)}, or data_api.rate_limit to at least ${perMinute}` +
    `${config.key === undefined ? ' (an API key raises what the service allows)' : ' (within what the service allows your key)'}, or watch fewer node ids`
  );
}

/** What a node poller tells the Data API about its node. */
type NodeFacts = Pick<NodePoller, 'node' | 'known' | 'completedRounds'>;

/** The network to ask the Data API about, or why there is none (yet). */
export type NetworkChoice = { network: DataApiNetwork } | { network?: undefined; waiting: boolean; problem: string };

/**
 * The configured network, else the network of the first node (in config
 * order) that has reported its id. Never a guess: until a node has answered,
 * or when its network is not one the Data API serves, there is none.
 */
export function chooseNetwork(configured: DataApiNetwork | undefined, nodes: readonly NodeFacts[]): NetworkChoice {
  if (configured) return { network: configured };
  const first = nodes.find((n) => n.known.networkId !== undefined);
  if (first?.known.networkId === undefined) {
    return { waiting: true, problem: 'Data API polling waits until a node reports its network id (set --data-api.network to start without one)' };
  }
  const network = dataApiNetworkOf(first.known.networkId);
  if (network) return { network };
  return {
    waiting: false,
    problem: `node ${first.node.name} is on network id ${first.known.networkId}, which the Data API does not serve (it serves 1 mainnet and 5 fuji); set --data-api.network to poll it anyway`,
  };
}

/**
 * The validator ids to ask the Data API about: each node's watch list, or the
 * node's own id once it is known, and `extra` (the ids the `/probe` targets
 * watch: in probe or sharded mode the nodes are probe targets, not configured
 * nodes, and would otherwise leave the Data API nothing to ask). A node's own
 * id is only about the network that node is on, so it is left out when that
 * is not the Data API's network.
 */
export function watchedNodeIds(nodes: readonly NodeFacts[], network: DataApiNetwork, extra: readonly string[] = []): string[] {
  const ids = new Set<string>(extra);
  for (const n of nodes) {
    if (n.node.watch.nodeIds.length > 0) for (const id of n.node.watch.nodeIds) ids.add(id);
    else if (n.known.nodeId !== undefined && n.known.networkId === networkIdOf(network)) ids.add(n.known.nodeId);
  }
  return [...ids];
}

/** What a Data API poller needs. */
export interface DataApiPollerOptions {
  config: DataApiConfig;
  /** The Data API sources to poll (the daemon's catalog's), in round order. */
  sources: readonly DataApiSourceDef<unknown>[];
  /** Least time between two polls of a source, by source name (see PollerOptions). */
  minIntervalMs?: ReadonlyMap<string, number>;
  /** Base URL actually called (the configured one, the public service, or the demo's fake). */
  baseUrl: string;
  transport: HttpTransport;
  store: StateStore;
  /** The node pollers whose node ids and network it follows. */
  nodes: readonly NodeFacts[];
  /** Validator ids the `/probe` targets watch (the global `--watch.node-id`), asked about as well. */
  probeNodeIds?: readonly string[];
  jitter?: number;
  userAgent?: string;
  onRound: (name: string, transitions: StateTransition[]) => void;
}

/**
 * Polls the Avalanche Data API on its own interval, as the pseudo-node
 * `data_api`. It needs a network and node ids, which the node pollers learn
 * in their first round, so {@link DataApiPoller.start} only arms it: it starts
 * once every node has completed a round ({@link DataApiPoller.nodesProgressed})
 * and the network is known, and not at all on a network the service does not
 * serve. The network then stays fixed for the poller's life.
 */
export class DataApiPoller extends Poller<DataApiContext, DataApiSourceDef<unknown>> {
  readonly client: DataApiClient;
  readonly #facts: { network?: DataApiNetwork; plan?: DataApiRoundPlan };
  readonly #roundMs: number;
  readonly #config: DataApiConfig;
  #lastOverBudget: string | undefined;
  readonly #nodes: readonly NodeFacts[];
  readonly #configured: DataApiNetwork | undefined;
  #armed = false;
  #running = false;
  #lastProblem: string | undefined;

  constructor(opts: DataApiPollerOptions) {
    const client = new DataApiClient({
      transport: opts.transport,
      baseUrl: opts.baseUrl,
      apiKey: opts.config.key,
      keyHeader: opts.config.keyHeader,
      ratePerMinute: opts.config.rateLimitPerMinute,
      attemptTimeoutMs: opts.config.timeoutMs,
      ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
    });
    const facts: { network?: DataApiNetwork; plan?: DataApiRoundPlan } = {};
    const addresses = opts.config.addresses ?? [];
    // A source with nothing to ask is not polled, rather than reporting "up" for requests never sent.
    const polled = opts.sources.filter((src) => src.appliesTo?.(opts.config) ?? true);
    const roundMs = dataApiRoundMs(opts.config);
    const limit = { perMinute: opts.config.rateLimitPerMinute, burst: client.bucket.burst, roundMs };
    super({
      // The key (and any credentials in the URL) must not come back through an echoing error body.
      redact: makeRedactor(secretsOf({ url: opts.baseUrl, values: [opts.config.key] })),
      name: DATA_API_POLLER_NAME,
      intervalMs: opts.config.intervalMs,
      // Waiting for the rate limit's next slot may take most of the interval; each answer, only the poll timeout.
      timeoutMs: dataApiRoundMs(opts.config),
      jitter: opts.jitter,
      sources: polled,
      ...(opts.minIntervalMs ? { minIntervalMs: opts.minIntervalMs } : {}),
      store: opts.store,
      onRound: opts.onRound,
      makeContext: (deadline, round) => {
        // Only called once started, which needs the network.
        const network = facts.network as DataApiNetwork;
        const nodeIds = watchedNodeIds(opts.nodes, network, opts.probeNodeIds);
        facts.plan = planRound(polled, { nodeIds: nodeIds.length, addresses: addresses.length }, limit);
        return { deadline, round, client, network, nodeIds, maxPages: opts.config.maxPages, addresses };
      },
    });
    this.client = client;
    this.#facts = facts;
    this.#roundMs = roundMs;
    this.#config = opts.config;
    this.#nodes = opts.nodes;
    this.#configured = opts.config.network;
  }

  /** The network the Data API is asked about, once chosen. */
  get network(): DataApiNetwork | undefined {
    return this.#facts.network;
  }

  /** The last round's need against the rate limit (undefined before the first round). */
  get plan(): DataApiRoundPlan | undefined {
    return this.#facts.plan;
  }

  /**
   * To be called after each Data API round: a line worth a warning when the
   * round's requests cannot fit the rate limit, once per distinct shortfall
   * (the watched ids change as nodes report theirs).
   */
  overBudget(): string | undefined {
    const plan = this.#facts.plan;
    const message = plan && describeOverBudget(plan, this.#config, this.#roundMs);
    if (message === this.#lastOverBudget) return undefined;
    this.#lastOverBudget = message;
    return message;
  }

  /** Whether polling has begun. */
  get running(): boolean {
    return this.#running;
  }

  /** Arms the poller; it begins polling as soon as it can. */
  override start(): void {
    this.#armed = true;
    this.nodesProgressed();
  }

  /**
   * To be called after each node round: begins polling when every node has
   * completed a round and the network is known. Returns a line worth logging
   * when it cannot begin, once per distinct reason.
   */
  nodesProgressed(): { message: string; waiting: boolean } | undefined {
    if (!this.#armed || this.#running) return undefined;
    if (!this.#nodes.every((n) => n.completedRounds > 0)) return undefined;
    const choice = chooseNetwork(this.#configured, this.#nodes);
    if (choice.network === undefined) {
      if (choice.problem === this.#lastProblem) return undefined;
      this.#lastProblem = choice.problem;
      return { message: choice.problem, waiting: choice.waiting };
    }
    this.#facts.network = choice.network;
    this.#running = true;
    super.start();
    return undefined;
  }

  override async stop(): Promise<void> {
    this.#armed = false;
    await super.stop();
  }
}
