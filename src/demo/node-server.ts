/**
 * The demo's simulated AvalancheGo node: a real `node:http` server that answers the node APIs the
 * exporter scrapes, with the wire shapes of AvalancheGo v1.14.2 (gorilla JSON-RPC envelopes,
 * decimal-string numbers, Go key order, trailing newlines, plain-text HTTP errors), computed
 * from {@link NodeServer.state} as AvalancheGo computes them.
 *
 * `--demo` drives it through its state, a plain mutable object with friendly types (bigint,
 * number, boolean, Date) that is serialised to the wire formats on every request, so a mutation
 * is visible on the next call. The method tables live beside it, one module per API
 * (rpc-info.ts, rpc-platform.ts, health.ts, rpc-chains.ts); the tests' fake node
 * (test/fakes/fake-node.ts) extends this server with a call log and fault injection.
 *
 * @packageDocumentation
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extMetricsText } from './ext-metrics.js';
import { gorilla } from './gorilla.js';
import { chainCreated, failCheckIn, healthHandlers, healthReply, passCheckIn, setChainNetworkingIn, type HealthReport } from './health.js';
import { bindServer, FakeHttpServer, type BoundServer } from './http-server.js';
import type { FakeNodeState } from './node-state.js';
import { advancePChain } from './p-chain-clock.js';
import { chainKey } from './rpc-args.js';
import { avmHandlers, geth, validatorsHandlers } from './rpc-chains.js';
import { infoHandlers } from './rpc-info.js';
import { platformHandlers } from './rpc-platform.js';
import { text, TEXT_CT, type Handler, type WireResponse } from './wire.js';

type GorillaService = 'info' | 'health' | 'platform' | 'avm' | 'validators';

/** What a request path (and HTTP method) reaches on the node. */
export type Endpoint =
  | { kind: 'health-get'; report: HealthReport }
  | { kind: 'gorilla'; service: GorillaService; chain?: string }
  | { kind: 'geth'; chain: string }
  | { kind: 'metrics' }
  | { kind: 'not-found' };

/** One request as the node received it. */
export interface NodeRequest {
  /** URL path without the query string. */
  path: string;
  /** Raw query string including the `?`, or `''`. */
  query: string;
  httpMethod: string;
  contentType: string | undefined;
  body: string;
  /** `Date.now()` when the request was fully received. */
  at: number;
  endpoint: Endpoint;
}

/** Options of {@link NodeServer.start}. */
export interface NodeServerOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port to bind; default 0 (any free port). */
  port?: number;
  /** The world the node answers from. */
  state: FakeNodeState;
}

const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping\n';
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A simulated AvalancheGo node listening on a real TCP port. */
export class NodeServer extends FakeHttpServer {
  /** The mutable world the node answers from. */
  state: FakeNodeState;

  protected constructor(bound: BoundServer, state: FakeNodeState) {
    super(bound);
    this.state = state;
  }

  /** Starts a node answering from `opts.state` (on 127.0.0.1, any free port, unless told). */
  static async start(opts: NodeServerOptions): Promise<NodeServer> {
    // Bind before constructing so that `port` and `url` are known (port 0 picks a free port).
    const node = new NodeServer(await bindServer(opts.host ?? '127.0.0.1', opts.port ?? 0), opts.state);
    node.attach();
    return node;
  }

  /**
   * Makes a health check fail as the health worker would: sets `error`, increments
   * `contiguousFailures`, keeps the first `timeOfFirstFailure`. Creates the check if absent.
   */
  failCheck(name: string, error: string): void {
    failCheckIn(this.state, name, error);
  }

  /** Makes a health check pass again: drops `error`, `contiguousFailures` and `timeOfFirstFailure`. */
  passCheck(name: string): void {
    passCheckIn(this.state, name);
  }

  /**
   * Sets what a chain's health check (`P`, `X`, `C` or an L1 blockchain ID) reports in
   * `message.networking`: the validators the node is not connected to and, when given, the
   * connected stake fraction (0..1, as AvalancheGo reports it).
   */
  setChainNetworking(chain: string, disconnectedValidators: string[], percentConnected?: number): void {
    setChainNetworkingIn(this.state, chain, disconnectedValidators, percentConnected);
  }

  protected answerInternalError(res: ServerResponse, err: unknown): void {
    res.writeHead(500, { 'Content-Type': TEXT_CT });
    res.end(`fake node error: ${err instanceof Error ? err.message : String(err)}\n`);
  }

  protected async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const rawUrl = req.url ?? '/';
    const qIdx = rawUrl.indexOf('?');
    const path = qIdx === -1 ? rawUrl : rawUrl.slice(0, qIdx);
    const query = qIdx === -1 ? '' : rawUrl.slice(qIdx);
    const httpMethod = req.method ?? 'GET';
    const at = Date.now();
    if (this.state.pChainClock) advancePChain(this.state, Math.floor(at / 1000));
    const endpoint = this.resolve(httpMethod, path);
    await this.serve({ path, query, httpMethod, contentType: req.headers['content-type'], body, at, endpoint }, res);
  }

  /** Answers a received request: the test fake overrides it to log the call and inject faults. */
  protected serve(r: NodeRequest, res: ServerResponse): Promise<void> {
    this.deliver(res, this.respond(r));
    return Promise.resolve();
  }

  /** The node's answer to a request, with its `node-id` header. */
  protected respond(r: NodeRequest): WireResponse {
    const wire = this.answer(r.endpoint, r.httpMethod, r.contentType, r.query, r.body);
    wire.headers['node-id'] = this.state.nodeId;
    return wire;
  }

  protected deliver(res: ServerResponse, wire: WireResponse): void {
    if (res.destroyed) return;
    const buf = typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : wire.body;
    res.writeHead(wire.status, { ...wire.headers, 'Content-Length': String(buf.length) });
    res.end(buf);
  }

  private resolve(httpMethod: string, path: string): Endpoint {
    switch (path) {
      case '/ext/health':
        // AvalancheGo serves GET with the health report and anything else with JSON-RPC.
        return httpMethod === 'GET' ? { kind: 'health-get', report: 'health' } : { kind: 'gorilla', service: 'health' };
      case '/ext/health/health':
        return { kind: 'health-get', report: 'health' };
      case '/ext/health/readiness':
        return { kind: 'health-get', report: 'readiness' };
      case '/ext/health/liveness':
        return { kind: 'health-get', report: 'liveness' };
      case '/ext/info':
        return { kind: 'gorilla', service: 'info' };
      case '/ext/metrics':
        return { kind: 'metrics' };
      case '/ext/P':
        return { kind: 'gorilla', service: 'platform', chain: 'P' };
      case '/ext/X':
        return chainCreated(this.state, 'X') ? { kind: 'gorilla', service: 'avm', chain: 'X' } : { kind: 'not-found' };
      default:
        break;
    }
    const m = /^\/ext\/bc\/([^/]+)(\/[^/]*)?$/.exec(path);
    if (!m) return { kind: 'not-found' };
    const key = chainKey(this.state, m[1] ?? '');
    const sub = m[2] ?? '';
    if (key === undefined) return { kind: 'not-found' };
    // A chain not created (yet) has no routes: 404, not 503 (health.ts chainCreated).
    if (!chainCreated(this.state, key)) return { kind: 'not-found' };
    if (key === 'P' && sub === '') return { kind: 'gorilla', service: 'platform', chain: 'P' };
    if (key === 'X' && sub === '') return { kind: 'gorilla', service: 'avm', chain: 'X' };
    if (key === 'P' || key === 'X') return { kind: 'not-found' };
    if (sub === '/rpc') return { kind: 'geth', chain: key };
    if (key !== 'C' && sub === '/validators' && Object.hasOwn(this.state.l1Uptimes, key)) {
      return { kind: 'gorilla', service: 'validators', chain: key };
    }
    return { kind: 'not-found' };
  }

  private answer(endpoint: Endpoint, httpMethod: string, contentType: string | undefined, query: string, body: string): WireResponse {
    switch (endpoint.kind) {
      case 'not-found':
        return text(404, '404 page not found\n', true);
      case 'metrics':
        // AvalancheGo's own Prometheus endpoint (promhttp, any method): see ext-metrics.ts.
        return { status: 200, headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }, body: extMetricsText(this.state) };
      case 'health-get': {
        const tags = new URLSearchParams(query).getAll('tag');
        const reply = healthReply(this.state, endpoint.report, tags);
        return {
          status: reply.healthy ? 200 : 503,
          headers: { 'Content-Type': 'application/json' },
          body: `${JSON.stringify(reply)}\n`,
        };
      }
      case 'gorilla':
        if (endpoint.chain !== undefined && this.state.bootstrapped[endpoint.chain] === false) {
          return text(503, NOT_BOOTSTRAPPED, true);
        }
        return gorilla(endpoint.service, this.handlers(endpoint.service, endpoint.chain), httpMethod, contentType, body);
      case 'geth':
        if (this.state.bootstrapped[endpoint.chain] === false) return text(503, NOT_BOOTSTRAPPED, true);
        return geth(this.state, endpoint.chain, httpMethod, contentType, body);
    }
  }

  // -------------------------------------------------------------------------------------------
  // gorilla/rpc v2 json2 emulation
  // -------------------------------------------------------------------------------------------
  /** Method tables per gorilla service, keyed by Go method name. */
  private handlers(service: GorillaService, chain: string | undefined): Record<string, Handler> {
    switch (service) {
      case 'info':
        return infoHandlers(this.state);
      case 'health':
        return healthHandlers(this.state);
      case 'platform':
        return platformHandlers(this.state);
      case 'avm':
        return avmHandlers(this.state);
      case 'validators':
        return validatorsHandlers(this.state, chain ?? '');
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
