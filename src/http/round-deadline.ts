import { performance } from 'node:perf_hooks';
import type { Deadline } from './json-rpc.js';

/**
 * Share of a deadline's window the event loop must have spent running
 * callbacks for the exporter, not the node, to be the one that was late.
 * A loop that waited on the network at all in the window is under this.
 */
export const SATURATED_UTILIZATION = 0.9;

/**
 * Times a saturated window may extend the deadline by one more timeout: a
 * round lasts at most `(1 + MAX_EXTENSIONS) × timeout`, whatever the load.
 */
export const MAX_EXTENSIONS = 2;

/** How a round's deadline reads the event loop (a test gives its own). */
export type UtilizationClock = () => { since: () => number };

/** The event loop's utilization (performance.eventLoopUtilization) since the call. */
const loopUtilization: UtilizationClock = () => {
  const start = performance.eventLoopUtilization();
  return { since: () => performance.eventLoopUtilization(start).utilization };
};

/**
 * One poll round's deadline, which counts against the node only time the
 * exporter could have read its answer. When `timeoutMs` passes and the event
 * loop was busy for at least {@link SATURATED_UTILIZATION} of it, the answers
 * may be sitting unread in the sockets (a CPU-starved container, a burst of
 * renders at a thousand nodes): aborting them would report every source of a
 * healthy node as `timeout`, and the round the scheduler starts at once to
 * catch up would redo the work the loop had no time for, so load would only
 * grow. The deadline then moves one timeout on, at most
 * {@link MAX_EXTENSIONS} times; a node that hangs while the exporter idles
 * (the loop waiting on the network) is cut off at `timeoutMs`, as before.
 */
export class RoundDeadline {
  readonly #controller = new AbortController();
  /** What every call of the round reads: the signal, and `at`, moved with each extension. */
  readonly deadline: Deadline;
  readonly #timeoutMs: number;
  readonly #clock: UtilizationClock;
  #window: { since: () => number };
  #timer: NodeJS.Timeout;
  /** Times the deadline moved on because the loop, not the node, was late. */
  extensions = 0;

  constructor(timeoutMs: number, clock: UtilizationClock = loopUtilization) {
    this.#timeoutMs = timeoutMs;
    this.#clock = clock;
    this.deadline = { signal: this.#controller.signal, at: Date.now() + timeoutMs };
    this.#window = clock();
    this.#timer = setTimeout(() => this.#expire(), timeoutMs);
  }

  #expire(): void {
    if (this.extensions < MAX_EXTENSIONS && this.#window.since() >= SATURATED_UTILIZATION) {
      this.extensions++;
      this.#window = this.#clock();
      this.deadline.at = Date.now() + this.#timeoutMs;
      this.#timer = setTimeout(() => this.#expire(), this.#timeoutMs);
      return;
    }
    this.abort(new Error('poll deadline exceeded'));
  }

  /** Ends the round now (the poller stopping, or the deadline passed). */
  abort(reason: Error): void {
    clearTimeout(this.#timer);
    this.#controller.abort(reason);
  }

  /** The round ended: no timer is left behind. */
  clear(): void {
    clearTimeout(this.#timer);
  }
}
