import type { FailureReason } from '../../../http/errors.js';
import { UpstreamError } from '../../../http/errors.js';
import { RpcError } from '../../../http/json-rpc.js';

/**
 * What one platform.getL1Validator lookup of a watched validation id
 * (--watch.validation-id) told.
 *
 * - `found` true: the P-Chain knows the validation (its series are exported);
 * - `found` false: it answered "not found", which is state, not a failure: the
 *   validation ended (AvalancheGo `vms/platformvm/service.go` GetL1Validator
 *   wraps `state.GetL1Validator`'s database.ErrNotFound as
 *   `fetching L1 validator "<id>" failed: not found`);
 * - `found` undefined with a `failure`: the node answered about this id, but
 *   with another error or an answer that does not validate. Only that id is
 *   unknown this round; the other ids and the rest of the source stand.
 */
export interface ValidationLookup {
  validationId: string;
  found: boolean | undefined;
  /** Why the answer about this id was unusable (rpc_error, invalid_response). */
  failure?: FailureReason;
}

/** The message AvalancheGo answers for a validation id it does not know (an ended validation). */
export const NOT_FOUND = /not found/i;

/**
 * Whether a failed lookup of one validation id is the node's answer about
 * that id ("not found" excepted, which is state): a JSON-RPC error, or a reply
 * that does not validate. Those blind only that id. Anything else (timeout,
 * refused or reset connection, an HTTP status from a proxy, a network
 * mismatch) is the node failing, not the id, and fails the poll as every
 * other call of the round does. Returns the failure reason, or undefined to
 * rethrow.
 */
export function lookupFailureOf(err: unknown): FailureReason | undefined {
  if (err instanceof RpcError) return 'rpc_error';
  if (err instanceof UpstreamError && err.reason === 'invalid_response') return 'invalid_response';
  return undefined;
}
