import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Exposition } from '../exposition/render.js';
import type { ProcessBlock } from '../exposition/process-metrics.js';
import { BasicAuth, clientAuthType, fileStamps, loadWebConfig, type BasicAuthLimits, type WebConfig } from './web-config.js';
import { expositionBody } from './encoding.js';

/** Limits that protect the server from slow or greedy clients. */
export interface ServerLimits {
  /**
   * Time a connection has, from its TCP accept, to complete the TLS handshake
   * (if any) and send a whole request's headers (slow-loris, silent sockets);
   * also Node's own header timeout of later requests on a kept-alive connection.
   */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Time a TLS client has to complete its handshake (Node's default is 120 s). */
  tlsHandshakeTimeoutMs: number;
  /**
   * Open connections at most. A new one beyond takes the place of the
   * connection idle the longest (no request in flight: a kept-alive one, or
   * one that has not sent a request yet); with none idle, it is closed.
   */
  maxConnections: number;
  /** Open connections from one client address at most, enforced the same way within the address. */
  maxConnectionsPerAddress: number;
}

/** Defaults of {@link ServerLimits}. */
export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  tlsHandshakeTimeoutMs: 10_000,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 512,
};

/** Least idle time of a connection closed to make room for another. */
const MIN_IDLE_TO_EVICT_MS = 250;

/** One open connection, as the connection guard sees it. */
interface Conn {
  socket: Socket;
  address: string;
  acceptedMs: number;
  /** When it last became idle (accept, or end of its last response). */
  idleSinceMs: number;
  /** Requests in flight. */
  busy: number;
  /** Whether a whole request's headers arrived at least once. */
  served: boolean;
}

/**
 * Keeps the connection table from being filled by clients that give nothing
 * back, before authentication and before the TLS handshake (where the server
 * can tell nothing about a client but its address): a cap per client
 * address, a global cap at which the longest-idle connection makes room
 * (reclaiming kept-alive idle ones already from seven eighths of the cap), and
 * a deadline for the first request, TLS handshake included.
 */
class ConnectionGuard {
  /** Connections by remote address and port: the key a TLS socket shares with the TCP socket under it. */
  readonly #conns = new Map<string, Conn>();
  readonly #perAddress = new Map<string, number>();
  #sweeper: NodeJS.Timeout | undefined;
  /** Connections closed to make room, closed at accept, or cut at the first-request deadline. */
  readonly stats = { evicted: 0, refused: 0, timedOut: 0 };

  constructor(private readonly limits: ServerLimits) {}

  static keyOf(socket: Socket): string {
    return `${socket.remoteAddress ?? '?'}|${socket.remotePort ?? 0}`;
  }

  get size(): number {
    return this.#conns.size;
  }

  /** A new TCP connection: admitted (maybe in place of an idle one) or destroyed. */
  accept(socket: Socket): void {
    // No address: the peer is gone already, and there is nothing to count.
    if (socket.remoteAddress === undefined) return;
    const address = socket.remoteAddress;
    const now = Date.now();
    if ((this.#perAddress.get(address) ?? 0) >= this.limits.maxConnectionsPerAddress && !this.#evictIdle((c) => c.address === address)) {
      this.stats.refused++;
      socket.destroy();
      return;
    }
    // Seven eighths full: kept-alive idle connections go first, oldest idle first, before the cap is reached.
    if (this.#conns.size >= this.limits.maxConnections - Math.floor(this.limits.maxConnections / 8)) this.#evictIdle((c) => c.served);
    if (this.#conns.size >= this.limits.maxConnections && !this.#evictIdle(() => true)) {
      this.stats.refused++;
      socket.destroy();
      return;
    }
    const key = ConnectionGuard.keyOf(socket);
    const conn: Conn = { socket, address, acceptedMs: now, idleSinceMs: now, busy: 0, served: false };
    this.#conns.set(key, conn);
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => this.#forget(conn));
    this.#startSweeper();
  }

  /** A request's headers arrived on `socket`; the returned function marks its response done. */
  requestStarted(socket: Socket): () => void {
    const conn = this.#conns.get(ConnectionGuard.keyOf(socket));
    if (!conn) return () => undefined;
    conn.busy++;
    conn.served = true;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      conn.busy--;
      conn.idleSinceMs = Date.now();
    };
  }

  /**
   * Closes the connection idle the longest among those `which` selects; false
   * when there is none. One idle for less than {@link MIN_IDLE_TO_EVICT_MS} is
   * spared: it is most likely a client about to send its request, and evicting
   * those would let a burst of legitimate clients evict each other in turn.
   */
  #evictIdle(which: (c: Conn) => boolean): boolean {
    let oldest: Conn | undefined;
    const before = Date.now() - MIN_IDLE_TO_EVICT_MS;
    for (const c of this.#conns.values()) {
      if (c.busy === 0 && c.idleSinceMs <= before && which(c) && (oldest === undefined || c.idleSinceMs < oldest.idleSinceMs)) oldest = c;
    }
    if (!oldest) return false;
    this.stats.evicted++;
    this.#forget(oldest);
    oldest.socket.destroy();
    return true;
  }

  #forget(conn: Conn): void {
    const key = ConnectionGuard.keyOf(conn.socket);
    if (this.#conns.get(key) !== conn) return;
    this.#conns.delete(key);
    const n = (this.#perAddress.get(conn.address) ?? 1) - 1;
    if (n <= 0) this.#perAddress.delete(conn.address);
    else this.#perAddress.set(conn.address, n);
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    const every = Math.max(50, Math.min(1_000, Math.floor(this.limits.headersTimeoutMs / 4)));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref();
  }

  /** Cuts connections that have not completed a request's headers within the header timeout of their accept. */
  #sweep(): void {
    const now = Date.now();
    for (const c of this.#conns.values()) {
      if (!c.served && c.busy === 0 && now - c.acceptedMs > this.limits.headersTimeoutMs) {
        this.stats.timedOut++;
        this.#forget(c);
        c.socket.destroy();
      }
    }
    if (this.#conns.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  stop(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

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
  /** Called after each attempt to apply a changed web config: applied, or refused (and the old one kept). */
  onWebConfigReload?: (ok: boolean) => void;
  /** Bounds on bcrypt work for basic auth (tests lower them). */
  authLimits?: Partial<BasicAuthLimits>;
  /** `GET /probe?target=`: answers for one node of the allow-list (see src/server/probe.ts); undefined means no such endpoint. */
  probe?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': type, 'content-length': String(buf.length), ...extra });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

const TEXT = 'text/plain; charset=utf-8';

/** A web config change the running server cannot take. */
export class WebConfigChangeRefused extends Error {
  override readonly name = 'WebConfigChangeRefused';
}

/** Why the running server cannot take `next` in place of `cur`, if it cannot. */
function unappliable(cur: WebConfig, next: WebConfig): string | undefined {
  if (!cur.tls !== !next.tls) {
    return `turning TLS ${next.tls ? 'on' : 'off'} needs a restart (the listening socket is ${cur.tls ? 'TLS' : 'plain HTTP'})`;
  }
  if (clientAuthType(cur) !== clientAuthType(next)) {
    return `client_auth_type ${clientAuthType(cur)} -> ${clientAuthType(next)} needs a restart (it is a property of the listening socket)`;
  }
  return undefined;
}

/**
 * The web config in force, and a cheap way to notice that its files changed.
 * A change is all or nothing: the new file is validated as a whole (an empty
 * or unreadable one is invalid) and applied only when valid and when the
 * running server can take it; otherwise the config in force stays, whole.
 */
class WebLayer {
  config: WebConfig;
  auth: BasicAuth;
  #stamps: string;
  #checkedAt = Date.now();

  constructor(
    private readonly file: string,
    private readonly authLimits: Partial<BasicAuthLimits> = {},
  ) {
    this.config = loadWebConfig(file);
    this.auth = new BasicAuth(this.config.users, undefined, authLimits);
    this.#stamps = fileStamps(this.config.files);
  }

  /**
   * Re-reads the config when a file changed (at most once a second); returns
   * the new config when one was applied. Throws (the caller logs it) when the
   * change is invalid or cannot be taken: nothing of it is applied.
   */
  refresh(apply: (next: WebConfig) => void): WebConfig | undefined {
    const now = Date.now();
    if (now - this.#checkedAt < 1_000) return undefined;
    this.#checkedAt = now;
    const stamps = fileStamps(this.config.files);
    if (stamps === this.#stamps) return undefined;
    this.#stamps = stamps;
    const next = loadWebConfig(this.file);
    const why = unappliable(this.config, next);
    if (why) throw new WebConfigChangeRefused(`web config change refused, the running one is kept: ${why}`);
    apply(next); // throws: nothing changed
    this.config = next;
    this.auth = new BasicAuth(next.users, undefined, this.authLimits);
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
  const web = opts.webConfigFile ? new WebLayer(opts.webConfigFile, opts.authLimits) : undefined;
  const guard = new ConnectionGuard(limits);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (web) {
      try {
        const next = web.refresh((cfg) => {
          // The new certificate, key, CA and versions for the next handshakes; throws on a context OpenSSL refuses.
          if (cfg.tls && 'setSecureContext' in server) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(cfg.tls);
        });
        if (next) opts.onWebConfigReload?.(true);
      } catch (err) {
        opts.onWebConfigError?.(err as Error);
        opts.onWebConfigReload?.(false);
      }
      for (const [k, v] of Object.entries(web.config.headers)) res.setHeader(k, v);
      if (clientAuthType(web.config) === 'RequireAnyClientCert') {
        const cert = (req.socket as TLSSocket).getPeerCertificate?.();
        if (!cert || Object.keys(cert).length === 0) return send(res, req, 403, TEXT, 'client certificate required\n');
      }
      const verdict = await web.auth.verify(req.headers.authorization);
      if (verdict === 'busy') return send(res, req, 429, TEXT, 'too many authentication attempts in progress, retry later\n', { 'retry-after': '1' });
      if (verdict !== 'ok') {
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
    const done = guard.requestStarted(req.socket);
    res.once('close', done);
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, req, 500, TEXT, 'internal error\n');
      else res.destroy();
    });
  };
  const tls = web?.config.tls;
  // Node checks header and request timeouts on this interval (30 s by default): check often enough that the limits hold.
  const httpOptions = { connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs) };
  const server: Server = tls
    ? createHttpsServer({ ...tls, ...httpOptions, handshakeTimeout: limits.tlsHandshakeTimeoutMs }, listener)
    : createHttpServer(httpOptions, listener);
  // Bounded timeouts so idle or slow clients cannot hold connections forever.
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // The caps are the guard's, counted at TCP accept (before any TLS or HTTP work), not
  // server.maxConnections, which refuses newcomers however idle the connections it keeps are.
  server.prependListener('connection', (socket: Socket) => guard.accept(socket));
  server.once('close', () => guard.stop());
  return server;
}
