import { z } from 'zod';
import { UpstreamError } from '../http/errors.js';
import { parseJsonBody, parseRetryAfter, type Deadline } from '../http/json-rpc.js';
import { withRetry } from '../http/retry.js';
import { RESPONSE_CAPS, type HttpResponse, type HttpTransport } from '../http/transport.js';
import { describeIssues } from '../http/wire.js';
import { TokenBucket } from './token-bucket.js';
import { DEFAULT_DATA_API_KEY_HEADER, type DataApiNetwork } from '../config/data-api.js';

// The defaults and the network names are part of the configuration; they live in config/ so it need not import this client.
export type { DataApiNetwork } from '../config/data-api.js';

/** Largest `pageSize` the spec allows on the endpoints used. */
export const MAX_PAGE_SIZE = 100;

/** The Data API network of an AvalancheGo network id (1 mainnet, 5 fuji), or undefined for networks it does not serve. */
export function dataApiNetworkOf(networkId: number): DataApiNetwork | undefined {
  if (networkId === 1) return 'mainnet';
  if (networkId === 5) return 'fuji';
  return undefined;
}

/** The network id a Data API network stands for (`testnet` is an alias of fuji). */
export function networkIdOf(network: DataApiNetwork): number {
  return network === 'mainnet' ? 1 : 5;
}

/** Options of a {@link DataApiClient}. */
export interface DataApiClientOptions {
  transport: HttpTransport;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** API key; sent only in the key header, never logged. */
  apiKey?: string | undefined;
  /** Header that carries the key (default {@link DEFAULT_DATA_API_KEY_HEADER}). */
  keyHeader?: string;
  /** Client-side limit, requests per minute. */
  ratePerMinute: number;
  /** Requests sent back to back after a quiet period (default: the bucket's). */
  burst?: number;
  /**
   * Longest wait for one answer (default: half of what is left of the round).
   * A round may last most of its interval to stay within the rate limit
   * (see dataApiRoundMs), but the service answers within the poll timeout.
   */
  attemptTimeoutMs?: number;
  /** HTTP 429 answers one request waits out before its poll fails as `rate_limited`. */
  maxRateLimitRetries?: number;
  /** Sent as User-Agent: a shared public service deserves to know who calls it. */
  userAgent?: string;
}

/** Counters of the client that outlive poll rounds. */
export interface DataApiStats {
  /** HTTP 429 answers received since start. */
  rateLimited: number;
}

/** A query string's values; undefined values are left out. */
export type Query = Record<string, string | number | undefined>;

/** What a paged listing returned. */
export interface Listing<T> {
  items: T[];
  /** Pages fetched. */
  pages: number;
  /** False when the page bound stopped the listing before the last page. */
  complete: boolean;
}

/** The service's error body; `message` is a string or one string per failed constraint. */
const errorBody = z.object({
  message: z.union([z.string(), z.array(z.string())]),
  statusCode: z.number(),
  error: z.string(),
});

/** First backoff after a 429 without Retry-After; doubled per answer, with jitter. */
const RATE_LIMIT_BACKOFF_MS = 1_000;
/** Shortest time one attempt gets before it is abandoned and retried. */
const MIN_ATTEMPT_MS = 1_000;

function queryString(q: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * The text of a non-2xx body for the failure's message: the service's
 * `error: message` when it is its JSON error object (`serviceError`), else a
 * short snippet (a proxy's HTML page).
 */
export function describeErrorBody(body: Buffer): { text: string; serviceError: boolean } {
  try {
    const parsed = errorBody.safeParse(JSON.parse(body.toString('utf8')));
    if (parsed.success) {
      const msg = Array.isArray(parsed.data.message) ? parsed.data.message.join('; ') : parsed.data.message;
      return { text: `${parsed.data.error}: ${msg}`.slice(0, 300), serviceError: true };
    }
  } catch {
    // Not JSON: fall through to the snippet.
  }
  return { text: body.subarray(0, 160).toString('utf8').replace(/\s+/g, ' ').trim(), serviceError: false };
}

/** A non-2xx answer of the Data API, with the service's error text. */
export class DataApiHttpError extends UpstreamError {
  /** Whether the body was the service's `{message, statusCode, error}` object. */
  readonly serviceError: boolean;
  constructor(status: number, message: string, serviceError: boolean) {
    super('http_status', message, { status, retryable: status >= 500 });
    this.serviceError = serviceError;
  }
}

/** True when a 404 body is the service's own JSON error (the resource is absent), not some proxy's. */
export function isServiceNotFound(err: unknown): boolean {
  return err instanceof DataApiHttpError && err.status === 404 && err.serviceError;
}

/**
 * GET client of the Avalanche Data API on the shared transport. Every request
 * goes through one token bucket (the limit is per client, that is per
 * exporter); 5xx, connection failures and attempts that take too long are
 * retried inside the poll's deadline; a 429 is counted, pauses every request
 * for the time the service asked (Retry-After, seconds or HTTP date, else an
 * exponential backoff with jitter) and is waited out only when that fits in
 * the deadline. Other 4xx answers are final. The API key is sent in its header
 * and nowhere else: not in URLs, errors or logs.
 */
export class DataApiClient {
  readonly stats: DataApiStats = { rateLimited: 0 };
  readonly bucket: TokenBucket;
  readonly #headers: Record<string, string>;
  readonly #maxRateLimitRetries: number;

  constructor(private readonly opts: DataApiClientOptions) {
    this.bucket = new TokenBucket({ perMinute: opts.ratePerMinute, ...(opts.burst !== undefined ? { burst: opts.burst } : {}) });
    this.#maxRateLimitRetries = opts.maxRateLimitRetries ?? 2;
    this.#headers = { accept: 'application/json' };
    if (opts.userAgent) this.#headers['user-agent'] = opts.userAgent;
    if (opts.apiKey) this.#headers[(opts.keyHeader ?? DEFAULT_DATA_API_KEY_HEADER).toLowerCase()] = opts.apiKey;
  }

  /** GETs `path` and returns the body validated by `schema`. */
  async get<S extends z.ZodType>(path: string, query: Query, schema: S, deadline: Deadline): Promise<z.output<S>> {
    const what = `GET ${path}${queryString(query)}`;
    const body = await withRetry(() => this.#attempt(path + queryString(query), what, deadline), {
      signal: deadline.signal,
      deadline: deadline.at,
      minTimeoutMs: 250,
    });
    const parsed = schema.safeParse(parseJsonBody(body, what));
    if (!parsed.success) throw new UpstreamError('invalid_response', `${what}: unexpected response shape (${describeIssues(parsed.error)})`);
    return parsed.data;
  }

  /**
   * Lists a paged collection: follows `nextPageToken` until the last page,
   * until `enough` says so, or until `maxPages` pages (newest items come
   * first on every endpoint used, so a bound drops only the oldest).
   */
  async list<T>(
    path: string,
    query: Query,
    field: string,
    item: z.ZodType<T>,
    deadline: Deadline,
    opts: { maxPages: number; pageSize?: number; enough?: (items: readonly T[]) => boolean },
  ): Promise<Listing<T>> {
    const page = z.object({ nextPageToken: z.string().nullish(), [field]: z.array(item) });
    const items: T[] = [];
    let token: string | undefined;
    let pages = 0;
    for (;;) {
      const p = (await this.get(path, { ...query, pageSize: opts.pageSize ?? MAX_PAGE_SIZE, pageToken: token }, page, deadline)) as Record<string, unknown> & {
        nextPageToken?: string | null;
      };
      pages++;
      items.push(...(p[field] as T[]));
      token = p.nextPageToken || undefined;
      if (token === undefined || opts.enough?.(items)) return { items, pages, complete: true };
      if (pages >= opts.maxPages) return { items, pages, complete: false };
    }
  }

  /** One attempt, with its own time limit so a hung request leaves time to retry; 429s are waited out here. */
  async #attempt(pathAndQuery: string, what: string, deadline: Deadline): Promise<Buffer> {
    for (let limited = 0; ; limited++) {
      await this.bucket.take(deadline);
      const res = await this.#send(pathAndQuery, what, deadline);
      if (res.status >= 200 && res.status < 300) return res.body;
      const { text, serviceError } = describeErrorBody(res.body);
      if (res.status !== 429) throw new DataApiHttpError(res.status, `${what}: HTTP ${res.status} ${text}`.trim(), serviceError);
      this.stats.rateLimited++;
      const waitMs = this.#rateLimitWait(res, limited);
      const until = Date.now() + waitMs;
      // Every request of this client waits, not only this one: the limit is the service's, per key or address.
      this.bucket.pauseUntil(until);
      if (limited >= this.#maxRateLimitRetries || until >= deadline.at) {
        throw new UpstreamError('rate_limited', `${what}: HTTP 429 ${text} (asked to wait ${(waitMs / 1000).toFixed(1)} s)`, {
          status: 429,
          retryAfterSeconds: Math.ceil(waitMs / 1000),
        });
      }
    }
  }

  #rateLimitWait(res: HttpResponse, previous: number): number {
    // The service sets both Retry-After and ratelimit-reset to the seconds left in its window.
    const asked = parseRetryAfter(res.headers['retry-after']) ?? parseRetryAfter(res.headers['ratelimit-reset']);
    const base = asked !== undefined ? asked * 1000 : RATE_LIMIT_BACKOFF_MS * 2 ** previous;
    // Jitter only adds: waking up before the time the service named would just earn another 429.
    return Math.round(base + Math.random() * Math.max(100, base * 0.1));
  }

  async #send(pathAndQuery: string, what: string, deadline: Deadline): Promise<HttpResponse> {
    const attemptMs = Math.min(this.opts.attemptTimeoutMs ?? Infinity, Math.max(MIN_ATTEMPT_MS, Math.floor((deadline.at - Date.now()) / 2)));
    // A timer of our own, not AbortSignal.timeout: inside AbortSignal.any nothing holds a timeout signal, and Node
    // may collect it before it fires (nodejs/node#57736), leaving a hung request to wait for the round's deadline.
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort(new DOMException(`no answer within ${attemptMs} ms`, 'TimeoutError')), attemptMs);
    const attempt = AbortSignal.any([deadline.signal, expiry.signal]);
    try {
      return await this.opts.transport.send({
        url: this.opts.baseUrl + pathAndQuery,
        method: 'GET',
        headers: this.#headers,
        signal: attempt,
        maxBytes: RESPONSE_CAPS.dataApiPage,
      });
    } catch (err) {
      if (!deadline.signal.aborted && attempt.aborted) {
        throw new UpstreamError('timeout', `${what}: no answer within ${(attemptMs / 1000).toFixed(1)} s`, { retryable: true, cause: err });
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}
