import { z } from 'zod';
import { UpstreamError } from './errors.js';
import type { HttpResponse, HttpTransport } from './transport.js';
import { describeIssues } from './wire.js';
import { withRetry } from './retry.js';

/** Deadline of one poll, shared by every call made during it. */
export interface Deadline {
  signal: AbortSignal;
  /** Absolute time (Date.now clock) at which `signal` fires. */
  at: number;
}

/** A JSON-RPC `error` object answered by the node. */
export class RpcError extends UpstreamError {
  /** The JSON-RPC error message as the node sent it. */
  readonly rpcMessage: string;
  constructor(code: number, message: string) {
    super('rpc_error', `JSON-RPC error ${code}: ${message}`, { rpcCode: code });
    this.rpcMessage = message;
  }
}

const rpcErrorObject = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });
const envelope = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: rpcErrorObject.optional(),
});

/** Parses a JSON body, turning syntax errors into `invalid_response`. */
export function parseJsonBody(body: Buffer, what: string): unknown {
  try {
    // Invalid UTF-8 only ever sits inside strings (numbers and keys are
    // ASCII): replace it (U+FFFD) so one odd peer version cannot fail a whole
    // source; the label sanitiser bounds what reaches the exposition.
    const text = body.toString('utf8');
    return JSON.parse(text);
  } catch (err) {
    throw new UpstreamError('invalid_response', `${what}: body is not valid JSON (${(err as Error).message.slice(0, 120)})`);
  }
}

/** Throws the right {@link UpstreamError} for a non-2xx HTTP answer. */
export function rejectHttpStatus(res: HttpResponse, what: string): never {
  const snippet = res.body.subarray(0, 160).toString('utf8').trim();
  if (res.status === 429) {
    throw new UpstreamError('rate_limited', `${what}: HTTP 429`, {
      status: 429,
      retryable: false,
      retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
    });
  }
  throw new UpstreamError('http_status', `${what}: HTTP ${res.status}${snippet ? ` ${snippet}` : ''}`, {
    status: res.status,
    retryable: res.status >= 500,
  });
}

/** Parses an HTTP `Retry-After` value (seconds or HTTP date) into seconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * A JSON-RPC 2.0 client for one node. Calls are POSTs with a JSON body and an
 * increasing id; the node's `error` object becomes an {@link RpcError} even on
 * HTTP 200 (gorilla never sets a status for it), and the result is validated
 * with the caller's schema.
 */
export class JsonRpcClient {
  #nextId = 1;

  constructor(
    private readonly transport: HttpTransport,
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** Calls `method` at `path` and returns its validated result. Transient failures are retried within the deadline. */
  async call<S extends z.ZodType>(
    path: string,
    method: string,
    params: unknown,
    schema: S,
    deadline: Deadline,
  ): Promise<z.output<S>> {
    return withRetry(() => this.#callOnce(path, method, params, schema, deadline), {
      signal: deadline.signal,
      deadline: deadline.at,
    });
  }

  async #callOnce<S extends z.ZodType>(
    path: string,
    method: string,
    params: unknown,
    schema: S,
    deadline: Deadline,
  ): Promise<z.output<S>> {
    const id = this.#nextId++;
    const what = `${method} at ${path}`;
    const res = await this.transport.send({
      url: this.baseUrl + path,
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} }),
      signal: deadline.signal,
    });
    if (res.status !== 200) rejectHttpStatus(res, what);
    const parsed = envelope.safeParse(parseJsonBody(res.body, what));
    if (!parsed.success) {
      throw new UpstreamError('invalid_response', `${what}: not a JSON-RPC 2.0 response (${describeIssues(parsed.error)})`);
    }
    const env = parsed.data;
    if (env.error !== undefined && env.result !== undefined) {
      throw new UpstreamError('invalid_response', `${what}: response has both result and error`);
    }
    if (env.id !== id) throw new UpstreamError('invalid_response', `${what}: response id ${String(env.id)} does not match request id ${id}`);
    if (env.error !== undefined) throw new RpcError(env.error.code, env.error.message);
    if (env.result === undefined) throw new UpstreamError('invalid_response', `${what}: response has neither result nor error`);
    const result = schema.safeParse(env.result);
    if (!result.success) {
      throw new UpstreamError('invalid_response', `${what}: unexpected result shape (${describeIssues(result.error)})`);
    }
    return result.data;
  }
}
