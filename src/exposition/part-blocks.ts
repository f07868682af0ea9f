import { sealSegment, type GzipSegment } from './gzip-segments.js';
import type { TimeSlicer } from './time-slice.js';

/**
 * What the renderer keeps of a metric across renders: its parts (one group's
 * lines of one metric), the series they have counted, and runs of them
 * compressed once (blocks), so that a render of a large state of which little
 * changed (a mainnet validator set, a fleet of which one node polled) touches
 * what changed, not every series.
 */

/** One metric's series of one group: its lines, and each line's `{labels}` part (what duplicates are found by). */
export interface MetricPart {
  /**
   * A string, not a Buffer: the text is copied into one Buffer when joined
   * anyway, and a string is memory in the JS heap, where the garbage
   * collector counts it, rather than outside it, where a render's worth of
   * dead parts per round would pile up until an external-memory limit
   * forces a full collection.
   */
  text: string;
  /**
   * Each line's `{labels}`, in order; undefined once dropped. A metric whose
   * parts each have a key of their own (MetricPart.key) needs no duplicate
   * check, so MetricLists drops its parts' bodies (a fleet's series are
   * nearly all such: ~30 KB per node); {@link bodiesOf} reads them again
   * from the text when they are wanted after all.
   */
  bodies: string[] | undefined;
  /** Its series (lines). */
  series: number;
  /** The last metric list (MetricList.stamp) it was counted in. */
  listed: number;
  /** The last check of its metric's pairs of keys (MetricList.pairStamp) it was in. */
  paired: number;
  /** Whether a block of its metric ends with it (decided once, so blocks stay put around an inserted part). */
  cut: boolean;
  /** The block that started with it last. */
  block: Block | undefined;
  /**
   * The value of the metric's first label when every series of the part has
   * the same (a node's series all carry its `node`): parts with different
   * keys cannot share a series, so they need no duplicate check between them.
   */
  key: string | undefined;
  /**
   * The value of the second label when every series of the part has the same
   * too (with `key` defined): a mainnet validator set's parts all share their
   * `node`, but each has its own `node_id`, so they are apart by the pair.
   */
  key2: string | undefined;
}

/**
 * A run of successive parts of one metric, of cached groups, with its text
 * compressed when first gzipped and encoded when first joined: a render whose
 * parts of a metric are mostly those of the last render (a mainnet validator
 * set, a few entries changed) gzips and joins the runs that did not change
 * from what it kept, instead of touching every one of the metric's 1,800
 * parts again. The encoded text is made only for a plain-text scrape
 * (Prometheus asks for gzip): the parts hold the text already.
 */
interface Block {
  parts: MetricPart[];
  series: number;
  sealed: GzipSegment | undefined;
  bytes: Buffer | undefined;
  /** Its text's length in characters, once counted (see charsOf). */
  chars?: number;
}

/** Text that never changes (a metric's HELP and TYPE lines), encoded and compressed once. */
export interface FixedPiece {
  text: string;
  bytes: Buffer;
  sealed: GzipSegment;
}

/** A fixed piece of `text`. */
export function fixedPiece(text: string): FixedPiece {
  const bytes = Buffer.from(text, 'utf8');
  return { text, bytes, sealed: sealSegment(bytes) };
}

/**
 * Blocks with less text than this are compressed with the text around them
 * at each gzip rather than kept as segments of their own: a small setup's
 * metrics have a part or two each, and hundreds of tiny segments, each
 * without the history of the others, came to twice the bytes of one
 * compression (a 45 KB answer: 19.9 KB instead of 9.4 KB).
 */
const MIN_SEALED_CHARS = 4096;

/** A block's text length in characters (bytes for the ASCII the format mostly is), counted once. */
function charsOf(block: Block): number {
  if (block.chars === undefined) {
    let n = 0;
    for (const p of block.parts) n += p.text.length;
    block.chars = n;
  }
  return block.chars;
}

/** Whether a piece is a block large enough to be kept compressed on its own. */
function sealable(p: Piece | undefined): boolean {
  return p !== undefined && typeof p !== 'string' && 'parts' in p && charsOf(p) >= MIN_SEALED_CHARS;
}

/** Parts per block on average: small enough that a changed part costs little to compress again, large enough to make few pieces (each compressed on its own loses the history of those before it). */
const BLOCK = 32;

let partsMade = 0;

/** Whether the next part made ends a block: one part in BLOCK, spread evenly (a multiplicative hash of a counter). */
export function cutAfter(): boolean {
  partsMade = (partsMade + 1) >>> 0;
  return Math.imul(partsMade, 0x9e3779b1) >>> 0 < 0x1_0000_0000 / BLOCK;
}

/** A metric's parts of cached groups in the last render, counted by series: how a render finds duplicates across groups without looking at every series. */
interface MetricList {
  parts: readonly MetricPart[];
  /** Unique to this list's update (MetricPart.listed). */
  stamp: number;
  /**
   * Of each series (its `{labels}`), how many of the parts have it; undefined
   * while the parts have keys of their own (nothing to count: no two of them
   * can have a series in common).
   */
  counts: Map<string, number> | undefined;
  /** Series more than one part has. */
  shared: number;
  /**
   * While the parts are apart by their pairs of keys (MetricPart.key, key2):
   * by first key, by second key, the part that had the pair last. A part
   * that was in the last check keeps its pair, so the next checks only the
   * parts that came in (a validator set's render: the few entries that
   * changed, not all 1,800).
   */
  pairOwners: Map<string, Map<string, MetricPart>> | undefined;
  /** Pairs in pairOwners, parts gone included (they are dropped past a bound). */
  pairEntries: number;
  /** The last check of the pairs (MetricPart.paired). */
  pairStamp: number;
}

/**
 * A part's `{labels}` per line: kept ones, or read from its text (each line
 * is `name{labels} value`, and a value has no space) and kept again.
 */
export function bodiesOf(part: MetricPart, name: string): string[] {
  if (part.bodies !== undefined) return part.bodies;
  const bodies: string[] = [];
  const text = part.text;
  for (let at = 0; at < text.length;) {
    const end = text.indexOf('\n', at);
    const line = end < 0 ? text.length : end;
    bodies.push(text.slice(at + name.length, text.lastIndexOf(' ', line)));
    at = line + 1;
  }
  part.bodies = bodies;
  return bodies;
}

/** A piece of an exposition: text, a fixed piece, or a block of parts. */
export type Piece = string | FixedPiece | Block;

/** A block's bytes, encoded into a Buffer of its own (not a slice of Node's shared pool, which one long-lived block would keep whole). */
function bytesOf(block: Block): Buffer {
  if (block.bytes === undefined) {
    let size = 0;
    for (const p of block.parts) size += Buffer.byteLength(p.text, 'utf8');
    const buf = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (const p of block.parts) at += buf.write(p.text, at, 'utf8');
    block.bytes = buf;
  }
  return block.bytes;
}

/** The pieces one after the other, UTF-8 encoded into one Buffer (no intermediate copies). */
export function joinPieces(pieces: readonly Piece[]): Buffer {
  let size = 0;
  for (const p of pieces) {
    if (typeof p === 'string') size += Buffer.byteLength(p, 'utf8');
    else size += ('parts' in p ? bytesOf(p) : p.bytes).length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') at += out.write(p, at, 'utf8');
    else at += ('parts' in p ? (p.bytes as Buffer) : p.bytes).copy(out, at);
  }
  return out;
}

/** Characters of text compressed as one segment at most (a few milliseconds of compression). */
const MAX_RUN = 256 * 1024;

/** Reused for the text of what is compressed: one Buffer, grown as needed, instead of one per segment. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/** Writes `texts` into the scratch buffer and compresses them into a segment. */
function sealTexts(texts: readonly string[]): GzipSegment {
  let size = 0;
  for (const t of texts) size += Buffer.byteLength(t, 'utf8');
  if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
  let at = 0;
  for (const t of texts) at += scratch.write(t, at, 'utf8');
  return sealSegment(scratch.subarray(0, at));
}

/**
 * The segments of the pieces, in order: a block's kept since it was first
 * compressed, a fixed piece's made once, and the text between them
 * compressed now. Yields to the event loop between time slices, so a large
 * first gzip does not stall scrapes or polls.
 */
export async function segmentsOf(pieces: readonly Piece[], slicer: TimeSlicer): Promise<GzipSegment[]> {
  const out: GzipSegment[] = [];
  let run: string[] = [];
  let runLength = 0;
  // The helpers are synchronous and give a promise only when a yield is due
  // (TimeSlicer): an async helper awaited per piece made a promise per piece
  // of every render.
  const flushRun = (): Promise<void> | undefined => {
    if (run.length === 0) return undefined;
    out.push(sealTexts(run));
    run = [];
    runLength = 0;
    return slicer.check();
  };
  const addToRun = (text: string): Promise<void> | undefined => {
    run.push(text);
    runLength += text.length;
    // A render from nothing is all text: compressed a run at a time, so no one compression holds the loop for long.
    return runLength >= MAX_RUN ? flushRun() : undefined;
  };
  let pause: Promise<void> | undefined;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i] as Piece;
    if (typeof p === 'string') {
      pause = addToRun(p);
    } else if ('parts' in p) {
      if (!sealable(p)) {
        for (const part of p.parts) {
          pause = addToRun(part.text);
          if (pause) await pause;
        }
        continue;
      }
      pause = flushRun();
      if (pause) await pause;
      if (p.sealed === undefined) {
        p.sealed = p.bytes ? sealSegment(p.bytes) : sealTexts(p.parts.map((part) => part.text));
        out.push(p.sealed);
        pause = slicer.check();
      } else {
        out.push(p.sealed);
        pause = undefined;
      }
    } else if (sealable(pieces[i + 1])) {
      // A metric's HELP and TYPE before a kept block: kept too.
      pause = flushRun();
      if (pause) await pause;
      out.push(p.sealed);
      pause = undefined;
    } else {
      pause = addToRun(p.text);
    }
    if (pause) await pause;
  }
  pause = flushRun();
  if (pause) await pause;
  return out;
}

/** Each metric's parts of cached groups in the last render, counted by series. */
export class MetricLists {
  /** Per metric (contract index), its list in the last cached render. */
  readonly #lists: (MetricList | undefined)[] = [];
  #stamps = 0;
  readonly #keysApart = new KeysApart();

  /**
   * Makes `list` metric m's list (`name` its name), counting the series of
   * the parts that came in and leaving out those of the parts that went;
   * true when no series is in two of its parts (nor a part twice), so that
   * every part is written whole: the first-wins rule has nothing to drop.
   * When every part has a key of its own, or a pair of keys of its own,
   * nothing is counted, and the parts' bodies are dropped.
   */
  relist(m: number, list: readonly MetricPart[], name: string): boolean {
    const last: MetricList = (this.#lists[m] ??= { parts: [], stamp: -1, counts: undefined, shared: 0, pairOwners: undefined, pairEntries: 0, pairStamp: -1 });
    const stamp = ++this.#stamps;
    if (this.#keysApart.check(list) || this.#pairsApart(last, list)) {
      // A part listed twice would have its key twice: none is.
      for (const part of list) {
        part.listed = stamp;
        part.bodies = undefined;
      }
      last.parts = list;
      last.stamp = stamp;
      last.counts = undefined;
      last.shared = 0;
      return true;
    }
    last.pairOwners = undefined;
    if (last.counts === undefined) {
      // Counted from nothing: every part comes in, none goes.
      last.counts = new Map<string, number>();
      last.shared = 0;
      last.parts = [];
      last.stamp = -1;
    }
    const counts = last.counts;
    let twice = false;
    for (const part of list) {
      if (part.listed === stamp) {
        twice = true;
        continue;
      }
      if (part.listed !== last.stamp) {
        for (const b of bodiesOf(part, name)) {
          const c = counts.get(b) ?? 0;
          if (c === 1) last.shared++;
          counts.set(b, c + 1);
        }
      }
      part.listed = stamp;
    }
    for (const part of last.parts) {
      if (part.listed === stamp) continue;
      for (const b of bodiesOf(part, name)) {
        const c = counts.get(b) as number;
        if (c === 2) last.shared--;
        if (c === 1) counts.delete(b);
        else counts.set(b, c - 1);
      }
    }
    last.parts = list;
    last.stamp = stamp;
    return !twice && last.shared === 0;
  }

  /**
   * Whether every part has both keys and no pair is another's (nor a part
   * listed twice); when the last check of this metric said so, only the
   * parts that were not in it are looked up (see MetricList.pairOwners).
   */
  #pairsApart(last: MetricList, list: readonly MetricPart[]): boolean {
    const stamp = ++this.#stamps;
    const bound = 2 * list.length + 1024;
    const incremental = last.pairOwners !== undefined && last.pairEntries <= bound;
    const owners = incremental ? (last.pairOwners as Map<string, Map<string, MetricPart>>) : new Map<string, Map<string, MetricPart>>();
    if (!incremental) last.pairEntries = 0;
    const fresh: MetricPart[] = [];
    for (const part of list) {
      if (part.paired === stamp) return false;
      if (!incremental || part.paired !== last.pairStamp) fresh.push(part);
      part.paired = stamp;
    }
    for (const part of fresh) {
      const { key, key2 } = part;
      if (key === undefined || key2 === undefined) return false;
      let seconds = owners.get(key);
      if (seconds === undefined) owners.set(key, (seconds = new Map<string, MetricPart>()));
      const owner = seconds.get(key2);
      // An owner not stamped now is a part gone from the list: the pair is free.
      if (owner !== undefined && owner !== part && owner.paired === stamp) return false;
      if (owner === undefined) last.pairEntries++;
      seconds.set(key2, part);
    }
    last.pairOwners = owners;
    last.pairStamp = stamp;
    return true;
  }
}

/**
 * Tells whether every part of a list has a key (MetricPart.key), none the
 * same as another's: then no series can be in two of them (MetricLists also
 * looks at pairs of keys, for the lists this says no to). It remembers each
 * key with the number of the list that last had it rather than filling a Set
 * and clearing it: a render asks this for every metric of a fleet (a
 * thousand keys each, the same keys every time), and a cleared Set starts
 * small again, so each ask grew a new hash table a few times over, some ten
 * MB per render that young-generation collections in the middle of a render
 * promoted.
 */
export class KeysApart {
  readonly #lastList = new Map<string, number>();
  #list = 0;
  #longest = 0;

  /** Whether the parts' keys are all there and all different. */
  check(list: readonly MetricPart[]): boolean {
    // Keys of parts long gone (renamed nodes) are forgotten once they far outnumber the longest list's.
    this.#longest = Math.max(this.#longest, list.length);
    if (this.#lastList.size > 4 * this.#longest + 1024) this.#lastList.clear();
    const id = ++this.#list;
    for (const part of list) {
      const key = part.key;
      if (key === undefined || this.#lastList.get(key) === id) return false;
      this.#lastList.set(key, id);
    }
    return true;
  }
}

/**
 * Pushes a metric's parts as blocks, reusing each block that starts with the
 * same part and goes on with the same parts as one made before; returns the
 * series written.
 */
export function pushBlocks(list: readonly MetricPart[], out: Piece[]): number {
  let series = 0;
  let start = 0;
  while (start < list.length) {
    let end = start;
    while (end < list.length - 1 && !(list[end] as MetricPart).cut) end++;
    end++;
    const first = list[start] as MetricPart;
    let block = first.block;
    let same = block !== undefined && block.parts.length === end - start;
    for (let i = start; same && i < end; i++) same = (block as Block).parts[i - start] === list[i];
    if (!same) {
      const parts = list.slice(start, end);
      let n = 0;
      for (const p of parts) {
        n += p.series;
        // A part in the middle of a block starts none: a block it started before would keep parts gone since.
        if (p !== first) p.block = undefined;
      }
      block = first.block = { parts, series: n, sealed: undefined, bytes: undefined };
    }
    out.push(block as Block);
    series += (block as Block).series;
    start = end;
  }
  return series;
}
