import { setMaxListeners } from 'node:events';
import type { NodeConfig } from './config/load.js';
import { UpstreamError, toUpstreamError } from './http/errors.js';
import { JsonRpcClient, type Deadline } from './http/json-rpc.js';
import type { HttpTransport } from './http/transport.js';
import type { KnownNodeFacts, PollContext, SourceDef } from './sources/source.js';
import { describeChanges } from './state/changes.js';
import type { StateStore, StateTransition } from './state/store.js';

/** What the scheduler needs to know about time and sources. */
export interface SchedulerOptions {
  intervalMs: number;
  timeoutMs: number;
  /** Fraction of the interval by which each wait is randomly shifted (spreads load across nodes). */
  jitter?: number;
  sources: readonly SourceDef<unknown>[];
  /** Name of the source that runs first and identifies the node. */
  identitySource: string;
  transport: HttpTransport;
  store: StateStore;
  /** Called after every completed round of a node. */
  onRound: (node: string, transitions: StateTransition[]) => void;
}

/** Splits user:password out of a node URL into a Basic Authorization header (undici does not send URL credentials). */
export function splitCredentials(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  const u = new URL(url);
  if (!u.username && !u.password) return { url, headers };
  const auth = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
  u.username = '';
  u.password = '';
  const hasAuth = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
  return { url: u.toString().replace(/\/$/, ''), headers: hasAuth ? headers : { ...headers, authorization: `Basic ${auth}` } };
}

/** A source's failure as an UpstreamError; a bug in our own code is not a network problem, so it counts as invalid_response. */
function classifyPollError(err: unknown, aborted: boolean): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (aborted) return toUpstreamError(err, true);
  return new UpstreamError('invalid_response', `could not process the response: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/**
 * Polls one node: rounds never overlap, each round has one deadline that every
 * call and retry shares, and the next round starts one interval (with jitter)
 * after the previous one started, or at once if it overran.
 */
export class NodePoller {
  readonly known: KnownNodeFacts = {};
  #round = 0;
  #timer: NodeJS.Timeout | undefined;
  #inflight: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #stopped = false;
  readonly #rpc: JsonRpcClient;
  readonly #baseUrl: string;
  readonly #headers: Record<string, string>;
  /** Rounds completed so far. */
  completedRounds = 0;

  constructor(
    readonly node: NodeConfig,
    private readonly opts: SchedulerOptions,
  ) {
    const { url, headers } = splitCredentials(node.url, node.headers);
    this.#baseUrl = url;
    this.#headers = headers;
    this.#rpc = new JsonRpcClient(opts.transport, url, headers);
  }

  /** Starts polling now. */
  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const started = Date.now();
      this.#inflight = this.runRound().finally(() => {
        this.#inflight = undefined;
        const jitter = (this.opts.jitter ?? 0.05) * this.opts.intervalMs * (Math.random() * 2 - 1);
        const next = Math.max(0, started + this.opts.intervalMs + jitter - Date.now());
        this.#schedule(next);
      });
    }, delayMs);
  }

  /** Stops polling and aborts the round in flight; resolves once it has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort?.abort(new Error('exporter shutting down'));
    await this.#inflight;
  }

  /** Runs one poll round of every source. Never throws: failures are recorded as state. */
  async runRound(): Promise<void> {
    const round = this.#round++;
    const controller = new AbortController();
    // Every call of the round listens on this one signal (a dozen or more per node).
    setMaxListeners(0, controller.signal);
    this.#abort = controller;
    const deadline: Deadline = { signal: controller.signal, at: Date.now() + this.opts.timeoutMs };
    const timer = setTimeout(() => controller.abort(new Error('poll deadline exceeded')), this.opts.timeoutMs);
    const transitions: StateTransition[] = [];
    const ctx: PollContext = {
      node: this.node,
      rpc: this.#rpc,
      get: (path) =>
        this.opts.transport.send({ url: this.#baseUrl + path, method: 'GET', headers: { ...this.#headers, accept: 'application/json' }, signal: deadline.signal }),
      deadline,
      known: this.known,
      round,
    };
    try {
      const identity = this.opts.sources.find((s) => s.name === this.opts.identitySource);
      const rest = this.opts.sources.filter((s) => s !== identity);
      let mismatch: UpstreamError | undefined;
      if (identity) {
        const err = await this.#pollOne(identity, ctx, transitions);
        if (err?.reason === 'network_mismatch') mismatch = err;
      }
      if (mismatch) {
        // Data from a node on another network is not data about ours: record
        // every other source as failed for the same reason, without asking.
        const now = Date.now();
        for (const s of rest) {
          const t = this.opts.store.record(this.node.name, s.name, { ok: false, error: mismatch, startedMs: now, durationMs: 0 });
          if (t) transitions.push(t);
        }
      } else {
        await Promise.all(rest.map((s) => this.#pollOne(s, ctx, transitions)));
      }
    } finally {
      clearTimeout(timer);
      this.completedRounds++;
      if (!this.#stopped) this.opts.onRound(this.node.name, transitions);
    }
  }

  async #pollOne(source: SourceDef<unknown>, ctx: PollContext, transitions: StateTransition[]): Promise<UpstreamError | undefined> {
    const startedMs = Date.now();
    const t0 = performance.now();
    const state = this.opts.store.get(this.node.name, source.name);
    let transition: StateTransition | undefined;
    let failure: UpstreamError | undefined;
    try {
      const previous = state.value;
      const value = await source.poll(ctx, previous);
      for (const c of describeChanges(source.name, previous, value)) {
        transitions.push({ node: this.node.name, source: source.name, kind: c.kind, detail: c.detail });
      }
      transition = this.opts.store.record(this.node.name, source.name, { ok: true, value, startedMs, durationMs: performance.now() - t0 });
      if (source.name === this.opts.identitySource) this.#learn(value);
    } catch (err) {
      failure = classifyPollError(err, ctx.deadline.signal.aborted);
      transition = this.opts.store.record(this.node.name, source.name, { ok: false, error: failure, startedMs, durationMs: performance.now() - t0 });
    }
    if (transition) transitions.push(transition);
    return failure;
  }

  #learn(value: unknown): void {
    const v = value as { nodeId?: unknown; networkId?: unknown; networkName?: unknown };
    if (typeof v.nodeId === 'string') this.known.nodeId = v.nodeId;
    if (typeof v.networkId === 'number' && this.known.networkId === undefined) this.known.networkId = v.networkId;
    if (typeof v.networkName === 'string') this.known.networkName = v.networkName;
  }
}
