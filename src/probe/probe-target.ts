import type { Config, NodeConfig } from '../config/load.js';
import type { Exposition } from '../exposition/render.js';
import type { HttpTransport } from '../http/transport.js';
import { NodePoller } from '../scheduler.js';
import { sourceMinIntervals } from '../sources/catalog.js';
import type { NetworkShared } from '../sources/node/network-shared.js';
import type { NodeSourceDef } from '../sources/node/source.js';
import { StateStore, type StateTransition } from '../state/store.js';

/** What a probe-only target needs of the probe service. */
export interface ProbeTargetOptions {
  sources: readonly NodeSourceDef<unknown>[];
  transport: HttpTransport;
  /** Network-wide data (the primary validator set) shared by every probe-only target of a network. */
  network: NetworkShared;
  onTransitions?: (transitions: StateTransition[]) => void;
}

/** A probe-only URL: its own poller and state, polled only when probed. */
export class ProbeTarget {
  readonly store = new StateStore();
  readonly poller: NodePoller;
  lastRoundStartMs: number | undefined;
  lastProbeMs = 0;
  /** Probes of it so far. */
  probes = 0;
  /** The last answer, valid while no round runs and none completed since. */
  answer: { rounds: number; exposition: Promise<Exposition> } | undefined;
  #inflight: Promise<void> | undefined;

  /** Whether a poll round is running. */
  get polling(): boolean {
    return this.#inflight !== undefined;
  }

  constructor(
    readonly node: NodeConfig,
    readonly poll: Config['poll'],
    opts: ProbeTargetOptions,
  ) {
    this.poller = new NodePoller(node, {
      minIntervalMs: sourceMinIntervals(poll, opts.sources),
      intervalMs: poll.intervalMs,
      timeoutMs: poll.timeoutMs,
      sources: opts.sources,
      transport: opts.transport,
      store: this.store,
      // The primary validator set is the network's, not the node's: one fetch serves every target of that network
      // while it is fresh, as in a fleet (each target fetching its own copy made 1,000 first probes parse 1,000 sets).
      network: opts.network,
      onRound: (_name, transitions) => opts.onTransitions?.(transitions),
    });
  }

  /**
   * The round a probe waits for: the one in flight (single flight: concurrent
   * probes share it), else a new one unless the last started less than a poll
   * interval ago, so scrapes never load a node more than the poller would.
   */
  refresh(nowMs: number): Promise<void> {
    if (this.#inflight) return this.#inflight;
    if (this.lastRoundStartMs !== undefined && nowMs - this.lastRoundStartMs < this.poll.intervalMs) return Promise.resolve();
    this.lastRoundStartMs = nowMs;
    const round = this.poller.runRound().finally(() => {
      if (this.#inflight === round) this.#inflight = undefined;
    });
    this.#inflight = round;
    return round;
  }
}

/** Resolves with true once `p` settles, or with false after `ms`, whichever comes first. */
export async function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A counting semaphore: at most `limit` tasks run at once, the rest wait in order. */
export class Limiter {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
