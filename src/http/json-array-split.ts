/**
 * Finds the items of one large array inside a JSON body without parsing the
 * body as a whole. A mainnet getCurrentValidators answer is a few MB: one
 * JSON.parse of it blocks the event loop for tens of milliseconds and builds
 * an object graph that lives through validation, long enough to be promoted
 * and collected by a full GC. Split first, the items can be parsed, validated
 * and converted a batch at a time, with yields in between, and each batch's
 * objects die young.
 *
 * The scan works on bytes: JSON's structural characters are ASCII and every
 * byte of a multi-byte UTF-8 sequence is >= 0x80, so no byte inside a string
 * can be mistaken for one.
 */

import { BACKSLASH, COMMA, isSpace, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';

/** Bytes scanned between two yields to the event loop. */
export const SCAN_SLICE = 256 * 1024;

/**
 * Deepest nesting of objects and arrays accepted in an upstream answer. The
 * deepest AvalancheGo and Data API answers nest about 8 levels (a health
 * check's details inside `checks`; a validator's reward owner's addresses);
 * a body nested thousands deep is an attack on JSON.parse (recursive, slow,
 * memory-hungry) and is refused before any parse.
 */
export const MAX_JSON_DEPTH = 32;

/** A body nested deeper than {@link MAX_JSON_DEPTH}, found by a byte scan before any parse. */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
  constructor(readonly limit: number) {
    super(`JSON nested deeper than ${limit} levels`);
  }
}

/**
 * Throws {@link JsonTooDeepError} when `body` nests objects and arrays
 * deeper than `limit`, by the same byte scan as {@link splitJsonArray}
 * (strings skipped whole); says nothing about whether the rest is valid JSON.
 */
export function checkJsonDepth(body: Uint8Array, limit = MAX_JSON_DEPTH): void {
  let depth = 0;
  const n = body.length;
  let i = 0;
  while (i < n) {
    const b = body[i] as number;
    if (b === QUOTE) {
      const end = stringEnd(body, i);
      if (end < 0) return; // not JSON: the parser says so
      i = end + 1;
      continue;
    }
    if (b === LBRACE || b === LBRACKET) {
      if (++depth > limit) throw new JsonTooDeepError(limit);
    } else if (b === RBRACE || b === RBRACKET) depth--;
    i++;
  }
}

/** Where the array's items are in the body. */
export interface ArraySplit {
  /** Offset of the array's `[`. */
  open: number;
  /** Offset of the array's `]`. */
  close: number;
  /** Start and end (exclusive) offset of each item, flattened: [s0, e0, s1, e1, ...]. */
  spans: number[];
}

/**
 * Finds the array at `path` (object keys from the top, e.g. ['result',
 * 'validators']) and the offsets of its items. Undefined when the body is not
 * well-formed enough to tell or the array is not there (an error answer, a
 * different shape): the caller then parses the body whole and reports what is
 * wrong the usual way. Throws {@link JsonTooDeepError} past `maxDepth`, before
 * anything is parsed. Every SCAN_SLICE bytes it asks `pause` whether to
 * yield: a promise to await, or undefined to go on.
 */
export async function splitJsonArray(
  body: Uint8Array,
  path: readonly string[],
  pause: () => Promise<void> | undefined,
  maxDepth = MAX_JSON_DEPTH,
): Promise<ArraySplit | undefined> {
  const target = path.length + 1; // depth of the array
  // Per depth, down to the array's: the container is an object, a key is expected next, its last key, and it is on the path.
  const isObject: boolean[] = [false];
  const expectKey: boolean[] = [false];
  const keys: (string | undefined)[] = [undefined];
  const onPath: boolean[] = [true];
  let depth = 0;
  let open = -1;
  let close = -1;
  const spans: number[] = [];
  let nextPause = SCAN_SLICE;
  const n = body.length;
  let i = 0;
  while (i < n) {
    if (i >= nextPause) {
      const p = pause();
      if (p) await p;
      nextPause = i + SCAN_SLICE;
    }
    const b = body[i] as number;
    if (b === QUOTE) {
      const end = stringEnd(body, i);
      if (end < 0) return undefined;
      if (depth >= 1 && depth < target && isObject[depth] && expectKey[depth]) {
        expectKey[depth] = false;
        // Only the keys of the containers above the array are kept; they are short ASCII names.
        keys[depth] = end - i - 1 <= 64 ? Buffer.from(body.buffer, body.byteOffset + i + 1, end - i - 1).toString('latin1') : undefined;
      }
      i = end + 1;
      continue;
    }
    if (b === LBRACE || b === LBRACKET) {
      depth++;
      if (depth > maxDepth) throw new JsonTooDeepError(maxDepth);
      if (depth <= target) {
        const d = depth;
        // The container is on the path when its parent is, and is an object whose current key is the path's next step.
        onPath[d] = d === 1 || ((onPath[d - 1] ?? false) && isObject[d - 1] === true && keys[d - 1] === path[d - 2]);
        isObject[d] = b === LBRACE;
        expectKey[d] = b === LBRACE;
        keys[d] = undefined;
        if (d === target && onPath[d] && b === LBRACKET) {
          if (open >= 0) return undefined; // the key twice: not an answer of the expected shape
          open = i;
          close = await scanItems(body, i + 1, spans, pause, maxDepth - depth, maxDepth);
          if (close < 0) return undefined;
          nextPause = close + SCAN_SLICE;
          depth--;
          i = close + 1;
          continue;
        }
      }
    } else if (b === RBRACE || b === RBRACKET) {
      depth--;
      if (depth < 0) return undefined;
    } else if (b === COMMA) {
      if (depth >= 1 && depth < target && isObject[depth]) expectKey[depth] = true;
    }
    i++;
  }
  if (depth !== 0 || open < 0) return undefined;
  return { open, close, spans };
}

/** The index of the quote that ends the string starting at `start`, or -1. */
function stringEnd(body: Uint8Array, start: number): number {
  let end = start;
  for (;;) {
    end = body.indexOf(QUOTE, end + 1);
    if (end < 0) return -1;
    // Escaped when preceded by an odd run of backslashes.
    let k = end - 1;
    while (body[k] === BACKSLASH) k--;
    if ((end - 1 - k) % 2 === 0) return end;
  }
}

/**
 * Records the items of the array whose `[` is just before `from`: at item
 * level only commas and the closing bracket matter, so the loop tracks
 * nothing but nesting and strings. Returns the offset of the closing `]`, or
 * -1 when the array is not well-formed (an empty item, a trailing comma, the
 * body ending early). Asks `pause` every SCAN_SLICE bytes.
 */
async function scanItems(
  body: Uint8Array,
  from: number,
  spans: number[],
  pause: () => Promise<void> | undefined,
  maxDepth = Infinity,
  limit = maxDepth,
): Promise<number> {
  const n = body.length;
  let p = from;
  let nextPause = from + SCAN_SLICE;
  for (;;) {
    while (p < n && isSpace(body[p] as number)) p++;
    if (p >= n) return -1;
    if (body[p] === RBRACKET) return spans.length === 0 ? p : -1; // [] or a trailing comma
    const start = p;
    let depth = 0;
    for (;;) {
      if (p >= nextPause) {
        const wait = pause();
        if (wait) await wait;
        nextPause = p + SCAN_SLICE;
      }
      if (p >= n) return -1;
      const c = body[p] as number;
      if (c === QUOTE) {
        const end = stringEnd(body, p);
        if (end < 0) return -1;
        p = end + 1;
        continue;
      }
      if (c === LBRACE || c === LBRACKET) {
        if (++depth > maxDepth) throw new JsonTooDeepError(limit);
      } else if (c === RBRACE || c === RBRACKET) {
        if (depth === 0) {
          if (c !== RBRACKET || p === start) return -1;
          spans.push(start, trimEnd(body, start, p));
          return p;
        }
        depth--;
      } else if (c === COMMA && depth === 0) {
        if (p === start) return -1; // an empty item
        spans.push(start, trimEnd(body, start, p));
        p++;
        break;
      }
      p++;
    }
  }
}

/** The end of an item that runs from `start` up to the separator at `sep`, without trailing whitespace. */
function trimEnd(body: Uint8Array, start: number, sep: number): number {
  let e = sep;
  while (e > start && isSpace(body[e - 1] as number)) e--;
  return e;
}
