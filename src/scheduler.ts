import { setMaxListeners } from 'node:events';
import type { NodeConfig } from './config/load.js';
import { UpstreamError, toUpstreamError, type FailureReason } from './http/errors.js';
import { JsonRpcClient, type Deadline } from './http/json-rpc.js';
import { RoundDeadline } from './http/round-deadline.js';
import type { NetworkShared } from './sources/node/network-shared.js';
import { ByteBudget, RESPONSE_CAPS, ROUND_BUDGET_BYTES, type HttpResponse, type HttpTransport } from './http/transport.js';
import type { BaseContext, SourceDef } from './sources/source.js';
import type { KnownNodeFacts, NodeSourceDef, PollContext } from './sources/node/source.js';
import type { StateStore, StateTransition } from './state/store.js';
import { makeRedactor, secretsOf } from './http/redact.js';

/**
 * Failures of the identity source that say the node itself is out of reach or
 * is not ours: refused or reset connections, no answer within the round's
 * deadline, another network. They fail the whole round: every other source is
 * recorded down for the same reason without being asked, since a source that
 * happens not to be due this round (info.peers) would otherwise stay "up" and
 * keep serving the last answers of a node that is gone.
 */
const NODE_DOWN_REASONS: ReadonlySet<FailureReason> = new Set<FailureReason>(['connect', 'timeout', 'network_mismatch']);

/** What a poller needs: its timing, its sources (of one family, `S`), and how to build a poll context. */
export interface PollerOptions<C extends BaseContext, S extends SourceDef<unknown, C> = SourceDef<unknown, C>> {
  /** The poller's name: the `node` label of every series it produces. */
  name: string;
  intervalMs: number;
  timeoutMs: number;
  /** Fraction of the interval by which each wait is randomly shifted (spreads load across targets). */
  jitter?: number;
  sources: readonly S[];
  /**
   * The source asked first in every round (a node's identity source): when it
   * fails because the target is out of reach, every other source is recorded
   * down for the same reason without being asked.
   */
  first?: S;
  /** Builds the context of one round. */
  makeContext: (deadline: Deadline, round: number) => C;
  /** Called with each new value of a source (a node poller learns facts about its node from it). */
  onValue?: (source: S, value: unknown) => void;
  store: StateStore;
  /** Called after every completed round. */
  onRound: (name: string, transitions: StateTransition[]) => void;
  /**
   * Least time between two successful polls of a source, by source name
   * (default: every round). A source that is not due sits the round out and
   * its last value stands; its max age is stretched by as much (see
   * config/max-age.ts).
   */
  minIntervalMs?: ReadonlyMap<string, number>;
  /**
   * Removes the secrets sent to this target from an error's text (an upstream
   * may echo the request) before the error is stored, logged or shown.
   */
  redact?: (text: string) => string;
}

/** Percent-decoded, or as written when it is not valid percent-encoding (the config check reports that; this must never throw). */
function decodeOrRaw(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Splits user:password out of a node URL into a Basic Authorization header (the transport never sends URL credentials). */
export function splitCredentials(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  const u = new URL(url);
  if (!u.username && !u.password) return { url, headers };
  const auth = Buffer.from(`${decodeOrRaw(u.username)}:${decodeOrRaw(u.password)}`).toString('base64');
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

/** What the daemon needs of any poller. */
export interface PollerHandle {
  readonly name: string;
  readonly completedRounds: number;
  /**
   * Starts polling, the first round after `delayMs` (default at once).
   * `phase` (0 to 1, default 0) is where in their interval this poller's
   * sources asked less often than every round fall, and with `settle` where
   * its later rounds move to (see startSpread).
   */
  start(delayMs?: number, phase?: number, settle?: boolean): void;
  stop(): Promise<void>;
}

/**
 * Polls one target (a node, the Data API): rounds never overlap, each round
 * has one deadline that every call and retry shares, and the next round starts
 * one interval (with jitter) after the previous one started, or at once if it
 * overran.
 */
export class Poller<C extends BaseContext = PollContext, S extends SourceDef<unknown, C> = SourceDef<unknown, C>> implements PollerHandle {
  #round = 0;
  /** See start(): where in their interval this poller's slower sources fall. */
  #phase = 0;
  /** See start(): how much later in the interval its rounds have still to move. */
  #shiftLeftMs = 0;
  /** Slower sources asked once after their first success (from then on at their interval). */
  readonly #phased = new Set<string>();
  /** See start(): when a crammed fleet's poller started, its slower sources' first ask waiting for its phase; else undefined. */
  #deferredSinceMs: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #inflight: Promise<void> | undefined;
  #abort: RoundDeadline | undefined;
  #stopped = false;
  /** Rounds completed so far. */
  completedRounds = 0;

  constructor(private readonly opts: PollerOptions<C, S>) {}

  /** The poller's name (the `node` label). */
  get name(): string {
    return this.opts.name;
  }

  /**
   * Starts polling: the first round after `delayMs` (default at once), then
   * every interval. With a `phase` p, a source asked less often than every
   * round is asked in the first round, then once more after (1 - p) of its
   * interval, and every interval from there; with `settle` too, the rounds
   * move to p of the interval after the start, by at most SPREAD_STEP of the
   * interval per round, and such a source is first asked p of its interval
   * after the start rather than in the first round (see startSpread).
   */
  start(delayMs = 0, phase = 0, settle = false): void {
    this.#stopped = false;
    this.#phase = Math.min(Math.max(phase, 0), 1);
    this.#shiftLeftMs = settle ? Math.max(0, this.#phase * this.opts.intervalMs - delayMs) : 0;
    this.#deferredSinceMs = settle ? Date.now() : undefined;
    this.#schedule(delayMs);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const started = Date.now();
      this.#inflight = this.runRound().finally(() => {
        this.#inflight = undefined;
        const intervalMs = this.roundIntervalMs();
        const jitter = (this.opts.jitter ?? 0.05) * intervalMs * (Math.random() * 2 - 1);
        const shift = Math.min(this.#shiftLeftMs, SPREAD_STEP * intervalMs);
        this.#shiftLeftMs -= shift;
        const next = Math.max(0, started + intervalMs + jitter + shift - Date.now());
        this.#schedule(next);
      });
    }, delayMs);
  }

  /** Time from one round's start to the next's, before jitter (a subclass may lengthen it as it goes). */
  protected roundIntervalMs(): number {
    return this.opts.intervalMs;
  }

  /** The deadline of the round about to start, read once at its start (a subclass may set it per round). */
  protected roundTimeoutMs(): number {
    return this.opts.timeoutMs;
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
    const limit = new RoundDeadline(this.roundTimeoutMs());
    const deadline = limit.deadline;
    // Every call of the round listens on this one signal (a dozen or more per node).
    setMaxListeners(0, deadline.signal);
    this.#abort = limit;
    const transitions: StateTransition[] = [];
    const ctx = this.opts.makeContext(deadline, round);
    try {
      // The identity source (one per catalog) runs first; a node out of reach fails the round there.
      const identity = this.opts.first;
      const rest = this.opts.sources.filter((s) => s !== identity);
      let nodeDown: UpstreamError | undefined;
      if (identity) {
        const err = await this.#pollOne(identity, ctx, transitions);
        if (err && NODE_DOWN_REASONS.has(err.reason)) nodeDown = err;
        else this.opts.store.recordNodeRound(this.opts.name, Date.now());
      }
      if (nodeDown) {
        // A node that cannot be reached (or is on another network) tells
        // nothing about any source: record every other source as failed for
        // the same reason, without asking.
        const now = Date.now();
        for (const s of rest) {
          const t = this.opts.store.record(this.opts.name, s.name, { ok: false, error: nodeDown, startedMs: now, durationMs: 0 });
          if (t) transitions.push(t);
        }
      } else {
        await Promise.all(rest.filter((s) => this.#due(s.name)).map((s) => this.#pollOne(s, ctx, transitions)));
      }
    } finally {
      limit.clear();
      if (limit.extensions > 0) this.opts.store.recordDeadlineExtensions(limit.extensions);
      this.completedRounds++;
      if (!this.#stopped) this.opts.onRound(this.opts.name, transitions);
    }
  }

  /**
   * Whether a source with a least interval is due: its last success started
   * at least that long ago, give or take half a round (rounds are jittered, so
   * a 60 s interval at 15 s rounds is every fourth round, not every fifth). A
   * failing source is asked every round.
   */
  #due(source: string): boolean {
    const min = this.opts.minIntervalMs?.get(source);
    if (!min) return true;
    const last = this.opts.store.get(this.opts.name, source);
    if (this.#deferredSinceMs !== undefined && last.lastAttemptMs === undefined) {
      // Never asked, in a crammed fleet: first at the poller's phase of the source's interval, then at the interval.
      const due = Date.now() - this.#deferredSinceMs + this.opts.intervalMs / 2 >= min * this.#phase;
      if (due) this.#phased.add(source);
      return due;
    }
    if (!last.up || last.lastSuccessMs === undefined || last.lastDurationSeconds === undefined) return true;
    const lastStart = last.lastSuccessMs - last.lastDurationSeconds * 1000;
    // The first wait after the first success is shortened by the phase: a fleet's nodes, whose first rounds all
    // start within half an interval, then ask info.peers spread over its minute instead of all in the same seconds.
    const wait = this.#phased.has(source) ? min : min * (1 - this.#phase);
    const due = Date.now() - lastStart + this.opts.intervalMs / 2 >= wait;
    if (due) this.#phased.add(source);
    return due;
  }

  async #pollOne(source: S, ctx: C, transitions: StateTransition[]): Promise<UpstreamError | undefined> {
    const startedMs = Date.now();
    const t0 = performance.now();
    const name = this.opts.name;
    const state = this.opts.store.get(name, source.name);
    let transition: StateTransition | undefined;
    let failure: UpstreamError | undefined;
    try {
      const previous = state.value;
      const value = await source.poll(ctx, previous);
      for (const change of source.changes?.(previous, value) ?? []) transitions.push({ node: name, source: source.name, kind: change.kind, change });
      transition = this.opts.store.record(name, source.name, { ok: true, value, startedMs, durationMs: performance.now() - t0 });
      this.opts.onValue?.(source, value);
    } catch (err) {
      failure = classifyPollError(err, ctx.deadline.signal.aborted);
      // Redacted in place: a per-round shared answer's error may be seen by several sources, and redacting twice changes nothing.
      if (this.opts.redact) failure.message = this.opts.redact(failure.message);
      transition = this.opts.store.record(name, source.name, { ok: false, error: failure, startedMs, durationMs: performance.now() - t0 });
    }
    if (transition) transitions.push(transition);
    return failure;
  }
}

/** Shared pieces every node poller uses. */
export interface NodePollerOptions {
  intervalMs: number;
  timeoutMs: number;
  jitter?: number;
  sources: readonly NodeSourceDef<unknown>[];
  transport: HttpTransport;
  store: StateStore;
  onRound: (name: string, transitions: StateTransition[]) => void;
  /** Network-wide data shared between the node pollers. */
  network?: NetworkShared;
  /** Least time between two polls of a source, by source name (see PollerOptions). */
  minIntervalMs?: ReadonlyMap<string, number>;
}

/**
 * GET for one poll round, single-flight like {@link JsonRpcClient.forRound}:
 * the same path asked twice in a round (the health source and the
 * bootstrapped source both read /ext/health) goes upstream once, and every
 * asker gets the same answer, failure included. Sharing the response is safe:
 * its readers only decode the body (toString, subarray views), never write it.
 */
export function getForRound(
  transport: HttpTransport,
  url: string,
  headers: Record<string, string>,
  deadline: Deadline,
  budget?: ByteBudget,
): (path: string) => Promise<HttpResponse> {
  const memo = new Map<string, Promise<HttpResponse>>();
  return (path) => {
    let answer = memo.get(path);
    if (!answer) {
      answer = transport.send({
        url: url + path,
        method: 'GET',
        headers: { ...headers, accept: 'application/json' },
        signal: deadline.signal,
        // The only GETs are /ext/health and its ?tag= forms.
        maxBytes: RESPONSE_CAPS.health,
        ...(budget ? { budget } : {}),
      });
      memo.set(path, answer);
    }
    return answer;
  };
}

/** Most time between the first rounds of two pollers started together (see startSpread). */
export const START_SPACING_MS = 50;

/**
 * The most a poller's round moves later than its interval to reach its
 * phase (Poller.start), as a fraction of the interval. Half: a fleet whose
 * first rounds filled half an interval is spread over the whole of it from
 * its second round on, and the longest gap between two rounds of a node (1.55
 * intervals with the jitter) stays well inside a value's max age (3
 * intervals, config/max-age.ts). A quarter left a 1,000-node fleet settling
 * through the bench's first minute.
 */
export const SPREAD_STEP = 0.5;

/**
 * Starts pollers one after the other rather than all at once: the i-th
 * first round begins i × spacing after the first, spacing being
 * START_SPACING_MS or less, so that every first round begins within half an
 * interval. Started together, a fleet's first rounds hold every node's
 * answers (info.peers is 0.6 MB on mainnet) in memory at the same moment:
 * 50 mainnet nodes at once raised the daemon's peak RSS by about 90 MB over
 * its steady state. Spread, one node's round is mostly done before the next
 * begins, and the rounds stay spread afterwards, since each next round is
 * timed from its poller's previous one. The i-th of n pollers also gets the
 * phase i / n (see Poller.start). When the fleet is large enough that its
 * first rounds fill half the interval (closer than START_SPACING_MS), the
 * rounds then move, a step each round, to i / n of the interval, so that
 * they come evenly over the whole interval rather than all in its first half
 * at twice the rate: at 1,000 nodes a loop saturated for half of every
 * interval left a change on /metrics up to 2.4-4.8 s late and scrapes
 * 0.2-0.4 s (p99); spread, 0.8-1.0 s and 0.03-0.13 s. Such a fleet's sources
 * asked once a minute (info.peers) are not asked in the first rounds either,
 * but first at i / n of their minute: every node's 0.6 MB of peers within the
 * first half interval made the start-up peak of 300 nodes 183 MB (140 MB
 * spread, about 150 MB in the steady state), and of 1,000 nodes twice their
 * steady state. Their series come within the first minute; readiness does
 * not wait for them, and until then they have no `avax_source_up` at all
 * (not 0). A smaller fleet's rounds, START_SPACING_MS apart, are over before
 * the next begins, and keep their interval. The phase also spreads the sources asked once a minute
 * (info.peers) over the minute, not all in the same few seconds: 1,000
 * nodes' info.peers in one burst held 1.3 GB more RSS and left scrapes and
 * renders seconds late.
 */
export function startSpread(pollers: readonly PollerHandle[], intervalMs: number): void {
  const spacing = pollers.length > 1 ? Math.min(START_SPACING_MS, intervalMs / 2 / (pollers.length - 1)) : 0;
  // A lone poller is at its place already; only a fleet packed closer than START_SPACING_MS settles.
  const crammed = pollers.length > 1 && spacing < START_SPACING_MS;
  pollers.forEach((p, i) => p.start(Math.round(i * spacing), i / pollers.length, crammed));
}

/** A poller for one AvalancheGo node, with the facts it learned about the node. */
export class NodePoller extends Poller<PollContext, NodeSourceDef<unknown>> {
  readonly known: KnownNodeFacts;

  constructor(
    readonly node: NodeConfig,
    opts: NodePollerOptions,
  ) {
    const known: KnownNodeFacts = {};
    const { url, headers } = splitCredentials(node.url, node.headers);
    const rpc = new JsonRpcClient(opts.transport, url, headers);
    const sources = opts.sources.filter((src) => src.appliesTo?.(node) ?? true);
    const first = sources.find((s) => s.identity);
    super({
      redact: makeRedactor(secretsOf({ url: node.url, headers: node.headers, secretHeaders: node.secretHeaders })),
      name: node.name,
      intervalMs: opts.intervalMs,
      timeoutMs: opts.timeoutMs,
      jitter: opts.jitter,
      sources,
      ...(first ? { first } : {}),
      store: opts.store,
      onRound: opts.onRound,
      ...(opts.minIntervalMs ? { minIntervalMs: opts.minIntervalMs } : {}),
      makeContext: (deadline, round) => {
        // Everything the round receives from the node, JSON-RPC and GET alike, comes out of one budget.
        const budget = new ByteBudget(ROUND_BUDGET_BYTES);
        return {
          node,
          // One upstream call per distinct request per round, however many sources ask.
          rpc: rpc.forRound(budget),
          get: getForRound(opts.transport, url, headers, deadline, budget),
          deadline,
          known,
          round,
          ...(opts.network ? { network: opts.network } : {}),
        };
      },
      // Sources learn facts about the node (its id, network, version) for the ones polled after them.
      onValue: (source, value) => Object.assign(known, source.learn?.(value)),
    });
    this.known = known;
  }
}
