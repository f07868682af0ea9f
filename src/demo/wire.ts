/**
 * The wire formats of AvalancheGo's APIs, for the demo's node: gorilla JSON-RPC's decimal-string
 * numbers and percentages, Go's time and key order, the argument decoding of encoding/json, and
 * the plain-text HTTP answers. Pure helpers, shared by the node's method tables and its server.
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from 'node:http';
import type { FakeOwner } from './node-state.js';

/** A fully computed HTTP answer (a test fake may still decide how, or whether, it is delivered). */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** Text, or raw bytes (a fault may send invalid UTF-8). */
  body: string | Buffer;
}

export const JSON_CT = 'application/json; charset=utf-8';
export const TEXT_CT = 'text/plain; charset=utf-8';

/** A JSON-RPC error raised by a handler (always -32000 unless said otherwise). */
export class RpcError extends Error {
  constructor(
    message: string,
    readonly code = -32000,
  ) {
    super(message);
  }
}

/** Parameter decoding failed; AvalancheGo hides the cause behind a fixed message. */
export class InvalidArgs extends Error {}

/**
 * A gorilla method: decodes its arguments (throwing {@link InvalidArgs}) and returns the call
 * itself, because argument failures and method failures differ on the wire (nosniff header).
 */
export type Handler = (args: Record<string, unknown>) => () => unknown;

/** uint64/uint32 fields are decimal strings on the wire (`json.Uint64`). */
export function dec(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString() : BigInt(Math.trunc(v)).toString();
}

/** `json.Float32` with 4 decimals, as the P-Chain emits uptime and delegationFee. */
export function pct32(v: number): string {
  return Math.fround(v).toFixed(4);
}

/** `json.Float64` with 4 decimals (info.uptime). */
export function pct64(v: number): string {
  return v.toFixed(4);
}

/** Whole-second RFC3339 in UTC, as Go's `time.Unix(...)` prints on a UTC host. */
export function rfc3339Seconds(d: Date): string {
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
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort(compareBytes)) out[k] = sortKeysDeep((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** AvalancheGo `set.Set` marshals elements and sorts them by their JSON bytes. */
export function jsonSortedSet<T>(items: readonly T[]): T[] {
  return [...new Set(items)]
    .map((v) => ({ v, k: JSON.stringify(v) }))
    .sort((a, b) => compareBytes(a.k, b.k))
    .map((e) => e.v);
}

export function owner(o: FakeOwner): Record<string, unknown> {
  return { locktime: dec(o.locktime), threshold: dec(o.threshold), addresses: [...o.addresses] };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function cloneJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Known network names (`constants.NetworkIDToNetworkName`). */
export function networkNameFor(id: number): string {
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
export function isUpper(ch: string): boolean {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/**
 * An approximation of Go's json decoder error text for a body that is not valid JSON: exact for
 * the common cases (empty body, truncated body), generic for syntax errors.
 */
export function goJsonErrorText(text: string, err: unknown): string {
  if (text.trim() === '') return 'EOF';
  const msg = err instanceof Error ? err.message : '';
  if (/end of JSON input|Unterminated/i.test(msg)) return 'unexpected EOF';
  const m = /position (\d+)/.exec(msg);
  const ch = m ? text[Number(m[1])] : undefined;
  return ch === undefined ? 'unexpected EOF' : `invalid character '${ch}' looking for beginning of value`;
}

/** The JSON type word Go uses in unmarshal errors. */
export function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}

export function errorBody(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Error'}`;
}

// ---------------------------------------------------------------------------------------------
// Argument decoding (Go encoding/json semantics, simplified)
// ---------------------------------------------------------------------------------------------

/**
 * gorilla json2 decodes params into the args struct, falling back to a one-element array
 * `[ {...} ]`; absent or null params leave the args zero. Anything else is an error.
 */
export function argsObject(params: unknown): Record<string, unknown> {
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
export function field(args: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(args, name)) return args[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(args)) if (k.toLowerCase() === lower) return args[k];
  return undefined;
}

export function optString(args: Record<string, unknown>, name: string): string | undefined {
  const v = field(args, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidArgs();
  return v;
}

export function optStringArray(args: Record<string, unknown>, name: string): string[] {
  const v = field(args, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) throw new InvalidArgs();
  return v;
}

export function text(status: number, body: string, nosniff: boolean): WireResponse {
  const headers: Record<string, string> = { 'Content-Type': TEXT_CT };
  if (nosniff) headers['X-Content-Type-Options'] = 'nosniff';
  return { status, headers, body };
}

export function zeroRequest(): Record<string, unknown> {
  return { jsonrpc: '', method: '', params: null, id: null };
}

/**
 * A gorilla json2 error. Notifications get an empty body, except parse and version errors, which
 * are answered because the server cannot tell whether an answer was wanted.
 */
export function gorillaError(id: unknown, code: number, message: string, data: unknown, nosniff: boolean, respond: boolean): WireResponse {
  const headers: Record<string, string> = {};
  if (nosniff) headers['X-Content-Type-Options'] = 'nosniff';
  if (!respond) return { status: 200, headers, body: '' };
  headers['Content-Type'] = JSON_CT;
  return { status: 200, headers, body: `${JSON.stringify({ jsonrpc: '2.0', error: { code, message, data }, id })}\n` };
}
