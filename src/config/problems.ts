import type { z } from 'zod';
import { suggest } from './suggest.js';

/**
 * Configuration problems as an operator reads them: where the value is (a YAML
 * path here; load.ts puts the flag or variable in its place when the value came
 * from one), the value as given (URLs without their credentials, secrets never),
 * and what is expected, with "did you mean" for a near-miss key. A problem is
 * one line: `<where>: <value> <what is wrong>`, e.g.
 * `poll.interval: 15 has no unit: write a duration like 15s, 2m or 1h30m`.
 */

/** What replaces a secret wherever the configuration is shown. */
export const REDACTED = '<redacted>';

/**
 * Set on a zod issue (`params`) whose message names its value already
 * (`"NodeID-x" is not a valid node id…`) or must not show it at all.
 */
export type ValueShown = { value: 'named' | 'hidden' };

/** The YAML path of an issue: `nodes[1].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

/** A URL with its password (or its user name, when that is alone: a token) replaced by {@link REDACTED}; anything else unchanged. */
export function redactUrlText(text: string): string {
  // Up to the last @ of the authority, as the URL parser reads it: a password may hold an unencoded @.
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i.exec(text);
  if (!m) return text;
  const userinfo = m[2] as string;
  const colon = userinfo.indexOf(':');
  const shown = colon >= 0 ? `${userinfo.slice(0, colon)}:${REDACTED}` : REDACTED;
  return `${m[1]}${shown}@${text.slice(m[0].length)}`;
}

/** How a value is shown in a problem: strings quoted (URLs without credentials, long ones cut), other values as YAML would write them. */
export function showValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const s = redactUrlText(value);
    return JSON.stringify(s.length > 120 ? `${s.slice(0, 117)}...` : s);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let cur = raw;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** Values never shown: the header values (tokens live there) and a Data API key written into the file. */
function isSecretPath(path: readonly PropertyKey[]): boolean {
  return path.includes('headers') || (path[0] === 'data_api' && path[1] === 'key');
}

const TYPE_NAMES: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be a mapping',
  never: 'is not allowed here',
};

/** zod's own messages for its built-in checks, as predicates about the value (the schema's own messages take precedence). */
export function builtinMessage(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'is required';
      return TYPE_NAMES[iss.expected] ?? `must be a ${iss.expected}`;
    case 'too_small':
      if (iss.origin === 'string') return Number(iss.minimum) <= 1 ? 'must not be empty' : `must be at least ${String(iss.minimum)} characters long`;
      if (iss.origin === 'array') return `must have at least ${String(iss.minimum)} entries`;
      return iss.inclusive ? `must be at least ${String(iss.minimum)}` : `must be greater than ${String(iss.minimum)}`;
    case 'too_big':
      if (iss.origin === 'string') return `must be at most ${String(iss.maximum)} characters long`;
      if (iss.origin === 'array') return `must have at most ${String(iss.maximum)} entries`;
      return iss.inclusive ? `must be at most ${String(iss.maximum)}` : `must be less than ${String(iss.maximum)}`;
    case 'invalid_value':
      return `must be one of ${iss.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_union':
      return 'is none of the forms accepted here';
    case 'invalid_format':
      return 'is not in the expected format';
    default:
      return undefined;
  }
}

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType };

function defOf(s: z.ZodType): Def {
  return (s as unknown as { _zod: { def: Def } })._zod.def;
}

/** The schema under wrappers (optional, a transform's input). */
function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default') && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else return cur;
  }
}

/** The schema of the value at a path, when the path leads through objects, arrays and records. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let cur: z.ZodType | undefined = unwrap(schema);
  for (const p of path) {
    if (cur === undefined) return undefined;
    const d = defOf(cur);
    const next: z.ZodType | undefined =
      d.type === 'object' ? d.shape?.[String(p)] : d.type === 'array' ? d.element : d.type === 'record' ? d.valueType : undefined;
    cur = next === undefined ? undefined : unwrap(next);
  }
  return cur;
}

function keysOf(s: z.ZodType | undefined): string[] {
  if (s === undefined) return [];
  const d = defOf(s);
  return d.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}

/** The problem for one key the schema does not know at `path`, with the key most likely meant. */
function unknownKey(schema: z.ZodType, path: readonly PropertyKey[], key: string): string {
  const here = schemaAt(schema, path);
  const known = keysOf(here);
  const where = formatPath([...path, key]);
  const meant = suggest(key, known);
  if (meant !== undefined) return `${where}: unknown key (did you mean ${formatPath([...path, meant])}?)`;
  // A key that belongs one level down (`node_ids` on a node: it goes under `watch`).
  for (const child of known) {
    const below = keysOf(schemaAt(schema, [...path, child]));
    const inner = suggest(key, below);
    if (inner !== undefined) return `${where}: unknown key (did you mean ${formatPath([...path, child, inner])}?)`;
  }
  return `${where}: unknown key${known.length ? ` (the keys here: ${known.join(', ')})` : ''}`;
}

/** Every issue of a failed parse as a problem line: its YAML path, the value and what is expected. */
export function issuesToProblems(err: z.ZodError, raw: unknown, schema: z.ZodType): string[] {
  const out: string[] = [];
  for (const i of err.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) out.push(unknownKey(schema, i.path, k));
      continue;
    }
    if (i.code === 'invalid_key') {
      // A record's key (a header name): the key is the value in question, and shown.
      const key = i.path[i.path.length - 1];
      out.push(`${formatPath(i.path.slice(0, -1))}: ${showValue(String(key))} ${i.issues[0]?.message ?? 'is not a valid key here'}`);
      continue;
    }
    let message = i.message;
    // One of a fixed set of words: the one most likely meant (`warning` for warn, `fiji` for fuji).
    const meant =
      i.code === 'invalid_value' && typeof valueAt(raw, i.path) === 'string' ? suggest(valueAt(raw, i.path) as string, i.values.map(String)) : undefined;
    if (meant !== undefined) message += ` (did you mean ${meant}?)`;
    const shown = i.code === 'custom' ? (i.params as ValueShown | undefined)?.value : undefined;
    const value = valueAt(raw, i.path);
    const withValue = shown === undefined && value !== undefined && !isSecretPath(i.path) && message !== 'is required';
    out.push(`${formatPath(i.path)}: ${withValue ? `${showValue(value)} ` : ''}${message}`);
  }
  return out;
}
