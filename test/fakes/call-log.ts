/**
 * The fake node's call log: every request it received, with the JSON-RPC method and params when
 * the body parsed as JSON-RPC, bounded so a long-running fake does not grow without bound.
 *
 * @packageDocumentation
 */
import { isPlainObject } from '../../src/demo/wire.js';

/** One HTTP request the fake received. */
export interface FakeCall {
  /** URL path without the query string. */
  path: string;
  /** Raw query string including the `?`, or `''`. */
  query: string;
  httpMethod: string;
  /** JSON-RPC method as sent (first one of a batch), when the body parsed as JSON-RPC. */
  rpcMethod?: string;
  /** JSON-RPC params as sent. */
  params?: unknown;
  /** `Date.now()` when the request was fully received. */
  at: number;
}

/** What a body says as JSON-RPC (first message of a batch), best effort. */
export interface RpcPeek {
  method?: string;
  params?: unknown;
  hasParams: boolean;
  id?: unknown;
}

/** Best-effort look at a body for call recording and fault targeting. */
export function peekRpc(body: string): RpcPeek {
  if (body === '') return { hasParams: false };
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return { hasParams: false };
  }
  const msg: unknown = Array.isArray(v) ? (v as unknown[])[0] : v;
  if (!isPlainObject(msg)) return { hasParams: false };
  const out: RpcPeek = { hasParams: false };
  if (typeof msg['method'] === 'string') out.method = msg['method'];
  if (msg['params'] !== undefined) {
    out.params = msg['params'];
    out.hasParams = true;
  }
  if (msg['id'] !== undefined) out.id = msg['id'];
  return out;
}

/** Appends `call` to `calls`, keeping about `maxCalls` (trimmed in batches so the cost per request stays O(1) amortised). */
export function recordCall<T>(calls: T[], call: T, maxCalls: number): void {
  calls.push(call);
  if (calls.length > maxCalls + Math.max(16, Math.floor(maxCalls / 4))) calls.splice(0, calls.length - maxCalls);
}
