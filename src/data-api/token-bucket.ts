import { UpstreamError } from '../http/errors.js';
import type { Deadline } from '../http/json-rpc.js';

/** Options of a {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Sustained rate: requests per minute. */
  perMinute: number;
  /** Requests that may go at once after a quiet period; default min(10, perMinute), at least 1. */
  burst?: number;
  /** Clock (ms); tests replace it. */
  now?: () => number;
}

/**
 * A client-side token bucket that keeps the request rate to a shared service
 * under a limit. Each request reserves the next free slot (first come, first
 * served), so concurrent requests queue instead of all retrying at once; a
 * request whose slot would come after its poll's deadline does not wait at
 * all and fails as `rate_limited`. {@link TokenBucket.pauseUntil} stops every
 * request until a time the server asked for (HTTP 429 Retry-After), and the
 * bucket refills from empty afterwards, so no burst follows a pause.
 */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  /** Tokens at time #from; negative when slots are reserved ahead. */
  #tokens: number;
  /** Time the token count refers to; in the future during a pause. */
  #from: number;

  constructor(opts: TokenBucketOptions) {
    if (!(opts.perMinute > 0) || !Number.isFinite(opts.perMinute)) throw new RangeError('perMinute must be a positive number');
    this.#perMs = opts.perMinute / 60_000;
    this.#burst = Math.max(1, Math.floor(opts.burst ?? Math.min(10, opts.perMinute)));
    this.#now = opts.now ?? Date.now;
    this.#tokens = this.#burst;
    this.#from = this.#now();
  }

  /** Largest number of requests sent back to back. */
  get burst(): number {
    return this.#burst;
  }

  #refill(now: number): void {
    if (now <= this.#from) return;
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#from) * this.#perMs);
    this.#from = now;
  }

  /**
   * Reserves a slot: resolves at once or when the slot comes. Throws
   * `rate_limited` (without waiting) when the slot is after the deadline, and
   * `timeout` if the deadline fires while waiting; the slot is given back.
   */
  async take(deadline: Deadline): Promise<void> {
    const now = this.#now();
    this.#refill(now);
    this.#tokens -= 1;
    const readyAt = this.#tokens >= 0 ? Math.max(now, this.#from) : this.#from + -this.#tokens / this.#perMs;
    const waitMs = Math.ceil(readyAt - now);
    if (waitMs <= 0) return;
    if (readyAt > deadline.at) {
      this.#tokens += 1;
      throw new UpstreamError('rate_limited', `client-side rate limit: the next request slot is in ${(waitMs / 1000).toFixed(1)} s, after the poll's deadline`);
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        this.#tokens += 1;
        reject(new UpstreamError('timeout', 'deadline exceeded while waiting for a request slot'));
      };
      const timer = setTimeout(() => {
        deadline.signal.removeEventListener('abort', onAbort);
        resolve();
      }, waitMs);
      if (deadline.signal.aborted) onAbort();
      else deadline.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Holds every request until `atMs`; afterwards the bucket refills from empty at the sustained rate. */
  pauseUntil(atMs: number): void {
    const now = this.#now();
    this.#refill(now);
    if (atMs <= this.#from) return;
    // Slots already reserved stay owed (negative tokens): they move behind the pause.
    this.#tokens = Math.min(this.#tokens, 0);
    this.#from = atMs;
  }

  /** Milliseconds until the next request could go (0 when a token is free). */
  nextSlotInMs(): number {
    const now = this.#now();
    this.#refill(now);
    if (this.#tokens >= 1) return Math.max(0, this.#from - now);
    return Math.max(0, Math.ceil(this.#from + (1 - this.#tokens) / this.#perMs - now));
  }
}
