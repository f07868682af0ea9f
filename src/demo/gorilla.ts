/**
 * gorilla/rpc v2 json2, as AvalancheGo serves its JSON-RPC APIs: the envelope's decoding and its
 * errors, AvalancheGo's method-name rule, the service map lookup, argument and method failures
 * (with and without nosniff), and notifications.
 *
 * @packageDocumentation
 */
import { argsObject, goJsonErrorText, goTypeName, gorillaError, InvalidArgs, isPlainObject, isUpper, JSON_CT, RpcError, text, zeroRequest } from './wire.js';
import type { Handler, WireResponse } from './wire.js';

const INVALID_ARGS = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

/** Answers one gorilla JSON-RPC request to `service`, whose methods (by Go name) are `table`. */
export function gorilla(service: string, table: Record<string, Handler>, httpMethod: string, contentType: string | undefined, body: string): WireResponse {
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
