import { isDeepStrictEqual } from 'node:util';
import { FAILURE_REASONS, type FailureReason, type UpstreamError } from '../http/errors.js';
import { isFresh, nodeMaxAgeMs, sourceMaxAgeMs } from '../config/max-age.js';

/** The last error of a source, as shown on the landing page and in logs. */
export interface SourceErrorInfo {
  reason: FailureReason;
  message: string;
  atMs: number;
}

/** What the exporter knows about one source of one node. */
export interface SourceState {
  readonly node: string;
  readonly source: string;
  /** Last successful value; kept until it is older than the max age. */
  value: unknown;
  lastSuccessMs: number | undefined;
  lastAttemptMs: number | undefined;
  lastError: SourceErrorInfo | undefined;
  /** Outcome of the last poll; undefined before the first one. */
  up: boolean | undefined;
  lastDurationSeconds: number | undefined;
  polls: number;
  failures: Record<FailureReason, number>;
}

/** The outcome of one poll of one source. */
export type PollOutcome =
  { ok: true; value: unknown; startedMs: number; durationMs: number } | { ok: false; error: UpstreamError; startedMs: number; durationMs: number };

/** A change in what a node reports, worth one log line. */
export interface ValueChange {
  /** A short stable name of the change, logged as `change`. */
  kind: string;
  level: 'info' | 'warn';
  /** The log message. */
  message: string;
  detail: Record<string, string>;
}

/** A change worth one log line. */
export interface StateTransition {
  node: string;
  source: string;
  /** `source_down`, `source_up`, or the kind of a value change (see `change`). */
  kind: string;
  /** A change in what the source reports (its `changes` hook): the log line's level, message and details. */
  change?: ValueChange;
  reason?: FailureReason;
  message?: string;
  detail?: Record<string, string>;
}

function zeroFailures(): Record<FailureReason, number> {
  return Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>;
}

/**
 * Latest value and health of every (node, source). Only the scheduler writes;
 * the exposition reads a consistent view after each round.
 */
export class StateStore {
  readonly #sources = new Map<string, SourceState>();
  /** End of each node's last round whose identity poll succeeded (node pollers only). */
  readonly #nodeRoundOkMs = new Map<string, number>();
  #deadlineExtensions = 0;

  #key(node: string, source: string): string {
    return `${node}\u0000${source}`;
  }

  /** The state of a source, created empty on first use. */
  get(node: string, source: string): SourceState {
    const key = this.#key(node, source);
    let s = this.#sources.get(key);
    if (!s) {
      s = {
        node,
        source,
        value: undefined,
        lastSuccessMs: undefined,
        lastAttemptMs: undefined,
        lastError: undefined,
        up: undefined,
        lastDurationSeconds: undefined,
        polls: 0,
        failures: zeroFailures(),
      };
      this.#sources.set(key, s);
    }
    return s;
  }

  /** Records a poll outcome; returns the up/down transition it caused, if any. */
  record(node: string, source: string, outcome: PollOutcome): StateTransition | undefined {
    const s = this.get(node, source);
    const wasUp = s.up;
    s.polls += 1;
    s.lastAttemptMs = outcome.startedMs;
    s.lastDurationSeconds = outcome.durationMs / 1000;
    if (outcome.ok) {
      // A value equal to the last one keeps the last one's object: values are
      // immutable, and what was derived from the object (its samples, its
      // formatted and compressed lines) is kept by identity, so a node whose
      // health, identity or bootstrap state did not change costs neither a
      // render of those series nor the memory of a second copy.
      if (s.value === undefined || !isDeepStrictEqual(s.value, outcome.value)) s.value = outcome.value;
      s.lastSuccessMs = outcome.startedMs + outcome.durationMs;
      s.up = true;
      if (wasUp === false) return { node, source, kind: 'source_up' };
      return undefined;
    }
    s.failures[outcome.error.reason] += 1;
    s.lastError = { reason: outcome.error.reason, message: outcome.error.message, atMs: outcome.startedMs + outcome.durationMs };
    s.up = false;
    if (wasUp !== false) {
      return { node, source, kind: 'source_down', reason: outcome.error.reason, message: outcome.error.message };
    }
    return undefined;
  }

  /**
   * Records that a node answered its identity poll in a round: the node was
   * reachable then. Values of its sources never outlive the max age counted
   * from this moment, whatever their own polling interval (see expire).
   */
  recordNodeRound(node: string, atMs: number): void {
    this.#nodeRoundOkMs.set(node, atMs);
  }

  /** Counts the times a round's deadline moved on because the exporter's own event loop was saturated (src/http/round-deadline.ts). */
  recordDeadlineExtensions(n: number): void {
    this.#deadlineExtensions += n;
  }

  /** Deadline extensions of every poller so far. */
  get deadlineExtensions(): number {
    return this.#deadlineExtensions;
  }

  /** The value of a source if its last success is not older than `maxAgeMs`. */
  freshValue(s: SourceState, nowMs: number, maxAgeMs: number): unknown {
    return isFresh(s.lastSuccessMs, nowMs, maxAgeMs) ? s.value : undefined;
  }

  /**
   * Drops the value of a source whose data is too old, so it cannot be mistaken for current data
   * (the rule: config/max-age.ts). `maxAgeByNode` overrides the max age of some pollers (the Data
   * API's, which polls less often); `extraMaxAgeBySource` stretches that of sources polled less
   * often than every round.
   */
  expire(nowMs: number, maxAgeMs: number, maxAgeByNode?: ReadonlyMap<string, number>, extraMaxAgeBySource?: ReadonlyMap<string, number>): void {
    const ages = { maxAgeMs, maxAgeByNode, extraMaxAgeBySource };
    for (const s of this.#sources.values()) {
      if (s.value === undefined || s.lastSuccessMs === undefined) continue;
      const maxAge = nodeMaxAgeMs(ages, s.node);
      const limit = sourceMaxAgeMs(ages, s.node, s.source);
      // A source polled less often (info.peers) is stretched only while its
      // node keeps answering: once the node's rounds fail, every value goes
      // with the max age counted from the node's last good round.
      const nodeOk = this.#nodeRoundOkMs.get(s.node);
      if (!isFresh(s.lastSuccessMs, nowMs, limit) || (nodeOk !== undefined && !isFresh(nodeOk, nowMs, maxAge))) s.value = undefined;
    }
  }

  /** Forgets every source of a node (the node was removed from the config). */
  removeNode(node: string): void {
    this.#nodeRoundOkMs.delete(node);
    for (const [k, s] of this.#sources) if (s.node === node) this.#sources.delete(k);
  }

  /** All source states, in insertion order. */
  all(): SourceState[] {
    return [...this.#sources.values()];
  }
}
