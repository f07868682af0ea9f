/**
 * Fault injection for the tests' fake node: the failures a node (or a proxy in front of it) can
 * show, how each is targeted (by JSON-RPC method, route, path or everything), and how a faulty
 * answer is delivered (canned, cut short, trickled).
 *
 * @packageDocumentation
 */
import type { ServerResponse } from 'node:http';
import type { Endpoint } from '../../src/demo/node-server.js';
import { errorBody, JSON_CT, TEXT_CT, type WireResponse } from '../../src/demo/wire.js';
import type { FakeCall, RpcPeek } from './call-log.js';

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

/** Which JSON-RPC dialect an endpoint speaks: needed to shape `rpc-error` faults. */
type Dialect = 'gorilla' | 'geth' | 'none';

/**
 * The fault for a call: by priority, its JSON-RPC method, `'<HTTP method> <path>'`, its path, a
 * GET health report's name, then `'*'`.
 */
export function findFault(faults: ReadonlyMap<string, Fault>, call: FakeCall, endpoint: Endpoint): Fault | undefined {
  if (faults.size === 0) return undefined;
  const keys: string[] = [];
  if (call.rpcMethod !== undefined) keys.push(call.rpcMethod);
  keys.push(`${call.httpMethod} ${call.path}`, call.path);
  if (endpoint.kind === 'health-get') keys.push(endpoint.report);
  keys.push('*');
  for (const k of keys) {
    const f = faults.get(k);
    if (f) return f;
  }
  return undefined;
}

/** The answer a fault gives instead of the node's (status, raw body, raw result, JSON-RPC error); undefined for the others. */
export function cannedAnswer(fault: Fault, endpoint: Endpoint, peek: RpcPeek, nodeId: string): WireResponse | undefined {
  const dialect: Dialect = endpoint.kind === 'gorilla' ? 'gorilla' : endpoint.kind === 'geth' ? 'geth' : 'none';
  const jsonCt = dialect === 'geth' ? 'application/json' : JSON_CT;
  switch (fault.kind) {
    case 'status':
      return { status: fault.status, headers: { 'Content-Type': fault.contentType ?? TEXT_CT, ...fault.headers }, body: fault.body ?? errorBody(fault.status) };
    case 'result': {
      const id = JSON.stringify(peek.id === undefined ? null : peek.id);
      const error = fault.withError ? ',"error":{"code":-32000,"message":"also an error","data":null}' : '';
      return {
        status: 200,
        headers: { 'Content-Type': jsonCt, 'node-id': nodeId },
        body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","result":'), Buffer.from(fault.json), Buffer.from(`${error},"id":${id}}\n`)]),
      };
    }
    case 'body':
      return { status: fault.status ?? 200, headers: { 'Content-Type': jsonCt, 'node-id': nodeId }, body: fault.body };
    case 'rpc-error': {
      const id = peek.id === undefined ? null : peek.id;
      const text =
        dialect === 'geth'
          ? JSON.stringify({ jsonrpc: '2.0', id, error: { code: fault.code, message: fault.message } })
          : JSON.stringify({ jsonrpc: '2.0', error: { code: fault.code, message: fault.message, data: null }, id });
      return { status: 200, headers: { 'Content-Type': jsonCt, 'node-id': nodeId }, body: `${text}\n` };
    }
    default:
      return undefined;
  }
}

/** Sends the headers and half of the body, then destroys the socket. */
export function deliverPartial(res: ServerResponse, wire: WireResponse): void {
  if (res.destroyed) return;
  // An empty body cannot be cut short; announce a body that never fully arrives instead.
  const full =
    wire.body.length === 0 ? Buffer.from('{"jsonrpc":"2.0","result":{}}\n') : typeof wire.body === 'string' ? Buffer.from(wire.body, 'utf8') : wire.body;
  res.writeHead(wire.status, { ...wire.headers, 'Content-Length': String(full.length) });
  res.write(full.subarray(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
}

/** Sends the body at about `bytesPerSecond`; `later` schedules the next chunk (and stops with the server). */
export function deliverSlowly(res: ServerResponse, wire: WireResponse, bytesPerSecond: number, later: (ms: number, fn: () => void) => void): void {
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
    later(intervalMs, step);
  };
  step();
}
