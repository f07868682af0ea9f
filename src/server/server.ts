import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Exposition } from '../exposition/render.js';
import type { ProcessBlock } from '../exposition/process-metrics.js';
import { clientAuthType, fileStamps, loadWebConfig, type WebConfig } from './web-config.js';
import { BasicAuth, type BasicAuthLimits } from './basic-auth.js';
import { expositionBody } from './encoding.js';
import { clientKey, ConnectionGuard, DEFAULT_LIMITS, limitsForProbeTargets, type ServerLimits } from './connection-guard.js';

/** What the HTTP server serves. */
export interface ServerOptions {
  telemetryPath: string;
  /** The current exposition (rendered after each poll round). */
  exposition: () => Exposition;
  /** Per-scrape process metrics appended after the exposition. */
  processBlock?: () => ProcessBlock;
  ready: () => boolean;
  landing: () => string | Promise<string>;
  /** `/-/status`: the running configuration (secrets redacted) and each source's state, as JSON. */
  status?: () => unknown;
  /** `--web.config.file`: TLS, basic auth, headers; re-read when any of its files changes. */
  webConfigFile?: string;
  /** `POST /-/reload` handler; undefined means lifecycle endpoints are off (`--web.enable-lifecycle`). */
  reload?: () => Promise<{ ok: boolean; message: string }>;
  limits?: Partial<ServerLimits>;
  /**
   * The probe-only targets a scraper may probe now (`probe.targets`, at most
   * `probe.max_targets`), asked as connections and probes come: the caps on
   * connections and on `/probe` requests in flight grow with it (see
   * limitsForProbeTargets). None when absent.
   */
  probeTargets?: () => number;
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
  // A half-written file, or one cut short, most often lacks its last section: taken live, it would open the server.
  if (Object.keys(cur.users).length > 0 && Object.keys(next.users).length === 0) {
    return 'turning basic auth off (no basic_auth_users) needs a restart, like turning TLS off';
  }
  return undefined;
}

/** How often the web config's files are looked at; a change is applied once two looks this far apart agree. */
export const WEB_CONFIG_CHECK_MS = 500;

/**
 * The web config in force, and a timer that notices when its files change,
 * off the request path: requests only read {@link config} and {@link auth}.
 * A change is all or nothing: it is read only once two looks
 * {@link WEB_CONFIG_CHECK_MS} apart saw the same files (a file being written
 * is left alone until it settles), then validated as a whole (an empty,
 * unreadable, special or oversized file is invalid), applied only when the
 * running server can take it and when the files did not change while they
 * were read; otherwise the config in force stays, whole.
 */
class WebLayer {
  config: WebConfig;
  auth: BasicAuth;
  /** Stamps of the files in force. */
  #stamps: string;
  /** Stamps of a change seen once, waiting for a second look to agree. */
  #candidate: string | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly authLimits: Partial<BasicAuthLimits> = {},
  ) {
    this.config = loadWebConfig(file);
    this.auth = new BasicAuth(this.config.users, undefined, authLimits);
    this.#stamps = fileStamps(this.config.files);
  }

  /** Starts looking at the files every {@link WEB_CONFIG_CHECK_MS}; `outcome` hears of each attempt to apply a change. */
  watch(apply: (next: WebConfig) => void, outcome: (err: Error | undefined) => void): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      let next: WebConfig | undefined;
      try {
        next = this.refresh(apply);
      } catch (err) {
        outcome(err as Error);
        return;
      }
      if (next) outcome(undefined);
    }, WEB_CONFIG_CHECK_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * One look at the files; returns the new config when one was applied.
   * Throws (the caller logs it) when a settled change is invalid or cannot
   * be taken: nothing of it is applied.
   */
  refresh(apply: (next: WebConfig) => void): WebConfig | undefined {
    const stamps = fileStamps(this.config.files);
    if (stamps === this.#stamps) {
      this.#candidate = undefined;
      return undefined;
    }
    if (stamps !== this.#candidate) {
      // Seen once: wait for the next look to agree.
      this.#candidate = stamps;
      return undefined;
    }
    this.#candidate = undefined;
    this.#stamps = stamps;
    const next = loadWebConfig(this.file);
    // Changed while being read: the next looks decide again.
    if (fileStamps(this.config.files) !== stamps) {
      this.#stamps = '';
      return undefined;
    }
    const why = unappliable(this.config, next);
    if (why) throw new WebConfigChangeRefused(`web config change refused, the running one is kept: ${why}`);
    apply(next); // throws: nothing changed
    this.config = next;
    this.auth = new BasicAuth(next.users, undefined, this.authLimits);
    this.#stamps = fileStamps(next.files);
    return next;
  }
}

/** Content types a browser may send cross-origin without asking first (an HTML form, or fetch without CORS). */
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\s*(;|$)/i;

/**
 * Why a state-changing request looks like it came from a web page rather
 * than an operator's tool, if it does (the lifecycle API's CSRF guard): an
 * `Origin` other than the server's own, a cross-site fetch, or a body type an
 * HTML form can send.
 */
function crossSiteReason(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host === undefined || host !== req.headers.host) return `requests from another origin (${origin.slice(0, 100)}) cannot change the exporter's state`;
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') return "cross-site requests cannot change the exporter's state";
  const type = req.headers['content-type'];
  if (type !== undefined && FORM_TYPES.test(type)) {
    return `a ${type.split(';')[0]?.trim()} body is what an HTML form sends: send the request without a body (curl -X POST), or as application/json`;
  }
  return undefined;
}

/**
 * The exporter's HTTP(S) server. `/metrics` writes a buffer rendered after the
 * last poll round, so a scrape costs no rendering and never waits on (or
 * fails because of) an upstream node. Only GET and HEAD are answered, apart
 * from `POST /-/reload` when lifecycle endpoints are on.
 */
export function createExporterServer(opts: ServerOptions): Server {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  // The caps that grow with the probe-only targets, made again only when their number changes (a reload).
  let scaled = { targets: 0, limits };
  const limitsNow = (): ServerLimits => {
    const targets = opts.probeTargets?.() ?? 0;
    if (targets !== scaled.targets) scaled = { targets, limits: limitsForProbeTargets(limits, targets) };
    return scaled.limits;
  };
  const web = opts.webConfigFile ? new WebLayer(opts.webConfigFile, opts.authLimits) : undefined;
  const guard = new ConnectionGuard(limitsNow);

  const probes = { total: 0, byAddress: new Map<string, number>() };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const client = clientKey(req.socket.remoteAddress);
    if (web) {
      for (const [k, v] of Object.entries(web.config.headers)) res.setHeader(k, v);
      if (clientAuthType(web.config) === 'RequireAnyClientCert') {
        const cert = (req.socket as TLSSocket).getPeerCertificate?.();
        if (!cert || Object.keys(cert).length === 0) return send(res, req, 403, TEXT, 'client certificate required\n');
      }
      const verdict = await web.auth.verify(req.headers.authorization, client);
      if (verdict === 'busy') return send(res, req, 429, TEXT, 'too many authentication attempts in progress, retry later\n', { 'retry-after': '1' });
      if (verdict !== 'ok') {
        return send(res, req, 401, TEXT, 'unauthorized\n', { 'www-authenticate': 'Basic realm="avax-exporter", charset="UTF-8"' });
      }
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/-/reload' && (req.method === 'POST' || req.method === 'PUT')) {
      req.resume();
      // As Prometheus answers when its lifecycle API is off.
      if (!opts.reload) return send(res, req, 403, TEXT, 'Lifecycle API is not enabled (start the exporter with --web.enable-lifecycle).\n');
      const foreign = crossSiteReason(req);
      if (foreign) return send(res, req, 403, TEXT, `${foreign}\n`);
      if (req.method === 'PUT') return send(res, req, 405, TEXT, 'use POST\n', { allow: 'POST' });
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
    if (path === '/probe' && opts.probe) {
      const mine = probes.byAddress.get(client) ?? 0;
      const caps = limitsNow();
      if (probes.total >= caps.maxProbesInFlight || mine >= caps.maxProbesInFlightPerAddress) {
        const which = mine >= caps.maxProbesInFlightPerAddress ? `${caps.maxProbesInFlightPerAddress} from this address` : `${caps.maxProbesInFlight} in all`;
        return send(res, req, 503, TEXT, `too many /probe requests in flight (${which}), retry later\n`, { 'retry-after': '1', 'cache-control': 'no-store' });
      }
      probes.total++;
      probes.byAddress.set(client, mine + 1);
      res.once('close', () => {
        probes.total--;
        const n = (probes.byAddress.get(client) ?? 1) - 1;
        if (n <= 0) probes.byAddress.delete(client);
        else probes.byAddress.set(client, n);
      });
      return opts.probe(req, res);
    }
    if (path === '/-/healthy') return send(res, req, 200, TEXT, 'OK\n');
    if (path === '/-/ready') {
      return opts.ready() ? send(res, req, 200, TEXT, 'OK\n') : send(res, req, 503, TEXT, 'waiting for the first poll round\n');
    }
    if (path === '/') return send(res, req, 200, 'text/html; charset=utf-8', await opts.landing());
    if (path === '/-/status' && opts.status) return send(res, req, 200, 'application/json; charset=utf-8', `${JSON.stringify(opts.status(), null, 2)}\n`);
    send(res, req, 404, TEXT, 'not found\n');
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const done = guard.requestStarted(req.socket);
    // A response not written in full in time (a client that never reads, a handler that never ends) loses its connection.
    const deadline = setTimeout(() => {
      guard.stats.timedOut++;
      req.socket.destroy();
    }, limits.responseTimeoutMs);
    deadline.unref();
    res.once('close', () => {
      clearTimeout(deadline);
      done();
    });
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
  server.once('close', () => {
    guard.stop();
    web?.stop();
  });
  web?.watch(
    (cfg) => {
      // The new certificate, key, CA, versions and ciphers for the next handshakes; throws on a context OpenSSL refuses.
      if (cfg.tls && 'setSecureContext' in server) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(cfg.tls);
    },
    (err) => {
      if (err) opts.onWebConfigError?.(err);
      opts.onWebConfigReload?.(err === undefined);
    },
  );
  return server;
}
