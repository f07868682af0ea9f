import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { UpstreamError, toUpstreamError } from './errors.js';

/** Options of the shared HTTP transport. */
export interface TransportOptions {
  /** Largest response body accepted, in bytes, whatever a request's own cap; larger ones are `invalid_response`. */
  maxResponseBytes?: number;
  /** Bytes of response bodies being received at once, by every request together (see {@link DEFAULT_PROCESS_BUDGET_BYTES}). */
  processBudgetBytes?: number;
  /** Keep-alive connections per origin (default {@link CONNECTIONS_PER_ORIGIN}). */
  connectionsPerOrigin?: number;
}

/** What a successful HTTP exchange gives back: any status, the whole body. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP request. */
export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The poll's deadline: aborting it ends the request as a `timeout`. */
  signal: AbortSignal;
  /** This request's own cap on its body (see {@link RESPONSE_CAPS}); the transport's cap applies too. */
  maxBytes?: number;
  /** The budget of the poll round the request belongs to: every byte received is taken from it. */
  budget?: ByteBudget;
}

/**
 * Bytes a poll round may receive in all, over every request it makes: a
 * hostile or broken upstream that answers each request with a body just
 * under its cap cannot make one round hold more than this.
 */
export class ByteBudget {
  #used = 0;
  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  /** Takes `n` bytes; false (and nothing taken) when that would exceed the limit. */
  take(n: number): boolean {
    if (this.#used + n > this.limit) return false;
    this.#used += n;
    return true;
  }
}

/** Ceiling on any response body, whatever a request's own cap: a mainnet `getCurrentValidators` is a few MB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const MiB = 1024 * 1024;

/**
 * Each upstream answer's cap, sized from real answers with ample room (the
 * sizes are of the reference shapes in test/fixtures/reference times
 * mainnet's counts; docs/security.md has the table):
 * - `platform.getCurrentValidators` of the whole primary network: about
 *   2,000 validators (plus their L1 ones) at about 1 KB each, ~2 MB: 32 MiB;
 * - `info.peers`: ~0.3 KB a peer, 2,000 peers on mainnet ~0.6 MB: 16 MiB;
 * - `GET /ext/health`: ~1 KB a chain, the node's L1 chains included: 4 MiB;
 * - a Data API page: at most 100 items of a few KB: 4 MiB;
 * - every other JSON-RPC method answers a few KB (getBlockchains on mainnet,
 *   the largest, a few hundred KB): 4 MiB.
 * Every answer parsed in one piece is thus at most 4 MiB (about 20 ms of
 * JSON.parse); the two larger ones are split and parsed a batch at a time
 * with yields in between (see JsonRpcClient.callWithArray).
 */
export const RESPONSE_CAPS = {
  'platform.getCurrentValidators': 32 * MiB,
  'info.peers': 16 * MiB,
  health: 4 * MiB,
  dataApiPage: 4 * MiB,
  jsonRpc: 4 * MiB,
} as const;

/** Bytes one node's poll round may receive in all (about ten times a mainnet round with --watch.all-validators). */
export const ROUND_BUDGET_BYTES = 64 * MiB;

/**
 * Bytes of response bodies being received at once by the whole process:
 * the rounds of many nodes, each within its budget, still cannot together
 * hold more than this while they download.
 */
export const DEFAULT_PROCESS_BUDGET_BYTES = 256 * MiB;

/**
 * Connections held to one node (origin) at most; a round's further requests
 * queue on them. A round sends ~13 requests to its node at once, but they are
 * small and the node answers each in milliseconds: on the bench's mainnet
 * world (2,000 peers, 1,800 validators, info.peers every round) the round
 * took 23-31 ms (median) with 8 connections and 23 ms with 4 or 2. Four, not
 * two, so that one or two hanging requests (a stuck chain's height) do not
 * hold every other request of the round until its deadline. A fleet of 1,000
 * nodes thus keeps at most 4,000 idle sockets instead of 8,000.
 */
const CONNECTIONS_PER_ORIGIN = 4;

/** How long an idle keep-alive connection is kept for the next request. */
const KEEP_ALIVE_MS = 30_000;
/**
 * Longest silence on a connection while a request waits for its answer or
 * its body. The poll deadline (AbortSignal) bounds every request; this only
 * stops a connection from living forever if a signal is ever forgotten.
 */
const IDLE_REQUEST_MS = 120_000;

/** The agent of each scheme: keep-alive, at most `connections` sockets per origin, idle ones closed after {@link KEEP_ALIVE_MS}. */
function agents(connections: number): { http: HttpAgent; https: HttpsAgent } {
  const opts = { keepAlive: true, maxSockets: connections, timeout: KEEP_ALIVE_MS, scheduling: 'lifo' as const };
  return { http: new HttpAgent(opts), https: new HttpsAgent(opts) };
}

/** The request options of a URL, without its user:password (the transport never sends URL credentials; scheduler.ts turns them into a header). */
function targetOf(url: string): RequestOptions {
  const { auth: _auth, ...target } = urlToHttpOptions(new URL(url));
  return target;
}

/**
 * The one HTTP client every source uses: Node's own `node:http` and
 * `node:https` (an HTTP library beside them cost the process about 7 MB of
 * memory for nothing the exporter needs), keep-alive connection reuse through
 * one agent per scheme, a bounded body, and failures mapped to
 * {@link UpstreamError}.
 */
export class HttpTransport {
  readonly #agents: { http: HttpAgent; https: HttpsAgent };
  readonly #maxBytes: number;
  readonly #processBudget: number;
  /** Bytes of bodies being received now, all requests together. */
  #receiving = 0;

  constructor(opts: TransportOptions = {}) {
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#processBudget = opts.processBudgetBytes ?? DEFAULT_PROCESS_BUDGET_BYTES;
    this.#agents = agents(opts.connectionsPerOrigin ?? CONNECTIONS_PER_ORIGIN);
  }

  /** Sends the request and resolves with the answer's head (its body still to read). */
  #exchange(req: HttpRequest): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const target = targetOf(req.url);
      const https = target.protocol === 'https:';
      const headers: Record<string, string | number> = { ...req.headers };
      // A known length, never chunked: what undici sent, and what every JSON-RPC server expects.
      if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
      const options: RequestOptions = {
        ...target,
        method: req.method,
        headers,
        agent: https ? this.#agents.https : this.#agents.http,
        signal: req.signal,
        timeout: IDLE_REQUEST_MS,
      };
      const out = (https ? httpsRequest : httpRequest)(options, resolve);
      out.on('error', reject);
      out.on('timeout', () => {
        out.destroy(Object.assign(new Error(`no data for ${IDLE_REQUEST_MS} ms`), { code: 'ETIMEDOUT' }));
      });
      out.end(req.body);
    });
  }

  /** Sends a request and reads the whole body, within the signal's deadline. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    let res: IncomingMessage;
    try {
      res = await this.#exchange(req);
    } catch (err) {
      throw toUpstreamError(err, req.signal.aborted);
    }
    // Destroying the body below makes it emit an abort error; it is expected and handled here.
    res.on('error', () => {});
    const max = Math.min(this.#maxBytes, req.maxBytes ?? Infinity);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      res.destroy();
      throw new UpstreamError('invalid_response', `response of ${declared} bytes exceeds the limit of ${max}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res) {
        const buf = chunk as Buffer;
        size += buf.length;
        this.#receiving += buf.length;
        const over =
          size > max
            ? `response exceeds the limit of ${max} bytes`
            : req.budget && !req.budget.take(buf.length)
              ? `the poll round's responses exceed its budget of ${req.budget.limit} bytes`
              : this.#receiving > this.#processBudget
                ? `responses being received at once exceed the process budget of ${this.#processBudget} bytes`
                : undefined;
        if (over) {
          res.destroy();
          throw new UpstreamError('invalid_response', over);
        }
        chunks.push(buf);
      }
    } catch (err) {
      throw toUpstreamError(err, req.signal.aborted);
    } finally {
      this.#receiving -= size;
    }
    return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) };
  }

  /** Closes idle connections; in-flight requests are aborted by their signals. */
  close(): Promise<void> {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
    return Promise.resolve();
  }
}
