/**
 * JSON read straight from a body's bytes, for hand-written readers of the
 * largest answers' items (info.peers: 2,000 entries a call, of which a
 * reader keeps five fields). `JSON.parse` of such an item builds every field
 * (a dozen strings and arrays) only for most of it to be dropped: at 1,000
 * polled nodes that was about a third of all the exporter allocated.
 *
 * What is accepted here is valid JSON (RFC 8259) and nothing else, so a
 * reader built on it never takes bytes that `JSON.parse` would refuse: every
 * skipped value is checked to the grammar, not just balanced. Anything
 * unusual that is still valid (an escaped key, nesting past
 * {@link MAX_JSON_DEPTH}) is refused too; the caller then parses the item
 * the usual way, which decides and words any error.
 */
import { MAX_JSON_DEPTH } from './json-array-split.js';
import { BACKSLASH, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';

const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The first offset from `i` that is not JSON whitespace (at most `end`). */
export function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(b[i] as number)) i++;
  return i;
}

/** End (exclusive) of the string whose opening quote is at `i`, or -1: no closing quote, a raw control character, or a bad escape. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  let j = i + 1;
  while (j < end) {
    const c = b[j] as number;
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      if (j + 1 >= end) return -1;
      const e = b[j + 1];
      if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) j += 2;
      else if (e === 0x75) {
        if (j + 5 >= end) return -1;
        for (let k = j + 2; k < j + 6; k++) if (!isHex(b[k] as number)) return -1;
        j += 6;
      } else return -1;
      continue;
    }
    // Bytes from 0x80 are inside a UTF-8 sequence: decoded, any of them is a character JSON allows in a string.
    j++;
  }
  return -1;
}

/** End (exclusive) of the number at `i`, or -1 (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`). */
function numberEnd(b: Uint8Array, i: number, end: number): number {
  let j = i;
  if (b[j] === MINUS) j++;
  if (j >= end) return -1;
  if (b[j] === ZERO) j++;
  else if (isDigit(b[j] as number)) while (j < end && isDigit(b[j] as number)) j++;
  else return -1;
  if (j < end && b[j] === DOT) {
    j++;
    if (j >= end || !isDigit(b[j] as number)) return -1;
    while (j < end && isDigit(b[j] as number)) j++;
  }
  if (j < end && (b[j] === 0x65 || b[j] === 0x45)) {
    j++;
    if (j < end && (b[j] === PLUS || b[j] === MINUS)) j++;
    if (j >= end || !isDigit(b[j] as number)) return -1;
    while (j < end && isDigit(b[j] as number)) j++;
  }
  return j;
}

/** End (exclusive) of the literal `word` at `i`, or -1. */
function literalEnd(b: Uint8Array, i: number, end: number, word: string): number {
  if (i + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/**
 * End (exclusive) of the one JSON value that starts at `i` (no whitespace
 * before it), or -1 when the bytes from `i` up to `end` do not start with a
 * valid value, or it nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function valueEnd(b: Uint8Array, i: number, end: number, depth = 0): number {
  if (i >= end) return -1;
  const c = b[i] as number;
  if (c === QUOTE) return stringEnd(b, i, end);
  if (c === LBRACE || c === LBRACKET) {
    if (depth >= MAX_JSON_DEPTH) return -1;
    const close = c === LBRACE ? RBRACE : RBRACKET;
    let j = skipSpace(b, i + 1, end);
    if (j >= end) return -1;
    if (b[j] === close) return j + 1;
    for (;;) {
      if (c === LBRACE) {
        if (j >= end || b[j] !== QUOTE) return -1;
        j = stringEnd(b, j, end);
        if (j < 0) return -1;
        j = skipSpace(b, j, end);
        if (j >= end || b[j] !== COLON) return -1;
        j = skipSpace(b, j + 1, end);
      }
      j = valueEnd(b, j, end, depth + 1);
      if (j < 0) return -1;
      j = skipSpace(b, j, end);
      if (j >= end) return -1;
      if (b[j] === close) return j + 1;
      if (b[j] !== COMMA) return -1;
      j = skipSpace(b, j + 1, end);
    }
  }
  if (c === MINUS || isDigit(c)) return numberEnd(b, i, end);
  if (c === 0x74) return literalEnd(b, i, end, 'true');
  if (c === 0x66) return literalEnd(b, i, end, 'false');
  if (c === 0x6e) return literalEnd(b, i, end, 'null');
  return -1;
}

/** Fields {@link objectFields} reads of one object at most (an info.peers entry has a dozen). */
export const MAX_FIELDS = 64;

/**
 * Reads the object that makes up the bytes from `start` to `end` (with
 * whitespace around it): writes each field's key (without its quotes) and
 * value as four offsets [keyStart, keyEnd, valueStart, valueEnd] into `out`
 * from its start and returns how many fields there are; -1 when the bytes
 * are anything but one valid JSON object, or a key holds an escape (its
 * bytes would not be the key), or it has more than {@link MAX_FIELDS}
 * fields. `out` is written, never shortened: a caller reuses one array,
 * which then grows once and is not allocated again; the bound keeps what it
 * holds small, so a hostile object with thousands of keys cannot pin a large
 * array.
 */
export function objectFields(b: Uint8Array, start: number, end: number, out: number[]): number {
  let n = 0;
  let j = skipSpace(b, start, end);
  if (j >= end || b[j] !== LBRACE) return -1;
  j = skipSpace(b, j + 1, end);
  if (j < end && b[j] === RBRACE) return skipSpace(b, j + 1, end) === end ? 0 : -1;
  for (;;) {
    if (j >= end || b[j] !== QUOTE) return -1;
    const keyEnd = stringEnd(b, j, end);
    if (keyEnd < 0) return -1;
    for (let k = j + 1; k < keyEnd - 1; k++) if (b[k] === BACKSLASH) return -1;
    const keyStart = j + 1;
    j = skipSpace(b, keyEnd, end);
    if (j >= end || b[j] !== COLON) return -1;
    const vs = skipSpace(b, j + 1, end);
    const ve = valueEnd(b, vs, end, 1);
    if (ve < 0 || n >= MAX_FIELDS) return -1;
    out[4 * n] = keyStart;
    out[4 * n + 1] = keyEnd - 1;
    out[4 * n + 2] = vs;
    out[4 * n + 3] = ve;
    n++;
    j = skipSpace(b, ve, end);
    if (j >= end) return -1;
    if (b[j] === RBRACE) return skipSpace(b, j + 1, end) === end ? n : -1;
    if (b[j] !== COMMA) return -1;
    j = skipSpace(b, j + 1, end);
  }
}

/** Whether the bytes from `s` to `e` are exactly the ASCII string `ascii`. */
export function bytesAre(b: Uint8Array, s: number, e: number, ascii: string): boolean {
  if (e - s !== ascii.length) return false;
  for (let k = 0; k < ascii.length; k++) if (b[s + k] !== ascii.charCodeAt(k)) return false;
  return true;
}

/**
 * The value of the string token from `s` to `e` (quotes included) when it is
 * plain ASCII without escapes, its bytes then being its characters; else
 * undefined (the caller defers to a full parse).
 */
export function plainString(b: Buffer, s: number, e: number): string | undefined {
  if (b[s] !== QUOTE) return undefined;
  for (let k = s + 1; k < e - 1; k++) {
    const c = b[k] as number;
    if (c === BACKSLASH || c >= 0x80) return undefined;
  }
  return b.toString('latin1', s + 1, e - 1);
}

/** Whether the value from `s` to `e` is an array with nothing in it (`[]`, whitespace allowed inside). */
export function isEmptyArray(b: Uint8Array, s: number, e: number): boolean {
  return b[s] === LBRACKET && skipSpace(b, s + 1, e) === e - 1 && b[e - 1] === RBRACKET;
}

/** The value of the ASCII digits from `s` to `e` (one to fifteen of them, so the value is exact), else -1. */
export function digitsValue(b: Uint8Array, s: number, e: number): number {
  if (e <= s || e - s > 15) return -1;
  let x = 0;
  for (let k = s; k < e; k++) {
    const c = (b[k] as number) - ZERO;
    if (c < 0 || c > 9) return -1;
    x = x * 10 + c;
  }
  return x;
}

/** Whether the value from `s` is a number token (its first byte: `-` or a digit). */
export function isNumberToken(b: Uint8Array, s: number): boolean {
  const c = b[s] as number;
  return c === MINUS || isDigit(c);
}
