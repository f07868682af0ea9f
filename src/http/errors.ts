/**
 * Typed failures of upstream calls. Every failure of a source ends up as one of
 * these reasons, which is what `avax_source_poll_failures_total{reason}` counts.
 */
export const FAILURE_REASONS = ['timeout', 'connect', 'http_status', 'rpc_error', 'invalid_response', 'network_mismatch', 'rate_limited'] as const;

/** Why a poll of a source failed. */
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** A failure of one upstream call, with the reason used for metrics and logs. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  /** The failure class exported as the `reason` label. */
  readonly reason: FailureReason;
  /** Whether another attempt inside the same deadline may succeed. */
  readonly retryable: boolean;
  /** HTTP status, when the failure came with one. */
  readonly status: number | undefined;
  /** JSON-RPC error code, for `rpc_error`. */
  readonly rpcCode: number | undefined;
  /** Seconds the server asked us to wait (HTTP 429 `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    reason: FailureReason,
    message: string,
    opts: { retryable?: boolean; status?: number; rpcCode?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.reason = reason;
    this.retryable = opts.retryable ?? false;
    this.status = opts.status;
    this.rpcCode = opts.rpcCode;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT']);

function errorCode(err: unknown): string | undefined {
  let cur: unknown = err;
  // A library may wrap socket errors; the code we classify on may sit on the cause.
  for (let depth = 0; depth < 4 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Turns whatever a transport threw into an {@link UpstreamError}.
 * `aborted` tells whether the poll's deadline signal fired, which makes any
 * resulting error a timeout whatever the HTTP stack called it.
 */
export function toUpstreamError(err: unknown, aborted: boolean): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (aborted) return new UpstreamError('timeout', 'deadline exceeded', { cause: err });
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) return new UpstreamError('timeout', `${code}: ${message}`, { retryable: true, cause: err });
  if (code && CONNECT_CODES.has(code)) return new UpstreamError('connect', `${code}: ${message}`, { retryable: true, cause: err });
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new UpstreamError('timeout', message, { cause: err });
  }
  return new UpstreamError('connect', message, { retryable: true, cause: err });
}
