import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { UpstreamError, toUpstreamError } from './errors.js';

/** Options of the shared HTTP transport. */
export interface TransportOptions {
  /** Largest response body accepted, in bytes; larger ones are `invalid_response`. */
  maxResponseBytes?: number;
  /** Keep-alive connections per origin. */
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
}

/** Default cap on a response body: a mainnet `getCurrentValidators` is a few MB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The one HTTP client every source uses: keep-alive connection reuse through an
 * undici Agent, a bounded body, and failures mapped to {@link UpstreamError}.
 */
export class HttpTransport {
  readonly #agent: Agent;
  readonly #maxBytes: number;

  constructor(opts: TransportOptions = {}) {
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#agent = new Agent({
      connections: opts.connectionsPerOrigin ?? 8,
      keepAliveTimeout: 30_000,
      // The poll deadline (AbortSignal) bounds every request; these only stop
      // a connection from living forever if a signal is ever forgotten.
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
  }

  /** Sends a request and reads the whole body, within the signal's deadline. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    let res: Dispatcher.ResponseData;
    try {
      res = await undiciRequest(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        dispatcher: this.#agent,
      });
    } catch (err) {
      throw toUpstreamError(err, req.signal.aborted);
    }
    // Destroying the body below makes it emit an abort error; it is expected and handled here.
    res.body.on('error', () => {});
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#maxBytes) {
      res.body.destroy();
      throw new UpstreamError('invalid_response', `response of ${declared} bytes exceeds the limit of ${this.#maxBytes}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > this.#maxBytes) {
          res.body.destroy();
          throw new UpstreamError('invalid_response', `response exceeds the limit of ${this.#maxBytes} bytes`);
        }
        chunks.push(buf);
      }
    } catch (err) {
      throw toUpstreamError(err, req.signal.aborted);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks, size) };
  }

  /** Closes idle connections; in-flight requests are aborted by their signals. */
  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}
