import pRetry from 'p-retry';
import { UpstreamError, toUpstreamError } from './errors.js';

/** Retry policy for transient failures inside one poll's deadline. */
export interface RetryOptions {
  /** The poll's deadline; no attempt starts after it fired. */
  signal: AbortSignal;
  /** Absolute deadline (ms since epoch, `Date.now()` clock) of the poll. */
  deadline: number;
  /** Extra attempts after the first. */
  retries?: number;
  /** First backoff in ms. */
  minTimeoutMs?: number;
}

/**
 * Runs `fn`, retrying only transient failures (connect errors, resets, 5xx,
 * timeouts of a single attempt) and never past the poll's deadline. JSON-RPC
 * errors, 4xx and bad shapes are final: retrying them only adds load.
 */
export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const remaining = opts.deadline - Date.now();
  let lastFailure: UpstreamError | undefined;
  const attempt = async () => {
    try {
      return await fn();
    } catch (err) {
      // An attempt cut short by the poll's deadline is not a new cause.
      const cutByDeadline = opts.signal.aborted && err instanceof UpstreamError && err.reason === 'timeout';
      if (err instanceof UpstreamError && !cutByDeadline) lastFailure = err;
      throw err;
    }
  };
  try {
    return await pRetry(attempt, {
      retries: opts.retries ?? 2,
      minTimeout: opts.minTimeoutMs ?? 100,
      factor: 2,
      randomize: true,
      maxTimeout: 2_000,
      maxRetryTime: Math.max(0, remaining),
      signal: opts.signal,
      unref: true,
      shouldRetry: ({ error }) => {
        if (opts.signal.aborted) return false;
        return error instanceof UpstreamError && error.retryable && Date.now() < opts.deadline;
      },
    });
  } catch (err) {
    // The deadline fired while retrying: the cause is the last real failure
    // (a 502 stays http_status, a refused connection stays connect), not the
    // retry that ran out of time.
    if (opts.signal.aborted && lastFailure) throw lastFailure;
    if (err instanceof UpstreamError) throw err;
    throw toUpstreamError(err, opts.signal.aborted);
  }
}
