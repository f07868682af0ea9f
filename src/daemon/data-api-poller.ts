import type { DataApiConfig } from '../config/load.js';
import type { HttpTransport } from '../http/transport.js';
import { makeRedactor, secretsOf } from '../http/redact.js';
import { Poller, type NodePoller } from '../scheduler.js';
import type { StateStore, StateTransition } from '../state/store.js';
import { DataApiClient, dataApiNetworkOf, networkIdOf, type DataApiNetwork } from '../data-api/client.js';
import type { DataApiAsked, DataApiContext, DataApiSourceDef } from '../sources/data-api/source.js';
import { writeDuration } from '../config/duration.js';
import { slowPollerMaxAgeMs } from '../config/max-age.js';

/** The poller's name: the `node` label of the Data API sources' self-metrics. */
export const DATA_API_POLLER_NAME = 'data_api';

/**
 * Share of its interval a Data API round may last. The client-side limit is a
 * rate: a round cut off at the poll timeout could send one burst plus the rate
 * times the timeout (10 + 10 of the 60 requests a minute the defaults allow:
 * from four watched ids on, a source failed as `rate_limited` every round while
 * most of the budget went unused). Rounds never overlap (the next is scheduled
 * after one ends); the rest of the interval is for its jitter.
 */
export const DATA_API_ROUND_SHARE = 0.9;

/** How long one Data API round may last: most of its interval, and at least the poll timeout. */
export function dataApiRoundMs(config: Pick<DataApiConfig, 'intervalMs' | 'timeoutMs'>): number {
  return Math.max(config.timeoutMs, Math.floor(config.intervalMs * DATA_API_ROUND_SHARE));
}

/** What bounds a Data API round's requests: the rate limit, and the configured interval and poll timeout. */
export interface DataApiLimit {
  perMinute: number;
  intervalMs: number;
  timeoutMs: number;
}

/**
 * Requests a round at this interval can send under the limit, round after
 * round: the rate over the round's share of the interval. Not a burst more:
 * a round that used it would leave the bucket short when the next begins (it
 * refills at the rate, and a round spaced a jittered interval later would not
 * have the burst back); the burst is rather the margin that lets every round
 * start with a full bucket.
 */
function capacityAt(limit: DataApiLimit, intervalMs: number): number {
  return Math.floor((limit.perMinute * intervalMs * DATA_API_ROUND_SHARE) / 60_000);
}

/** A Data API round's need, weighed against what the rate limit lets one round send. */
export interface DataApiRoundPlan {
  /** The fewest requests the round sends (one page per listing), by source. */
  bySource: ReadonlyMap<string, number>;
  /** Their sum. */
  need: number;
  asked: DataApiAsked;
  /** Requests a round at the configured interval can send. */
  capacity: number;
  /** The interval the rounds keep: the configured one, or, when a round there cannot fit, the shortest (in whole seconds) where it does. */
  intervalMs: number;
  /** How long this round may last: {@link dataApiRoundMs} at that interval. */
  roundMs: number;
}

/**
 * Weighs a round's requests against the limit and sets the interval that
 * fits them. Pure. A round that cannot fit would fail the sources whose turn
 * comes last as `rate_limited` every round (AvaxSourceDown for a fleet of
 * more than 10 nodes with the Data API on and the defaults); the rate limit
 * is what the service allows, so what it buys is kept and spread: the rounds
 * come less often, and every source stays up.
 */
export function planRound(
  sources: readonly Pick<DataApiSourceDef<unknown>, 'name' | 'requestsPerPoll'>[],
  asked: DataApiAsked,
  limit: DataApiLimit,
): DataApiRoundPlan {
  const bySource = new Map(sources.map((s) => [s.name, s.requestsPerPoll(asked)]));
  const need = [...bySource.values()].reduce((a, b) => a + b, 0);
  let intervalMs = limit.intervalMs;
  if (capacityAt(limit, intervalMs) < need) {
    // need <= rate × share × interval, in whole seconds; then checked against the rounding.
    intervalMs = Math.max(intervalMs, Math.ceil((need * 60_000) / (limit.perMinute * DATA_API_ROUND_SHARE) / 1000) * 1000);
    while (capacityAt(limit, intervalMs) < need) intervalMs += 1000;
  }
  return {
    bySource,
    need,
    asked,
    capacity: capacityAt(limit, limit.intervalMs),
    intervalMs,
    roundMs: dataApiRoundMs({ intervalMs, timeoutMs: limit.timeoutMs }),
  };
}

/**
 * What to tell an operator whose Data API rounds were spread out to fit the
 * rate limit: the figures, the interval in force, and the limit that would
 * give the configured one. Undefined when the configured interval fits.
 */
export function describeStretch(
  plan: DataApiRoundPlan,
  config: Pick<DataApiConfig, 'rateLimitPerMinute' | 'intervalMs' | 'maxAgeMs' | 'key'>,
): string | undefined {
  if (plan.intervalMs <= config.intervalMs) return undefined;
  const parts = [...plan.bySource].filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
  const perMinute = Math.ceil((plan.need * 60_000) / (config.intervalMs * DATA_API_ROUND_SHARE));
  return (
    `a Data API round needs at least ${plan.need} requests (${parts.join(', ')}; ${plan.asked.nodeIds} watched node id(s)), ` +
    `more than the ${plan.capacity} the rate limit of ${config.rateLimitPerMinute}/min lets a round every ${writeDuration(config.intervalMs)} send: ` +
    `the Data API is polled every ${writeDuration(plan.intervalMs)} instead, and its series are kept for ${writeDuration(slowPollerMaxAgeMs(config.maxAgeMs, plan.intervalMs))}. ` +
    `For a round every ${writeDuration(config.intervalMs)}, set data_api.rate_limit to at least ${perMinute}` +
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
  readonly #facts: { network?: DataApiNetwork; nodeIds?: string[] };
  readonly #config: DataApiConfig;
  readonly #limit: DataApiLimit;
  readonly #polled: readonly DataApiSourceDef<unknown>[];
  readonly #probeNodeIds: readonly string[] | undefined;
  #plan: DataApiRoundPlan | undefined;
  #lastStretch: string | undefined;
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
      // A round may wait most of its interval for the rate limit's slots; each answer, only the poll timeout.
      attemptTimeoutMs: opts.config.timeoutMs,
      ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
    });
    const facts: { network?: DataApiNetwork; nodeIds?: string[] } = {};
    const addresses = opts.config.addresses ?? [];
    // A source with nothing to ask is not polled, rather than reporting "up" for requests never sent.
    const polled = opts.sources.filter((src) => src.appliesTo?.(opts.config) ?? true);
    super({
      // The key (and any credentials in the URL) must not come back through an echoing error body.
      redact: makeRedactor(secretsOf({ url: opts.baseUrl, values: [opts.config.key] })),
      name: DATA_API_POLLER_NAME,
      // Both as configured; each round's own are its plan's (roundIntervalMs, roundTimeoutMs below).
      intervalMs: opts.config.intervalMs,
      timeoutMs: dataApiRoundMs(opts.config),
      jitter: opts.jitter,
      sources: polled,
      ...(opts.minIntervalMs ? { minIntervalMs: opts.minIntervalMs } : {}),
      store: opts.store,
      onRound: opts.onRound,
      makeContext: (deadline, round) => {
        // Only called once started, which needs the network; the ids are the ones the round's plan counted.
        const network = facts.network as DataApiNetwork;
        const nodeIds = facts.nodeIds ?? watchedNodeIds(opts.nodes, network, opts.probeNodeIds);
        return { deadline, round, client, network, nodeIds, maxPages: opts.config.maxPages, addresses };
      },
    });
    this.client = client;
    this.#facts = facts;
    this.#config = opts.config;
    this.#limit = {
      perMinute: opts.config.rateLimitPerMinute,
      intervalMs: opts.config.intervalMs,
      timeoutMs: opts.config.timeoutMs,
    };
    this.#polled = polled;
    this.#probeNodeIds = opts.probeNodeIds;
    this.#nodes = opts.nodes;
    this.#configured = opts.config.network;
  }

  /** The network the Data API is asked about, once chosen. */
  get network(): DataApiNetwork | undefined {
    return this.#facts.network;
  }

  /** The last round's need against the rate limit (undefined before the first round). */
  get plan(): DataApiRoundPlan | undefined {
    return this.#plan;
  }

  /** Age after which the Data API's series are dropped: the configured max age, or three of the rounds' longer interval. */
  get maxAgeMs(): number {
    return slowPollerMaxAgeMs(this.#config.maxAgeMs, this.roundIntervalMs());
  }

  /** Plans the round about to start: the ids it asks about, and the interval and deadline that fit its requests. */
  protected override roundTimeoutMs(): number {
    const network = this.#facts.network;
    if (network === undefined) return super.roundTimeoutMs();
    const nodeIds = watchedNodeIds(this.#nodes, network, this.#probeNodeIds);
    this.#facts.nodeIds = nodeIds;
    this.#plan = planRound(this.#polled, { nodeIds: nodeIds.length, addresses: this.#config.addresses?.length ?? 0 }, this.#limit);
    return this.#plan.roundMs;
  }

  protected override roundIntervalMs(): number {
    return this.#plan?.intervalMs ?? super.roundIntervalMs();
  }

  /**
   * To be called after each Data API round: a line worth a warning when the
   * rounds were spread out to fit the rate limit, once per distinct plan
   * (the watched ids change as nodes report theirs).
   */
  stretched(): string | undefined {
    const message = this.#plan && describeStretch(this.#plan, this.#config);
    if (message === this.#lastStretch) return undefined;
    this.#lastStretch = message;
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
