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
  try {
    return await pRetry(fn, {
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
    throw toUpstreamError(err, opts.signal.aborted);
  }
}
