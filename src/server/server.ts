import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Exposition } from '../exposition/render.js';
import type { ProcessBlock } from '../exposition/process-metrics.js';
import { BasicAuth, clientAuthType, fileStamps, loadWebConfig, type WebConfig } from './web-config.js';
import { expositionBody } from './encoding.js';

/** Limits that protect the server from slow or greedy clients. */
export interface ServerLimits {
  /** Time a client has to send the request headers (slow-loris). */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are refused by the kernel backlog. */
  maxConnections: number;
}

/** Defaults of {@link ServerLimits}. */
export const DEFAULT_LIMITS: ServerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_024 };

/** What the HTTP server serves. */
export interface ServerOptions {
  telemetryPath: string;
  /** The current exposition (rendered after each poll round). */
  exposition: () => Exposition;
  /** Per-scrape process metrics appended after the exposition. */
  processBlock?: () => ProcessBlock;
  ready: () => boolean;
  landing: () => string;
  /** `/-/status`: the running configuration (secrets redacted) and each source's state, as JSON. */
  status?: () => unknown;
  /** `--web.config.file`: TLS, basic auth, headers; re-read when any of its files changes. */
  webConfigFile?: string;
  /** `POST /-/reload` handler; undefined means lifecycle endpoints are off (`--web.enable-lifecycle`). */
  reload?: () => Promise<{ ok: boolean; message: string }>;
  limits?: Partial<ServerLimits>;
  /** Reports web config reload problems (the old config keeps running). */
  onWebConfigError?: (err: Error) => void;
  /** `GET /probe?target=`: answers for one node of the allow-list (see src/server/probe.ts); undefined means no such endpoint. */
  probe?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': type, 'content-length': String(buf.length), ...extra });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

const TEXT = 'text/plain; charset=utf-8';

/** The web config in force, and a cheap way to notice that its files changed. */
class WebLayer {
  config: WebConfig;
  auth: BasicAuth;
  #stamps: string;
  #checkedAt = Date.now();

  constructor(private readonly file: string) {
    this.config = loadWebConfig(file);
    this.auth = new BasicAuth(this.config.users);
    this.#stamps = fileStamps(this.config.files);
  }

  /** Re-reads the config when a file changed (at most once a second); returns the new config, if any. */
  refresh(): WebConfig | undefined {
    const now = Date.now();
    if (now - this.#checkedAt < 1_000) return undefined;
    this.#checkedAt = now;
    const stamps = fileStamps(this.config.files);
    if (stamps === this.#stamps) return undefined;
    this.#stamps = stamps;
    const next = loadWebConfig(this.file); // throws: the caller keeps the old config
    this.config = next;
    this.auth = new BasicAuth(next.users);
    this.#stamps = fileStamps(next.files);
    return next;
  }
}

/**
 * The exporter's HTTP(S) server. `/metrics` writes a buffer rendered after the
 * last poll round, so a scrape costs no rendering and never waits on (or
 * fails because of) an upstream node. Only GET and HEAD are answered, apart
 * from `POST /-/reload` when lifecycle endpoints are on.
 */
export function createExporterServer(opts: ServerOptions): Server {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const web = opts.webConfigFile ? new WebLayer(opts.webConfigFile) : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (web) {
      try {
        const next = web.refresh();
        if (next?.tls && 'setSecureContext' in server) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(next.tls);
      } catch (err) {
        opts.onWebConfigError?.(err as Error);
      }
      for (const [k, v] of Object.entries(web.config.headers)) res.setHeader(k, v);
      if (clientAuthType(web.config) === 'RequireAnyClientCert') {
        const cert = (req.socket as TLSSocket).getPeerCertificate?.();
        if (!cert || Object.keys(cert).length === 0) return send(res, req, 403, TEXT, 'client certificate required\n');
      }
      if (!(await web.auth.check(req.headers.authorization))) {
        return send(res, req, 401, TEXT, 'unauthorized\n', { 'www-authenticate': 'Basic realm="avax-exporter", charset="UTF-8"' });
      }
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/-/reload' && req.method === 'POST' && opts.reload) {
      req.resume();
      const result = await opts.reload();
      return send(res, req, result.ok ? 200 : 500, TEXT, `${result.message}\n`);
    }
    if (path === '/-/reload' && opts.reload) return send(res, req, 405, TEXT, 'use POST\n', { allow: 'POST' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, req, 405, TEXT, 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    if (path === opts.telemetryPath) {
      const exp = opts.exposition();
      const proc = opts.processBlock?.();
      const { body: head, gzip: gz } = await expositionBody(exp, req);
      const tail = proc ? (gz ? proc.gzip : proc.text) : undefined;
      res.writeHead(200, {
        'content-type': exp.contentType,
        'content-length': String(head.length + (tail?.length ?? 0)),
        vary: 'Accept-Encoding',
        ...(gz ? { 'content-encoding': 'gzip' } : {}),
      });
      if (req.method === 'HEAD') return void res.end();
      // Two ready buffers, no copy: the cached exposition and the process block.
      if (tail && tail.length) res.write(head);
      res.end(tail && tail.length ? tail : head);
      return;
    }
    if (path === '/probe' && opts.probe) return opts.probe(req, res);
    if (path === '/-/healthy') return send(res, req, 200, TEXT, 'OK\n');
    if (path === '/-/ready') {
      return opts.ready() ? send(res, req, 200, TEXT, 'OK\n') : send(res, req, 503, TEXT, 'waiting for the first poll round\n');
    }
    if (path === '/') return send(res, req, 200, 'text/html; charset=utf-8', opts.landing());
    if (path === '/-/status' && opts.status) return send(res, req, 200, 'application/json; charset=utf-8', `${JSON.stringify(opts.status(), null, 2)}\n`);
    send(res, req, 404, TEXT, 'not found\n');
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, req, 500, TEXT, 'internal error\n');
      else res.destroy();
    });
  };
  const tls = web?.config.tls;
  // Node checks header and request timeouts on this interval (30 s by default): check often enough that the limits hold.
  const httpOptions = { connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs) };
  const server: Server = tls ? createHttpsServer({ ...tls, ...httpOptions }, listener) : createHttpServer(httpOptions, listener);
  // Bounded timeouts so idle or slow clients cannot hold connections forever.
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}
