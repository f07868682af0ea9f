import { UpstreamError, toUpstreamError } from '../../../http/errors.js';
import type { WatchedAddress } from '../../../config/addresses.js';

/** Prefixes a failure with the address it was about, keeping its reason (the `reason` label) and details. */
export function aboutAddress(a: WatchedAddress, err: unknown, aborted: boolean): UpstreamError {
  const e = toUpstreamError(err, aborted);
  return new UpstreamError(e.reason, `balance of ${a.alias} (${a.address}) on chain ${a.chain}: ${e.message}`, {
    status: e.status,
    rpcCode: e.rpcCode,
    retryAfterSeconds: e.retryAfterSeconds,
    cause: err,
  });
}
