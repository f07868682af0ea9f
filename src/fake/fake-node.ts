/**
 * A fake AvalancheGo node: a real `node:http` server that answers the node APIs the exporter
 * scrapes, with the wire shapes of AvalancheGo v1.14.2 (gorilla JSON-RPC envelopes, decimal-string
 * numbers, Go key order, trailing newlines, plain-text HTTP errors).
 *
 * Tests and the daemon's `--demo` mode drive it through {@link FakeNode.state}, a plain mutable
 * object with friendly types (bigint, number, boolean, Date) that is serialised to the wire
 * formats on every request, so a mutation is visible on the next call. Faults (status codes,
 * hangs, resets, malformed bodies, delays, slow bodies) are injected per method or route with
 * {@link FakeNode.setFault}.
 *
 * @packageDocumentation
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { FakeHttpServer, bindServer, type BoundServer } from './fake-server.js';
import { defaultFakeState, isCb58Id, isCb58NodeId, PRIMARY_NETWORK_ID } from './fake-data.js';
import { extMetricsText } from './ext-metrics.js';
import { advancePChain, nodeUptime } from './p-chain-clock.js';
import type { FakeOwner, FakeValidator, FakeL1Validator, FakeCheck, FakePeer, FakeNodeState } from './fake-state.js';
// The state model lives in fake-state.ts; it is re-exported here, where tests and the demo have always found it.
export type { FakeOwner, FakeValidator, FakeL1Validator, FakeCheck, FakePeer, FakeL1Uptime, FakeNodeState } from './fake-state.js';

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

/** A failure to inject with {@link FakeNode.setFault}. */
export type Fault =
  /** Answer with this HTTP status and body (default text `<status> <reason>`), like a proxy would (no node-id header). */
  | { kind: 'status'; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  /** Never answer (until the client gives up or the node stops). */
  | { kind: 'hang' }
  /** Send the headers and part of the normal body, then destroy the socket. */
  | { kind: 'reset' }
  /** Answer with this raw body (default status 200, JSON content type). */
  | { kind: 'body'; body: string | Buffer; status?: number }
  /** Answer with this raw JSON text as the `result`, keeping the request's id (optionally with an `error` object too). */
  | { kind: 'result'; json: string | Buffer; withError?: boolean }
  /** Answer with a JSON-RPC error in the endpoint's dialect (gorilla or geth). */
  | { kind: 'rpc-error'; code: number; message: string }
  /** Answer normally after a delay. */
  | { kind: 'delay'; ms: number }
  /** Answer normally but send the body slowly. */
  | { kind: 'trickle'; bytesPerSecond: number };

/** Options of {@link FakeNode.start}. */
export interface FakeNodeOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port to bind; default 0 (any free port). */
  port?: number;
  /** Overrides merged (shallowly) over {@link defaultFakeState}. */
  state?: Partial<FakeNodeState>;
  /**
   * Keep at most about this many entries in {@link FakeNode.calls} (oldest dropped), so a
   * long-running demo does not grow without bound. Default 100 000.
   */
  maxCalls?: number;
}

// ---------------------------------------------------------------------------------------------
// Wire helpers
// ---------------------------------------------------------------------------------------------

/** A fully computed HTTP answer; faults decide how (or whether) it is delivered. */
interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** Text, or raw bytes (a fault may send invalid UTF-8). */
  body: string | Buffer;
}

/** Which JSON-RPC dialect an endpoint speaks: needed to shape `rpc-error` faults. */
type Dialect = 'gorilla' | 'geth' | 'none';

type GorillaService = 'info' | 'health' | 'platform' | 'avm' | 'validators';

type Endpoint =
  | { kind: 'health-get'; report: 'health' | 'readiness' | 'liveness' }
  | { kind: 'gorilla'; service: GorillaService; chain?: string }
  | { kind: 'geth'; chain: string }
  | { kind: 'metrics' }
  | { kind: 'not-found' };

const JSON_CT = 'application/json; charset=utf-8';
const TEXT_CT = 'text/plain; charset=utf-8';
const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping\n';
const INVALID_ARGS = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A JSON-RPC error raised by a handler (always -32000 unless said otherwise). */
class RpcError extends Error {
  constructor(
    message: string,
    readonly code = -32000,
  ) {
    super(message);
  }
}

/** Parameter decoding failed; AvalancheGo hides the cause behind a fixed message. */
class InvalidArgs extends Error {}

/** uint64/uint32 fields are decimal strings on the wire (`json.Uint64`). */
function dec(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString() : BigInt(Math.trunc(v)).toString();
}

/** `json.Float32` with 4 decimals, as the P-Chain emits uptime and delegationFee. */
function pct32(v: number): string {
  return Math.fround(v).toFixed(4);
}

/** `json.Float64` with 4 decimals (info.uptime). */
function pct64(v: number): string {
  return v.toFixed(4);
}

/** Whole-second RFC3339 in UTC, as Go's `time.Unix(...)` prints on a UTC host. */
function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's RFC3339Nano: fractional seconds with trailing zeros trimmed. */
export function rfc3339Nano(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, (_m, frac: string) => {
    const trimmed = frac.replace(/0+$/, '');
    return trimmed === '' ? 'Z' : `.${trimmed}Z`;
  });
}

/** Go's encoding/json sorts map keys by their bytes; health messages are maps. */
function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort(compareBytes)) out[k] = sortKeysDeep((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** AvalancheGo `set.Set` marshals elements and sorts them by their JSON bytes. */
function jsonSortedSet<T>(items: readonly T[]): T[] {
  return [...new Set(items)]
    .map((v) => ({ v, k: JSON.stringify(v) }))
    .sort((a, b) => compareBytes(a.k, b.k))
    .map((e) => e.v);
}

function owner(o: FakeOwner): Record<string, unknown> {
  return { locktime: dec(o.locktime), threshold: dec(o.threshold), addresses: [...o.addresses] };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Known network names (`constants.NetworkIDToNetworkName`). */
function networkNameFor(id: number): string {
  const names: Record<number, string> = {
    1: 'mainnet',
    2: 'cascade',
    3: 'denali',
    4: 'everest',
    5: 'fuji',
    10: 'testing',
    12345: 'local',
  };
  return names[id] ?? `network-${id}`;
}

/** Go's `unicode.IsUpper`, close enough for method names. */
function isUpper(ch: string): boolean {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/**
 * An approximation of Go's json decoder error text for a body that is not valid JSON: exact for
 * the common cases (empty body, truncated body), generic for syntax errors.
 */
function goJsonErrorText(text: string, err: unknown): string {
  if (text.trim() === '') return 'EOF';
  const msg = err instanceof Error ? err.message : '';
  if (/end of JSON input|Unterminated/i.test(msg)) return 'unexpected EOF';
  const m = /position (\d+)/.exec(msg);
  const ch = m ? text[Number(m[1])] : undefined;
  return ch === undefined ? 'unexpected EOF' : `invalid character '${ch}' looking for beginning of value`;
}

/** The JSON type word Go uses in unmarshal errors. */
function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}

function errorBody(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Error'}`;
}

// ---------------------------------------------------------------------------------------------
// Argument decoding (Go encoding/json semantics, simplified)
// ---------------------------------------------------------------------------------------------

/**
 * gorilla json2 decodes params into the args struct, falling back to a one-element array
 * `[ {...} ]`; absent or null params leave the args zero. Anything else is an error.
 */
function argsObject(params: unknown): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  if (Array.isArray(params)) {
    // Go unmarshals into [1]interface{}: extra elements are dropped, an empty array is fine.
    const first: unknown = params[0];
    if (first === undefined || first === null) return {};
    if (isPlainObject(first)) return first;
    throw new InvalidArgs();
  }
  if (isPlainObject(params)) return params;
  throw new InvalidArgs();
}

/** encoding/json matches field names case-insensitively, preferring an exact match. */
function field(args: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(args, name)) return args[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(args)) if (k.toLowerCase() === lower) return args[k];
  return undefined;
}

function optString(args: Record<string, unknown>, name: string): string | undefined {
  const v = field(args, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidArgs();
  return v;
}

function optStringArray(args: Record<string, unknown>, name: string): string[] {
  const v = field(args, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) throw new InvalidArgs();
  return v;
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

/**
 * A fake AvalancheGo node listening on a real TCP port.
 *
 * @example
 * const node = await FakeNode.start();
 * node.state.heights.P = 42n;
 * node.setFault('info.peers', { kind: 'status', status: 502 });
 * await node.stop();
 */
export class FakeNode extends FakeHttpServer {
  /** The mutable world the node answers from. */
  state: FakeNodeState;
  /** Every request received, oldest first (bounded by `maxCalls`). */
  readonly calls: FakeCall[] = [];

  private readonly maxCalls: number;
  private readonly faults = new Map<string, Fault>();

  private constructor(bound: BoundServer, state: FakeNodeState, maxCalls: number) {
    super(bound);
    this.state = state;
    this.maxCalls = maxCalls;
  }

  /** Starts a fake node (default: the fixture world on 127.0.0.1, any free port). */
  static async start(opts: FakeNodeOptions = {}): Promise<FakeNode> {
    const host = opts.host ?? '127.0.0.1';
    const state: FakeNodeState = { ...defaultFakeState(), ...opts.state };
    // Bind before constructing so that `port` and `url` are known (port 0 picks a free port).
    const node = new FakeNode(await bindServer(host, opts.port ?? 0), state, opts.maxCalls ?? 100_000);
    node.attach();
    return node;
  }

  /**
   * Injects a fault. `target` is, by priority: a JSON-RPC method as sent (`'info.peers'`,
   * `'eth_blockNumber'`), `'<HTTP method> <path>'` (`'GET /ext/health'`, `'POST /ext/bc/P'`),
   * a bare path (`'/ext/info'`), a GET health shorthand (`'health'`, `'readiness'`,
   * `'liveness'`), or `'*'`. `undefined` removes the fault.
   */
  setFault(target: string, fault: Fault | undefined): void {
    if (fault === undefined) this.faults.delete(target);
    else this.faults.set(target, fault);
  }

  /** Removes every fault. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** Empties {@link FakeNode.calls}. */
  clearCalls(): void {
    this.calls.length = 0;
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

    const call: FakeCall = { path, query, httpMethod, at: Date.now() };
    if (this.state.pChainClock) advancePChain(this.state, Math.floor(call.at / 1000));
    const peek = peekRpc(body);
    if (peek.method !== undefined) call.rpcMethod = peek.method;
    if (peek.hasParams) call.params = peek.params;
    this.record(call);

    const endpoint = this.resolve(httpMethod, path);
    const fault = this.findFault(call, endpoint);
    const dialect: Dialect = endpoint.kind === 'gorilla' ? 'gorilla' : endpoint.kind === 'geth' ? 'geth' : 'none';

    if (fault?.kind === 'hang') return; // the socket stays open until the client or stop() closes it
    if (fault?.kind === 'status') {
      const b = fault.body ?? errorBody(fault.status);
      return this.deliver(res, { status: fault.status, headers: { 'Content-Type': fault.contentType ?? TEXT_CT, ...fault.headers }, body: b });
    }
    if (fault?.kind === 'result') {
      const id = JSON.stringify(peek.id === undefined ? null : peek.id);
      const error = fault.withError ? ',"error":{"code":-32000,"message":"also an error","data":null}' : '';
      return this.deliver(res, {
        status: 200,
        headers: { 'Content-Type': dialect === 'geth' ? 'application/json' : JSON_CT, 'node-id': this.state.nodeId },
        body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","result":'), Buffer.from(fault.json), Buffer.from(`${error},"id":${id}}\n`)]),
      });
    }
    if (fault?.kind === 'body') {
      return this.deliver(res, {
        status: fault.status ?? 200,
        headers: { 'Content-Type': dialect === 'geth' ? 'application/json' : JSON_CT, 'node-id': this.state.nodeId },
        body: fault.body,
      });
    }
    if (fault?.kind === 'rpc-error') {
      const id = peek.id === undefined ? null : peek.id;
      const text =
        dialect === 'geth'
          ? JSON.stringify({ jsonrpc: '2.0', id, error: { code: fault.code, message: fault.message } })
          : JSON.stringify({ jsonrpc: '2.0', error: { code: fault.code, message: fault.message, data: null }, id });
      return this.deliver(res, {
        status: 200,
        headers: {
          'Content-Type': dialect === 'geth' ? 'application/json' : JSON_CT,
          'node-id': this.state.nodeId,
        },
        body: `${text}\n`,
      });
    }

    const wire = this.answer(endpoint, httpMethod, req.headers['content-type'], query, body);
    wire.headers['node-id'] = this.state.nodeId;

    if (fault?.kind === 'delay') {
      await this.sleep(fault.ms);
      if (res.destroyed || !this.listening) return;
    }
    if (fault?.kind === 'reset') return this.deliverPartial(res, wire);
    if (fault?.kind === 'trickle') return this.deliverSlowly(res, wire, fault.bytesPerSecond);
    this.deliver(res, wire);
  }

  private record(call: FakeCall): void {
    this.calls.push(call);
    // Trim in batches so the cost per request stays O(1) amortised.
    if (this.calls.length > this.maxCalls + Math.max(16, Math.floor(this.maxCalls / 4))) {
      this.calls.splice(0, this.calls.length - this.maxCalls);
    }
  }

  private findFault(call: FakeCall, endpoint: Endpoint): Fault | undefined {
    if (this.faults.size === 0) return undefined;
    const keys: string[] = [];
    if (call.rpcMethod !== undefined) keys.push(call.rpcMethod);
    keys.push(`${call.httpMethod} ${call.path}`, call.path);
    if (endpoint.kind === 'health-get') keys.push(endpoint.report);
    keys.push('*');
    for (const k of keys) {
      const f = this.faults.get(k);
      if (f) return f;
    }
    return undefined;
  }

  private deliver(res: ServerResponse, wire: WireResponse): void {
    if (res.destroyed) return;
    const buf = typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : wire.body;
    res.writeHead(wire.status, { ...wire.headers, 'Content-Length': String(buf.length) });
    res.end(buf);
  }

  private deliverPartial(res: ServerResponse, wire: WireResponse): void {
    if (res.destroyed) return;
    // An empty body cannot be cut short; announce a body that never fully arrives instead.
    const full =
      wire.body.length === 0 ? Buffer.from('{"jsonrpc":"2.0","result":{}}\n') : typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : wire.body;
    res.writeHead(wire.status, { ...wire.headers, 'Content-Length': String(full.length) });
    res.write(full.subarray(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
  }

  private deliverSlowly(res: ServerResponse, wire: WireResponse, bytesPerSecond: number): void {
    if (res.destroyed) return;
    const buf = typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : wire.body;
    res.writeHead(wire.status, { ...wire.headers, 'Content-Length': String(buf.length) });
    const bps = Math.max(bytesPerSecond, 0.001);
    let intervalMs = 100;
    let chunk = Math.floor(bps / 10);
    if (chunk < 1) {
      chunk = 1;
      intervalMs = 1000 / bps;
    }
    let offset = 0;
    const step = (): void => {
      if (res.destroyed) return;
      const next = buf.subarray(offset, offset + chunk);
      offset += next.length;
      if (offset >= buf.length) {
        res.end(next);
        return;
      }
      res.write(next);
      this.later(intervalMs, step);
    };
    step();
  }

  // -------------------------------------------------------------------------------------------
  // Routing
  // -------------------------------------------------------------------------------------------

  /** Maps an alias (P/platform, X/avm, C/evm), a primary chain ID or an L1 chain ID to its state key. */
  private chainKey(alias: string): string | undefined {
    const { P, X, C } = this.state.chainIds;
    if (alias === 'P' || alias === 'platform' || alias === P) return 'P';
    if (alias === 'X' || alias === 'avm' || alias === X) return 'X';
    if (alias === 'C' || alias === 'evm' || alias === C) return 'C';
    if (Object.hasOwn(this.state.bootstrapped, alias)) return alias;
    const aliased = this.state.chainAliases?.[alias];
    if (aliased !== undefined && Object.hasOwn(this.state.bootstrapped, aliased)) return aliased;
    return undefined;
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
        return this.state.partialSync ? { kind: 'not-found' } : { kind: 'gorilla', service: 'avm', chain: 'X' };
      default:
        break;
    }
    const m = /^\/ext\/bc\/([^/]+)(\/[^/]*)?$/.exec(path);
    if (!m) return { kind: 'not-found' };
    const key = this.chainKey(m[1] ?? '');
    const sub = m[2] ?? '';
    if (key === undefined) return { kind: 'not-found' };
    // A chain that was never created has no routes (partial sync: X and C).
    if (this.state.partialSync && (key === 'X' || key === 'C')) return { kind: 'not-found' };
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
        const reply = this.healthReply(endpoint.report, tags);
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
        return this.gorilla(endpoint.service, endpoint.chain, httpMethod, contentType, body);
      case 'geth':
        if (this.state.bootstrapped[endpoint.chain] === false) return text(503, NOT_BOOTSTRAPPED, true);
        return this.geth(endpoint.chain, httpMethod, contentType, body);
    }
  }

  // -------------------------------------------------------------------------------------------
  // gorilla/rpc v2 json2 emulation
  // -------------------------------------------------------------------------------------------

  private gorilla(service: GorillaService, chain: string | undefined, httpMethod: string, contentType: string | undefined, body: string): WireResponse {
    if (httpMethod !== 'POST') return text(405, `rpc: POST method required, received ${httpMethod}`, false);
    let ct = contentType ?? '';
    const semi = ct.indexOf(';');
    if (semi !== -1) ct = ct.slice(0, semi);
    if (ct.toLowerCase() !== 'application/json') return text(415, `rpc: unrecognized Content-Type: ${ct}`, false);

    // Decode the envelope like json2.newCodecRequest.
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return gorillaError(null, -32700, goJsonErrorText(body, err), zeroRequest(), false, true);
    }
    if (parsed === null) parsed = {}; // Go decodes `null` into the struct as a no-op
    if (!isPlainObject(parsed)) {
      const what = goTypeName(parsed);
      return gorillaError(null, -32700, `json: cannot unmarshal ${what} into Go value of type json2.serverRequest`, zeroRequest(), false, true);
    }
    const env = parsed;
    const version = env['jsonrpc'];
    const method = env['method'];
    for (const [key, v] of [
      ['jsonrpc', version],
      ['method', method],
    ] as const) {
      if (v !== undefined && v !== null && typeof v !== 'string') {
        const msg = `json: cannot unmarshal ${goTypeName(v)} into Go struct field serverRequest.${key} of type string`;
        return gorillaError(null, -32700, msg, zeroRequest(), false, true);
      }
    }
    const id = env['id'] === undefined ? null : env['id'];
    const notification = id === null;
    if (version !== '2.0') {
      const data = { jsonrpc: version ?? '', method: method ?? '', params: env['params'] ?? null, id };
      return gorillaError(id, -32600, 'jsonrpc must be 2.0', data, false, true);
    }

    // avalanchego's codec wrapper: reject upper-case method names, upper-case the first letter after the dot.
    let name = (method as string | undefined) ?? '';
    const dot = name.indexOf('.');
    if (dot !== -1) {
      const fn = name.slice(dot + 1);
      const first = fn.charAt(0);
      if (first !== '') {
        if (isUpper(first)) return gorillaError(id, -32000, 'method must start with a non-uppercase letter', null, false, !notification);
        name = `${name.slice(0, dot)}.${first.toUpperCase()}${fn.slice(1)}`;
      }
    }
    // gorilla's service map lookup.
    const parts = name.split('.');
    if (parts.length !== 2) {
      return gorillaError(id, -32000, `rpc: service/method request ill-formed: ${JSON.stringify(name)}`, null, false, !notification);
    }
    const [svc, fnName] = parts as [string, string];
    if (svc !== service) return gorillaError(id, -32000, `rpc: can't find service ${JSON.stringify(name)}`, null, false, !notification);
    const table = this.handlers(service, chain);
    const handler = Object.hasOwn(table, fnName) ? table[fnName] : undefined;
    if (!handler) return gorillaError(id, -32000, `rpc: can't find method ${JSON.stringify(name)}`, null, false, !notification);

    let run: () => unknown;
    try {
      run = handler(argsObject(env['params']));
    } catch (err) {
      if (err instanceof InvalidArgs) return gorillaError(id, -32000, INVALID_ARGS, null, false, !notification);
      throw err;
    }
    // The method ran: gorilla sets nosniff from here on, whatever the outcome.
    let result: unknown;
    try {
      result = run();
    } catch (err) {
      if (err instanceof RpcError) return gorillaError(id, err.code, err.message, null, true, !notification);
      throw err;
    }
    const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' };
    if (notification) return { status: 200, headers, body: '' };
    headers['Content-Type'] = JSON_CT;
    return { status: 200, headers, body: `${JSON.stringify({ jsonrpc: '2.0', result, id })}\n` };
  }

  /** Method tables per gorilla service, keyed by Go method name. */
  private handlers(service: GorillaService, chain: string | undefined): Record<string, Handler> {
    switch (service) {
      case 'info':
        return this.infoHandlers();
      case 'health':
        return this.healthHandlers();
      case 'platform':
        return this.platformHandlers();
      case 'avm':
        return {
          GetHeight: () => () => ({ height: dec(this.state.heights.X) }),
        };
      case 'validators':
        return {
          GetCurrentValidators: (args) => {
            const nodeIds = this.nodeIdArgs(args, 'nodeIDs');
            return () => ({ validators: this.l1UptimeList(chain ?? '', nodeIds) });
          },
        };
    }
  }

  private l1UptimeList(chain: string, nodeIds: string[]): unknown[] {
    const list = this.state.l1Uptimes[chain] ?? [];
    let chosen = list;
    if (nodeIds.length > 0) {
      chosen = [];
      for (const nodeId of new Set(nodeIds)) {
        const v = list.find((e) => e.nodeId === nodeId);
        if (!v) throw new RpcError(`couldn't find validator with node ID ${nodeId}`);
        chosen.push(v);
      }
    }
    return chosen.map((v) => ({
      validationID: v.validationId,
      nodeID: v.nodeId,
      weight: v.weight,
      startTimestamp: v.startTimestamp,
      isActive: v.isActive,
      isL1Validator: v.isL1Validator,
      isConnected: v.isConnected,
      uptimePercentage: v.uptimePercentage,
      uptimeSeconds: v.uptimeSeconds,
    }));
  }

  private nodeIdArgs(args: Record<string, unknown>, name: string): string[] {
    const v = field(args, name);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new InvalidArgs();
    const out: string[] = [];
    for (const e of v) {
      if (e === null) continue;
      if (typeof e !== 'string' || !(isCb58NodeId(e) || this.knowsId(e))) throw new InvalidArgs();
      out.push(e);
    }
    return out;
  }

  private idArg(args: Record<string, unknown>, name: string): string | undefined {
    const v = optString(args, name);
    if (v === undefined) return undefined;
    if (!(isCb58Id(v) || this.knowsId(v))) throw new InvalidArgs();
    return v;
  }

  /**
   * IDs that are not valid CB58 are accepted when the state itself uses them, so tests may put
   * hand-written IDs in the state and still query them. A real node would reject them.
   */
  private knowsId(id: string): boolean {
    const s = this.state;
    return (
      s.nodeId === id ||
      s.primaryValidators.some((v) => v.nodeId === id || v.txId === id) ||
      s.peers.some((p) => p.nodeId === id) ||
      Object.hasOwn(s.subnets, id) ||
      Object.values(s.subnets).some((sub) => sub.validators.some((v) => v.nodeId === id || ('validationId' in v ? v.validationId === id : v.txId === id))) ||
      Object.values(s.l1Uptimes).some((l) => l.some((v) => v.nodeId === id || v.validationId === id)) ||
      s.blockchains.some((b) => b.id === id || b.subnetId === id)
    );
  }

  private infoHandlers(): Record<string, Handler> {
    const s = (): FakeNodeState => this.state;
    return {
      GetNodeID: () => () => ({
        nodeID: s().nodeId,
        nodePOP: s().nodePop === null ? null : { publicKey: s().nodePop?.publicKey, proofOfPossession: s().nodePop?.proofOfPossession },
      }),
      GetNodeVersion: () => () => ({
        version: s().version,
        databaseVersion: s().databaseVersion,
        rpcProtocolVersion: dec(s().rpcProtocolVersion),
        gitCommit: s().gitCommit,
        vmVersions: { ...s().vmVersions },
      }),
      GetNetworkID: () => () => ({ networkID: dec(s().networkId) }),
      GetNetworkName: () => () => ({ networkName: s().networkName ?? networkNameFor(s().networkId) }),
      GetNodeIP: () => () => ({ ip: s().nodeIp }),
      GetBlockchainID: (args) => {
        const alias = optString(args, 'alias') ?? '';
        return () => {
          const key = this.chainKey(alias);
          const known = s().blockchains.find((b) => b.id === alias);
          if (key === 'P' || key === 'X' || key === 'C') return { blockchainID: s().chainIds[key] };
          if (key !== undefined) return { blockchainID: key };
          if (known) return { blockchainID: known.id };
          throw new RpcError(`there is no ID with alias: ${alias}`);
        };
      },
      GetVMs: () => () => ({ vms: cloneJson(s().vms), fxs: { ...s().fxs } }),
      IsBootstrapped: (args) => {
        const chain = optString(args, 'chain');
        return () => {
          if (chain === undefined || chain === '') throw new RpcError("argument 'chain' not given");
          const key = this.chainKey(chain);
          if (key === undefined) throw new RpcError(`there is no chain with alias/ID '${chain}'`);
          if (s().partialSync && (key === 'X' || key === 'C')) return { isBootstrapped: false };
          return { isBootstrapped: s().bootstrapped[key] ?? true };
        };
      },
      Peers: (args) => {
        const nodeIds = this.nodeIdArgs(args, 'nodeIDs');
        return () => {
          let peers = s().peers;
          if (nodeIds.length > 0) {
            const wanted = new Set(nodeIds);
            peers = peers.filter((p) => wanted.has(p.nodeId));
          }
          return { numPeers: dec(peers.length), peers: peers.map(peerWire) };
        };
      },
      Uptime: () => () => {
        const given = s().uptime;
        const u = given === 'computed' ? nodeUptime(s()) : given;
        if (u === null) throw new RpcError("couldn't get node uptime: node is not a validator");
        return {
          rewardingStakePercentage: pct64(u.rewardingStakePercentage),
          weightedAveragePercentage: pct64(u.weightedAveragePercentage),
        };
      },
      Upgrades: () => () => ({ ...s().upgrades }),
      Acps: () => () => {
        const acps: Record<string, unknown> = {};
        for (const k of Object.keys(s().acps).sort(compareBytes)) {
          const a = s().acps[k];
          if (!a) continue;
          acps[k] = {
            supportWeight: dec(a.supportWeight),
            supporters: jsonSortedSet(a.supporters),
            objectWeight: dec(a.objectWeight),
            objectors: jsonSortedSet(a.objectors),
            abstainWeight: dec(a.abstainWeight),
          };
        }
        return { acps };
      },
      GetTxFee: () => () => {
        const f = s().txFees;
        return {
          txFee: dec(f.txFee),
          createAssetTxFee: dec(f.createAssetTxFee),
          createSubnetTxFee: dec(f.createSubnetTxFee),
          transformSubnetTxFee: dec(f.transformSubnetTxFee),
          createBlockchainTxFee: dec(f.createBlockchainTxFee),
          addPrimaryNetworkValidatorFee: dec(f.addPrimaryNetworkValidatorFee),
          addPrimaryNetworkDelegatorFee: dec(f.addPrimaryNetworkDelegatorFee),
          addSubnetValidatorFee: dec(f.addSubnetValidatorFee),
          addSubnetDelegatorFee: dec(f.addSubnetDelegatorFee),
        };
      },
    };
  }

  private healthHandlers(): Record<string, Handler> {
    const report =
      (which: 'health' | 'readiness' | 'liveness'): Handler =>
      (args) => {
        const tags = optStringArray(args, 'tags');
        return () => this.healthReply(which, tags);
      };
    return { Health: report('health'), Readiness: report('readiness'), Liveness: report('liveness') };
  }

  private platformHandlers(): Record<string, Handler> {
    const s = (): FakeNodeState => this.state;
    return {
      GetHeight: () => () => ({ height: dec(s().heights.P) }),
      GetProposedHeight: () => () => ({ height: dec(s().heights.P) }),
      GetCurrentValidators: (args) => {
        const subnetId = this.idArg(args, 'subnetID') ?? PRIMARY_NETWORK_ID;
        const nodeIds = this.nodeIdArgs(args, 'nodeIDs');
        return () => ({ validators: this.currentValidators(subnetId, nodeIds) });
      },
      GetCurrentSupply: (args) => {
        const subnetId = this.idArg(args, 'subnetID') ?? PRIMARY_NETWORK_ID;
        return () => {
          let supply: bigint | undefined;
          if (subnetId === PRIMARY_NETWORK_ID) supply = s().currentSupply;
          else supply = s().subnets[subnetId]?.supply;
          if (supply === undefined) throw new RpcError('fetching current supply failed: not found');
          return { supply: dec(supply), height: dec(s().heights.P) };
        };
      },
      GetValidatorFeeState: () => () => {
        const f = s().validatorFeeState;
        return { excess: f.excess, price: f.price, timestamp: rfc3339Seconds(f.timestamp) };
      },
      GetL1Validator: (args) => {
        const validationId = this.idArg(args, 'validationID') ?? PRIMARY_NETWORK_ID;
        return () => {
          for (const [subnetId, sub] of Object.entries(s().subnets)) {
            for (const v of sub.validators) {
              if ('validationId' in v && v.validationId === validationId) {
                return { ...l1ValidatorWire(v), subnetID: subnetId, height: dec(s().heights.P) };
              }
            }
          }
          throw new RpcError(`fetching L1 validator ${JSON.stringify(validationId)} failed: not found`);
        };
      },
      // vms/platformvm/service.go GetBlockchainStatus: a chain the node created (its id or alias
      // resolves in the chain manager) is Validating when the node validates its subnet
      // (nodeValidates), else Syncing; otherwise Created when the accepted P-Chain state has it,
      // else Unknown (the fake has no preferred-but-unaccepted blocks, so never Preferred).
      GetBlockchainStatus: (args) => {
        const id = optString(args, 'blockchainID') ?? '';
        return () => {
          if (id === '') throw new RpcError("argument 'blockchainID' not given");
          const key = this.chainKey(id);
          if (key !== undefined && Object.hasOwn(s().bootstrapped, key)) return { status: this.nodeValidates(key) ? 'Validating' : 'Syncing' };
          if (!(isCb58Id(id) || this.knowsId(id))) throw new RpcError(`problem parsing blockchainID ${JSON.stringify(id)}: invalid input checksum`);
          return { status: s().blockchains.some((b) => b.id === id) ? 'Created' : 'Unknown' };
        };
      },
      GetBlockchains: () => () => {
        // The P-Chain lists non-primary subnets' chains first, then the primary network's.
        const all = s().blockchains;
        const ordered = [...all.filter((b) => b.subnetId !== PRIMARY_NETWORK_ID), ...all.filter((b) => b.subnetId === PRIMARY_NETWORK_ID)];
        return { blockchains: ordered.map((b) => ({ id: b.id, name: b.name, subnetID: b.subnetId, vmID: b.vmId })) };
      },
    };
  }

  /**
   * vms/platformvm/service.go nodeValidates: the chain's CreateChainTx names its subnet, and the
   * node validates the chain when the validator manager lists it for that subnet. The P-Chain
   * itself has no CreateChainTx (false).
   */
  private nodeValidates(key: string): boolean {
    const s = this.state;
    if (key === 'P') return false;
    if (key === 'X' || key === 'C') return s.primaryValidators.some((v) => v.nodeId === s.nodeId);
    const subnetId = s.blockchains.find((b) => b.id === key)?.subnetId ?? Object.entries(s.subnets).find(([, sn]) => sn.chains.includes(key))?.[0];
    if (subnetId === undefined) return false;
    return s.subnets[subnetId]?.validators.some((v) => v.nodeId === s.nodeId) ?? false;
  }

  private currentValidators(subnetId: string, nodeIds: string[]): unknown[] {
    const wanted = new Set(nodeIds);
    const include = (nodeId: string): boolean => wanted.size === 0 || wanted.has(nodeId);
    if (subnetId === PRIMARY_NETWORK_ID) {
      // Delegators (with their reward owner) are listed only when exactly one node ID is asked for.
      const single = wanted.size === 1;
      return this.state.primaryValidators.filter((v) => include(v.nodeId)).map((v) => validatorWire(v, single));
    }
    const sub = this.state.subnets[subnetId];
    if (!sub) return [];
    return sub.validators
      .filter((v) => include(v.nodeId))
      .map((v) =>
        'validationId' in v
          ? l1ValidatorWire(v)
          : { txID: v.txId, startTime: dec(v.startTime), endTime: dec(v.endTime), weight: dec(v.weight), nodeID: v.nodeId },
      );
  }

  /** Builds the `{checks, healthy}` reply; `tags` keep only those subnets' checks plus application-wide ones. */
  private healthReply(which: 'health' | 'readiness' | 'liveness', tags: string[]): { checks: Record<string, unknown>; healthy: boolean } {
    const s = this.state;
    const source = which === 'health' ? s.health : which === 'readiness' ? s.readiness : s.liveness;
    let names = Object.keys(source);
    if (tags.length > 0) {
      // api/health/worker.go Results: the checks of the asked tags plus the application-wide
      // ones (the application tag is always added); a chain's check is tagged with its subnet.
      const asked = new Set(tags);
      names = names.filter((n) => {
        const tag = checkTag(s, n);
        return tag === undefined || asked.has(tag);
      });
    }
    names.sort(compareBytes);
    const checks: Record<string, unknown> = {};
    let healthy = true;
    for (const n of names) {
      const stored = source[n];
      if (!stored) continue;
      // Readiness registers the same check under the same name; liveness has none.
      let c = n === 'bootstrapped' && which !== 'liveness' ? bootstrappedCheck(s, stored) : stored;
      if (which === 'readiness') {
        // Monotonic (api/health/worker.go RegisterMonotonicCheck): once passed, the passing result stays.
        const passed = s.readinessPassed?.[n];
        if (passed) c = passed;
        else if (c.error === undefined) s.readinessPassed = { ...s.readinessPassed, [n]: c };
      }
      if (c.error !== undefined) healthy = false;
      checks[n] = checkWire(c);
    }
    return { checks, healthy };
  }

  // -------------------------------------------------------------------------------------------
  // geth-style JSON-RPC (C-Chain and Subnet-EVM /rpc)
  // -------------------------------------------------------------------------------------------

  private geth(chain: string, httpMethod: string, contentType: string | undefined, body: string): WireResponse {
    // geth answers bodiless GETs with 200 so load balancers can health-check the port.
    if (httpMethod === 'GET' && body === '') return { status: 200, headers: {}, body: '' };
    if (httpMethod === 'PUT' || httpMethod === 'DELETE') return text(405, 'method not allowed\n', true);
    const mt = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!['application/json', 'application/json-rpc', 'application/jsonrequest'].includes(mt)) {
      return text(415, 'invalid content type, only application/json is supported\n', true);
    }
    const json = (v: unknown): WireResponse => ({
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: `${JSON.stringify(v)}\n`,
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
      const out = parsed.map((m) => this.gethOne(chain, m)).filter((r) => r !== undefined);
      return out.length === 0 ? { status: 200, headers: {}, body: '' } : json(out);
    }
    const r = this.gethOne(chain, parsed);
    return r === undefined ? { status: 200, headers: {}, body: '' } : json(r);
  }

  /** geth's argument errors for `eth_getBalance(address, blockNumberOrTag)`, or undefined when the arguments are valid. */
  private getBalanceArgsProblem(params: unknown): string | undefined {
    if (params === undefined || params === null) return 'missing value for required argument 0';
    if (!Array.isArray(params)) return 'non-array args';
    if (params.length > 2) return 'too many arguments, want at most 2';
    const [address, block] = params as unknown[];
    if (address === undefined) return 'missing value for required argument 0';
    if (typeof address !== 'string' || !address.startsWith('0x'))
      return 'invalid argument 0: json: cannot unmarshal non-hex string into Go value of type common.Address';
    if (!/^0x[0-9a-fA-F]*$/.test(address)) return 'invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Address';
    if (address.length !== 42) return `invalid argument 0: hex string has length ${address.length - 2}, want 40 for common.Address`;
    if (block === undefined) return 'missing value for required argument 1';
    const tags = ['latest', 'pending', 'earliest', 'finalized', 'safe', 'accepted'];
    if (typeof block !== 'string' || !(tags.includes(block) || /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(block)))
      return 'invalid argument 1: invalid block number';
    return undefined;
  }

  private gethOne(chain: string, msg: unknown): unknown {
    if (!isPlainObject(msg)) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
    const id = msg['id'] ?? null;
    const method = msg['method'];
    const hasId = msg['id'] !== undefined && msg['id'] !== null;
    if (typeof method !== 'string' || method === '') {
      return hasId ? { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } } : undefined;
    }
    const params = msg['params'];
    const fail = (code: number, message: string): unknown => (hasId ? { jsonrpc: '2.0', id, error: { code, message } } : undefined);
    const noArgs = (): string | undefined => {
      if (params === undefined || params === null) return undefined;
      if (!Array.isArray(params)) return 'non-array args';
      if (params.length > 0) return 'too many arguments, want at most 0';
      return undefined;
    };
    let result: unknown;
    switch (method) {
      case 'eth_blockNumber': {
        const bad = noArgs();
        if (bad) return fail(-32602, bad);
        const h = this.state.heights[chain] ?? 0n;
        result = `0x${h.toString(16)}`;
        break;
      }
      case 'eth_chainId': {
        const bad = noArgs();
        if (bad) return fail(-32602, bad);
        result = `0x${(this.state.evmChainIds[chain] ?? 0).toString(16)}`;
        break;
      }
      case 'net_version':
        result = String(this.state.evmChainIds[chain] ?? 0);
        break;
      case 'eth_syncing':
        result = false;
        break;
      case 'eth_getBalance': {
        const bad = this.getBalanceArgsProblem(params);
        if (bad) return fail(-32602, bad);
        const [address, block] = params as [string, string];
        // A block above the head is unknown to geth; every other block reads the current balance
        // (the fake keeps no history).
        if (/^0x[0-9a-fA-F]+$/.test(block) && BigInt(block) > (this.state.heights[chain] ?? 0n)) return fail(-32000, 'header not found');
        result = `0x${(this.state.evmBalances?.[chain]?.[address.toLowerCase()] ?? 0n).toString(16)}`;
        break;
      }
      default:
        return fail(-32601, `the method ${method} does not exist/is not available`);
    }
    return hasId ? { jsonrpc: '2.0', id, result } : undefined;
  }
}
/**
 * A gorilla method: decodes its arguments (throwing {@link InvalidArgs}) and returns the call
 * itself, because argument failures and method failures differ on the wire (nosniff header).
 */
type Handler = (args: Record<string, unknown>) => () => unknown;

function text(status: number, body: string, nosniff: boolean): WireResponse {
  const headers: Record<string, string> = { 'Content-Type': TEXT_CT };
  if (nosniff) headers['X-Content-Type-Options'] = 'nosniff';
  return { status, headers, body };
}

function zeroRequest(): Record<string, unknown> {
  return { jsonrpc: '', method: '', params: null, id: null };
}

/**
 * A gorilla json2 error. Notifications get an empty body, except parse and version errors, which
 * are answered because the server cannot tell whether an answer was wanted.
 */
function gorillaError(id: unknown, code: number, message: string, data: unknown, nosniff: boolean, respond: boolean): WireResponse {
  const headers: Record<string, string> = {};
  if (nosniff) headers['X-Content-Type-Options'] = 'nosniff';
  if (!respond) return { status: 200, headers, body: '' };
  headers['Content-Type'] = JSON_CT;
  return { status: 200, headers, body: `${JSON.stringify({ jsonrpc: '2.0', error: { code, message, data }, id })}\n` };
}

function checkWire(c: FakeCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.message !== undefined) out['message'] = sortKeysDeep(c.message);
  if (c.error !== undefined) out['error'] = c.error;
  out['timestamp'] = c.timestamp;
  out['duration'] = c.duration;
  if (c.contiguousFailures !== undefined && c.contiguousFailures !== 0) out['contiguousFailures'] = c.contiguousFailures;
  if (c.timeOfFirstFailure !== undefined) out['timeOfFirstFailure'] = c.timeOfFirstFailure;
  return out;
}

function peerWire(p: FakePeer): Record<string, unknown> {
  return {
    ip: p.ip,
    publicIP: p.publicIp,
    nodeID: p.nodeId,
    version: p.version,
    upgradeTime: p.upgradeTime,
    lastSent: rfc3339Seconds(p.lastSent),
    lastReceived: rfc3339Seconds(p.lastReceived),
    observedUptime: dec(p.observedUptime),
    trackedSubnets: jsonSortedSet(p.trackedSubnets),
    supportedACPs: jsonSortedSet(p.supportedAcps ?? []),
    objectedACPs: jsonSortedSet(p.objectedAcps ?? []),
    benched: [...p.benched],
  };
}

function validatorWire(v: FakeValidator, single: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    txID: v.txId,
    startTime: dec(v.startTime),
    endTime: dec(v.endTime),
    weight: dec(v.weight),
    nodeID: v.nodeId,
  };
  if (v.validationRewardOwner) out['validationRewardOwner'] = owner(v.validationRewardOwner);
  if (v.delegationRewardOwner) out['delegationRewardOwner'] = owner(v.delegationRewardOwner);
  out['potentialReward'] = dec(v.potentialReward);
  out['accruedDelegateeReward'] = dec(v.accruedDelegateeReward);
  out['delegationFee'] = pct32(v.delegationFee);
  out['uptime'] = pct32(v.uptime);
  out['connected'] = v.connected;
  if (v.signer) out['signer'] = { publicKey: v.signer.publicKey, proofOfPossession: v.signer.proofOfPossession };
  if (v.autoRenew) {
    out['validatorAuthority'] = owner(v.autoRenew.validatorAuthority);
    out['nextPeriod'] = dec(v.autoRenew.nextPeriod);
    out['autoCompoundRewardShares'] = dec(v.autoRenew.autoCompoundRewardShares);
  }
  let weight = 0n;
  for (const d of v.delegators) weight += d.weight;
  out['delegatorCount'] = dec(v.delegators.length);
  out['delegatorWeight'] = dec(weight);
  if (single) {
    out['delegators'] = v.delegators.map((d) => {
      const o: Record<string, unknown> = {
        txID: d.txId,
        startTime: dec(d.startTime),
        endTime: dec(d.endTime),
        weight: dec(d.weight),
        nodeID: v.nodeId,
      };
      if (d.rewardOwner) o['rewardOwner'] = owner(d.rewardOwner);
      o['potentialReward'] = dec(d.potentialReward);
      return o;
    });
  }
  return out;
}

function l1ValidatorWire(v: FakeL1Validator): Record<string, unknown> {
  return {
    nodeID: v.nodeId,
    weight: dec(v.weight),
    startTime: dec(v.startTime),
    validationID: v.validationId,
    publicKey: v.publicKey,
    remainingBalanceOwner: owner(v.remainingBalanceOwner),
    deactivationOwner: owner(v.deactivationOwner),
    minNonce: dec(v.minNonce),
    balance: dec(v.balance),
  };
}

function cloneJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Best-effort look at a body for call recording and fault targeting. */
function peekRpc(body: string): { method?: string; params?: unknown; hasParams: boolean; id?: unknown } {
  if (body === '') return { hasParams: false };
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return { hasParams: false };
  }
  const msg: unknown = Array.isArray(v) ? (v as unknown[])[0] : v;
  if (!isPlainObject(msg)) return { hasParams: false };
  const out: { method?: string; params?: unknown; hasParams: boolean; id?: unknown } = { hasParams: false };
  if (typeof msg['method'] === 'string') out.method = msg['method'];
  if (msg['params'] !== undefined) {
    out.params = msg['params'];
    out.hasParams = true;
  }
  if (msg['id'] !== undefined) out.id = msg['id'];
  return out;
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

/**
 * The tag a health check is registered under: a chain's check (P, X, C, an L1 chain's id or
 * primary alias, created or failed) under its chain's subnet id (chains/manager.go
 * `RegisterHealthCheck(primaryAlias, h, ctx.SubnetID.String())`, and the failing check of a
 * chain that could not be created likewise); another check under the tag `healthTags` gives
 * it; undefined for an application-wide check (node/node.go, `health.ApplicationTag`).
 */
function checkTag(state: FakeNodeState, name: string): string | undefined {
  if (name === 'P' || name === 'X' || name === 'C') return PRIMARY_NETWORK_ID;
  const id = state.chainAliases?.[name] ?? name;
  const subnet = state.blockchains.find((b) => b.id === id)?.subnetId ?? Object.entries(state.subnets).find(([, sn]) => sn.chains.includes(id))?.[0];
  if (subnet !== undefined) return subnet;
  return Object.entries(state.healthTags).find(([, names]) => names.includes(name))?.[0];
}

/**
 * Subnets with a chain still bootstrapping (`state.bootstrapped[chain] === false`), sorted:
 * the primary network for P, X and C, else the subnet the chain belongs to. A chain whose
 * creation failed stays listed for good: QueueChainCreation added it to its subnet's
 * bootstrapping set (subnets/subnet.go AddChain) and only a finished bootstrap removes it
 * (chains/manager.go createChain returns on the error without doing so).
 */
function bootstrappingSubnets(state: FakeNodeState): string[] {
  const out = new Set<string>();
  for (const chain of Object.keys(state.failedChains ?? {})) {
    out.add(state.blockchains.find((b) => b.id === chain)?.subnetId ?? chain);
  }
  for (const [chain, done] of Object.entries(state.bootstrapped)) {
    if (done) continue;
    if (chain === 'P' || chain === 'X' || chain === 'C') {
      out.add(PRIMARY_NETWORK_ID);
      continue;
    }
    const subnet =
      state.blockchains.find((b) => b.id === chain)?.subnetId ??
      Object.entries(state.subnets).find(([, sn]) => sn.chains.includes(chain))?.[0] ??
      Object.entries(state.healthTags).find(([, names]) => names.includes(chain))?.[0] ??
      // A chain of no known subnet still fails the check; name it by itself.
      chain;
    out.add(subnet);
  }
  return [...out].sort(compareBytes);
}

/**
 * The `bootstrapped` check (health and readiness) consistent with `state.bootstrapped`, as
 * AvalancheGo's `Subnets.Bootstrapping()` (chains/manager.go) reports it: while any chain
 * bootstraps it fails with `subnets not bootstrapped` and lists the subnets still
 * bootstrapping (the fixture's `unhealthy-bootstrapping-503` variant); once all are done the
 * stored check is served as it is (passing with `[]` by default, but a test may store a
 * failing one, e.g. "not yet run").
 */
function bootstrappedCheck(state: FakeNodeState, stored: FakeCheck): FakeCheck {
  const subnets = bootstrappingSubnets(state);
  if (subnets.length === 0) return stored;
  const failing = stored.error !== undefined;
  return {
    ...stored,
    message: subnets,
    error: 'subnets not bootstrapped',
    contiguousFailures: failing ? (stored.contiguousFailures ?? 1) : 1,
    timeOfFirstFailure: (failing ? stored.timeOfFirstFailure : undefined) ?? stored.timestamp,
  };
}

/** Shared by {@link FakeNode.failCheck} and the demo simulation. */
export function failCheckIn(state: FakeNodeState, name: string, error: string): void {
  const now = rfc3339Nano();
  const check = state.health[name] ?? { timestamp: now, duration: 0 };
  check.error = error;
  check.contiguousFailures = (check.contiguousFailures ?? 0) + 1;
  check.timeOfFirstFailure ??= now;
  check.timestamp = now;
  state.health[name] = check;
}

/** Shared by {@link FakeNode.passCheck} and the demo simulation. */
export function passCheckIn(state: FakeNodeState, name: string): void {
  const check = state.health[name];
  if (!check) return;
  delete check.error;
  delete check.contiguousFailures;
  delete check.timeOfFirstFailure;
  check.timestamp = rfc3339Nano();
}

/**
 * Shared by {@link FakeNode.setChainNetworking}. Keeps the rest of the check's message (the
 * engine part) and creates the chain check, shaped like the fixtures' (`engine` then
 * `networking`), if it does not exist.
 */
export function setChainNetworkingIn(state: FakeNodeState, chain: string, disconnectedValidators: string[], percentConnected?: number): void {
  const check = state.health[chain] ?? { message: { engine: { consensus: {}, vm: null } }, timestamp: rfc3339Nano(), duration: 0 };
  const message = isPlainObject(check.message) ? check.message : {};
  const previous = isPlainObject(message['networking']) ? message['networking'] : {};
  // A Go set: sorted, without duplicates.
  message['networking'] = {
    ...previous,
    disconnectedValidators: [...new Set(disconnectedValidators)].sort(),
    ...(percentConnected === undefined ? {} : { percentConnected }),
  };
  check.message = message;
  state.health[chain] = check;
}
