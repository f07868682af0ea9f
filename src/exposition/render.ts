import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { METRICS, type MetricDef, type Sample } from '../metrics/metric-defs.js';

const gzipAsync = promisify(gzip);

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Longest label value exported; longer values are cut (and marked) so one odd upstream string cannot bloat every scrape. */
export const MAX_LABEL_LENGTH = 256;

/** Samples formatted between two yields to the event loop, so a 20,000-series render never blocks scrapes for long. */
const CHUNK = 500;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Surrogates (maybe lone); NUL is looked for with includes(). */
const NEEDS_SANITIZING = /[\uD800-\uDFFF]/;

/** Makes a label value safe: well-formed UTF-8, no NUL, bounded length. */
export function sanitizeLabelValue(v: string): string {
  if (v.length <= MAX_LABEL_LENGTH && !NEEDS_SANITIZING.test(v) && !v.includes('\u0000')) return v;
  // Lone surrogates cannot be encoded as UTF-8; replace them like TextEncoder would.
  let s = v.replace(LONE_SURROGATE, '\ufffd').replaceAll('\u0000', '');
  if (s.length > MAX_LABEL_LENGTH) s = `${s.slice(0, MAX_LABEL_LENGTH - 1)}…`;
  return s;
}

/** Escapes a label value for the text format (backslash, double quote, newline). */
function escapeLabelValue(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
}

/** Escapes HELP text (backslash, newline). */
function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** Formats a sample value as the text format wants it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** A rendered exposition, ready to be written to any number of scrapers. */
export interface Exposition {
  /**
   * The text, joined from the rendered parts by the first read (the first
   * scrape after the render) and kept; like the gzip form, not made for
   * renders that no scrape sees.
   */
  readonly text: Buffer;
  /**
   * The text gzipped, made by the first call (the first gzip scrape after the
   * render) and kept: a fleet renders after every node's round, several
   * times a second, while Prometheus scrapes every 15 s, so compressing at
   * render time would mostly compress what nobody fetches. Concurrent
   * callers share one compression; it runs off the event loop.
   */
  gzip(): Promise<Buffer>;
  /** Number of series in it. */
  series: number;
  contentType: string;
}

/**
 * The metric definitions a renderer writes: the product's contract
 * (METRICS) and any a source outside it declares (SourceDef.metrics), in
 * exposition order, with each one's index and its HELP and TYPE lines.
 */
class Contract {
  readonly names: string[];
  readonly index: Map<string, number>;
  readonly labels: (readonly string[])[];
  readonly headers: string[];
  /** The headers UTF-8 encoded, made once: every render writes them. */
  readonly headerBytes: Buffer[];

  constructor(extra: Readonly<Record<string, MetricDef>> = {}) {
    const defs: Record<string, MetricDef> = { ...extra, ...METRICS };
    this.names = Object.keys(defs);
    this.index = new Map(this.names.map((n, i) => [n, i]));
    this.labels = this.names.map((n) => (defs[n] as MetricDef).labels);
    this.headers = this.names.map((n) => `# HELP ${n} ${escapeHelp((defs[n] as MetricDef).help)}\n# TYPE ${n} ${(defs[n] as MetricDef).type}\n`);
    this.headerBytes = this.headers.map((h) => Buffer.from(h, 'utf8'));
  }
}

/** The product's contract alone, shared by every renderer without extra metrics. */
const PRODUCT_CONTRACT = new Contract();

/** Escaped label values kept across renders before the memo starts over (a bound for label values that churn). */
const MAX_ESCAPE_CACHE = 200_000;

/** One metric's series of one group: its lines, and each line's `{labels}` part (what duplicates are found by). */
interface MetricPart {
  /**
   * A string, not a Buffer: the text is copied into one Buffer when joined
   * anyway, and a string is memory in the JS heap, where the garbage
   * collector counts it, rather than outside it, where a render's worth of
   * dead parts per round would pile up until an external-memory limit
   * forces a full collection.
   */
  text: string;
  bodies: string[];
  /** The last metric list (MetricList.stamp) it was counted in. */
  listed: number;
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
}

/** A group of samples, formatted: its part of each metric (by contract index). */
interface RenderedGroup {
  metrics: (MetricPart | undefined)[];
  /** The indexes of the metrics it has a part of, ascending. */
  present: number[];
  rejected: number;
  duplicates: number;
}

/** Counts samples formatted since the last yield to the event loop, across groups. */
interface YieldBudget {
  left: number;
}

/**
 * Formats a sample's labels, `{a="x",b="y"}` ('' without labels), in the
 * order of the metric's definition; undefined when they do not match it.
 * `escaped` memoizes label values: the same few thousand values (node,
 * subnet, node ids) recur in every metric.
 */
function formatLabels(labels: Readonly<Record<string, string>>, labelNames: readonly string[], escaped: Map<string, string>): string | undefined {
  let keys = 0;
  for (const _k in labels) keys++;
  if (keys !== labelNames.length) return undefined;
  if (labelNames.length === 0) return '';
  let out = '{';
  for (let i = 0; i < labelNames.length; i++) {
    const name = labelNames[i] as string;
    const value = labels[name];
    if (value === undefined) return undefined;
    let e = escaped.get(value);
    if (e === undefined) {
      e = escapeLabelValue(sanitizeLabelValue(value));
      escaped.set(value, e);
    }
    out += `${i ? ',' : ''}${name}="${e}"`;
  }
  return `${out}}`;
}

/**
 * Formats one group: per metric, its lines (duplicates within the group
 * dropped, first wins). Collectors share one labels object between the
 * metrics of one entity (a validator's dozen series), so the `{labels}` part
 * is built once per object and label-name list, not once per sample. Yields
 * to the event loop every CHUNK samples, counted across groups.
 */
async function formatGroup(contract: Contract, samples: readonly Sample[], escaped: Map<string, string>, budget: YieldBudget): Promise<RenderedGroup> {
  const lines: string[] = [];
  const bodies: (string[] | undefined)[] = [];
  const sets: (Set<string> | undefined)[] = [];
  const keys: (string | undefined)[] = [];
  const bodyOf = new Map<object, { names: readonly string[]; body: string | undefined }>();
  let rejected = 0;
  let duplicates = 0;
  for (let i = 0; i < samples.length; i++) {
    if (--budget.left <= 0) {
      await yieldToLoop();
      budget.left = CHUNK;
    }
    const s = samples[i] as Sample;
    const m = contract.index.get(s.name);
    if (m === undefined) {
      rejected++;
      continue;
    }
    const names = contract.labels[m] as readonly string[];
    let memo = bodyOf.get(s.labels);
    if (memo === undefined || memo.names !== names) {
      memo = { names, body: formatLabels(s.labels, names, escaped) };
      bodyOf.set(s.labels, memo);
    }
    const body = memo.body;
    if (body === undefined) {
      rejected++;
      continue;
    }
    // As written (escaped and bounded): two raw values can come out the same.
    const first = names.length > 0 ? escaped.get(s.labels[names[0] as string] as string) : undefined;
    let set = sets[m];
    if (set === undefined) {
      set = sets[m] = new Set();
      lines[m] = '';
      bodies[m] = [];
      keys[m] = first;
    } else if (keys[m] !== first) {
      keys[m] = undefined;
    }
    if (set.has(body)) {
      duplicates++;
      continue;
    }
    set.add(body);
    (bodies[m] as string[]).push(body);
    lines[m] += `${s.name}${body} ${formatValue(s.value)}\n`;
  }
  const metrics: (MetricPart | undefined)[] = [];
  const present: number[] = [];
  for (let m = 0; m < lines.length; m++) {
    const l = lines[m];
    if (l === undefined) continue;
    metrics[m] = { text: l, bodies: bodies[m] as string[], key: keys[m], listed: 0, cut: cutAfter(), block: undefined };
    present.push(m);
  }
  return { metrics, present, rejected, duplicates };
}

/**
 * Formats metric `m` of a group again, leaving out the series in `seen`
 * (written by earlier groups) and adding the kept ones to it.
 */
function reformatWithout(
  contract: Contract,
  samples: readonly Sample[],
  m: number,
  seen: Set<string>,
  escaped: Map<string, string>,
): { text: string; count: number } {
  const name = contract.names[m] as string;
  const names = contract.labels[m] as readonly string[];
  let text = '';
  let count = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    const body = formatLabels(s.labels, names, escaped);
    if (body === undefined || seen.has(body)) continue;
    seen.add(body);
    text += `${name}${body} ${formatValue(s.value)}\n`;
    count++;
  }
  return { text, count };
}

/**
 * A run of successive parts of one metric, of cached groups, and their text
 * encoded when first joined: a render whose parts of a metric are mostly
 * those of the last render (a mainnet validator set, a few entries changed)
 * writes the runs that did not change as the bytes it kept, instead of
 * touching every one of the metric's 1,800 parts again.
 */
interface Block {
  parts: MetricPart[];
  series: number;
  bytes: Buffer | undefined;
}

/** Parts per block on average: small enough that a changed part costs little to encode again, large enough to make few pieces. */
const BLOCK = 32;

let partsMade = 0;

/** Whether the next part made ends a block: one part in BLOCK, spread evenly (a multiplicative hash of a counter). */
function cutAfter(): boolean {
  partsMade = (partsMade + 1) >>> 0;
  return Math.imul(partsMade, 0x9e3779b1) >>> 0 < 0x1_0000_0000 / BLOCK;
}

/** A metric's parts of cached groups in the last render, counted by series: how a render finds duplicates across groups without looking at every series. */
interface MetricList {
  parts: readonly MetricPart[];
  /** Unique to this list's update (MetricPart.listed). */
  stamp: number;
  /** Of each series (its `{labels}`), how many of the parts have it. */
  counts: Map<string, number>;
  /** Series more than one part has. */
  shared: number;
}

/** A piece of an exposition: text, bytes, or a block (encoded when first needed). */
type Piece = string | Buffer | Block;

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
function joinPieces(pieces: readonly Piece[]): Buffer {
  let size = 0;
  for (const p of pieces) {
    if (typeof p === 'string') size += Buffer.byteLength(p, 'utf8');
    else size += (Buffer.isBuffer(p) ? p : bytesOf(p)).length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') {
      at += out.write(p, at, 'utf8');
    } else {
      const b = Buffer.isBuffer(p) ? p : (p.bytes as Buffer);
      out.set(b, at);
      at += b.length;
    }
  }
  return out;
}

/** An exposition whose text is joined, and gzipped, when first asked for. */
function lazyExposition(parts: Piece[] | undefined, series: number): Exposition {
  let text: Buffer | undefined;
  let zipped: Promise<Buffer> | undefined;
  const textOf = (): Buffer => {
    if (text === undefined) {
      text = joinPieces(parts as Piece[]);
      parts = undefined; // the joined copy is all that is needed now
    }
    return text;
  };
  return {
    get text() {
      return textOf();
    },
    gzip() {
      // Level 1: compressed once per render, served many times; the fastest level costs a
      // fraction of the default's CPU for a few percent more bytes.
      zipped ??= gzipAsync(textOf(), { level: 1 }).catch((err: unknown) => {
        zipped = undefined;
        throw err;
      });
      return zipped;
    },
    series,
    contentType: TEXT_CONTENT_TYPE,
  };
}

/**
 * Renders samples in the Prometheus text format. Metrics come in the order of
 * the contract (src/metrics/metric-defs.ts), series in the order the
 * collectors produced them; a duplicate series keeps its first value, since
 * Prometheus rejects a scrape with duplicates. The samples arrive in groups
 * (one per source value, or several: SourceDef.collectGroups); a group that
 * was rendered before (the same array, which the assembler keeps for an
 * unchanged value and a collector for an unchanged entry) is neither
 * formatted nor encoded again, so a render after one node's round costs that
 * node's changed series, not the whole fleet's. The work is split into chunks with yields in between, and gzip
 * runs off the event loop, so rendering a mainnet-sized state does not stall
 * scrapes or polls.
 */
export class ExpositionRenderer {
  /** Samples dropped in the last render because they did not match their metric's definition (a bug). */
  rejected = 0;
  /** Duplicate series dropped in the last render. */
  duplicates = 0;
  /** Groups formatted in the last render (the others came from the cache). */
  formattedGroups = 0;
  /** Formatted groups by their samples array; an entry goes when its array is no longer referenced. */
  private cache = new WeakMap<readonly Sample[], RenderedGroup>();
  /** Escaped label values, kept across renders: the same node names, node ids and subnets recur in every round. */
  private escaped = new Map<string, string>();
  /** The metric definitions this renderer writes. */
  readonly #contract: Contract;
  /** Per metric, its parts in the last cached render. */
  readonly #lists: (MetricList | undefined)[] = [];
  #stamps = 0;

  /** @param extraMetrics definitions of metrics outside the product's contract (sources' `metrics`). */
  constructor(extraMetrics?: Readonly<Record<string, MetricDef>>) {
    this.#contract = extraMetrics && Object.keys(extraMetrics).length > 0 ? new Contract(extraMetrics) : PRODUCT_CONTRACT;
  }

  /** Renders samples into text and gzip buffers (one group, not cached). */
  async render(samples: readonly Sample[]): Promise<Exposition> {
    return this.renderGroups([samples], false);
  }

  /**
   * Renders groups of samples as if they were one list, in order. With
   * `cache`, each group array is formatted once and reused while the same
   * array comes back; the result is byte-identical to an uncached render.
   */
  async renderGroups(groups: readonly (readonly Sample[])[], cache = true): Promise<Exposition> {
    this.rejected = 0;
    this.duplicates = 0;
    this.formattedGroups = 0;
    if (this.escaped.size > MAX_ESCAPE_CACHE) this.escaped.clear();
    const rendered: RenderedGroup[] = [];
    const budget: YieldBudget = { left: CHUNK };
    for (const g of groups) {
      let r = cache ? this.cache.get(g) : undefined;
      if (!r) {
        r = await formatGroup(this.#contract, g, this.escaped, budget);
        this.formattedGroups++;
        if (cache) this.cache.set(g, r);
      }
      this.rejected += r.rejected;
      this.duplicates += r.duplicates;
      rendered.push(r);
    }
    // Per metric, the groups' lines in group order. A series an earlier group
    // already wrote is a duplicate across groups: that metric of the later
    // group is formatted again without it (rare: sources label their series apart).
    const byMetric: number[][] = this.#contract.names.map(() => []);
    for (let gi = 0; gi < rendered.length; gi++) for (const m of (rendered[gi] as RenderedGroup).present) (byMetric[m] as number[]).push(gi);
    const parts: Piece[] = [];
    let series = 0;
    const seen = new Set<string>();
    const keys = new Set<string>();
    for (let m = 0; m < this.#contract.names.length; m++) {
      const contributors = byMetric[m] as number[];
      if (contributors.length === 0) continue;
      parts.push(this.#contract.headerBytes[m] as Buffer);
      if (cache) {
        const list = contributors.map((gi) => (rendered[gi] as RenderedGroup).metrics[m] as MetricPart);
        if (this.#relist(m, list)) {
          series += pushBlocks(list, parts);
          continue;
        }
      }
      // Whether every part has its own first-label value: then no series can be in two parts.
      let apart = contributors.length > 1;
      keys.clear();
      for (const gi of contributors) {
        const key = ((rendered[gi] as RenderedGroup).metrics[m] as MetricPart).key;
        if (key === undefined || keys.has(key)) {
          apart = false;
          break;
        }
        keys.add(key);
      }
      seen.clear();
      for (const gi of contributors) {
        const part = (rendered[gi] as RenderedGroup).metrics[m] as MetricPart;
        if (contributors.length === 1 || apart) {
          parts.push(part.text);
          series += part.bodies.length;
          continue;
        }
        let clash = false;
        for (const b of part.bodies) if (seen.has(b)) clash = true;
        if (!clash) {
          for (const b of part.bodies) seen.add(b);
          parts.push(part.text);
          series += part.bodies.length;
          continue;
        }
        const kept = reformatWithout(this.#contract, groups[gi] as readonly Sample[], m, seen, this.escaped);
        this.duplicates += part.bodies.length - kept.count;
        parts.push(kept.text);
        series += kept.count;
      }
    }
    return lazyExposition(parts, series);
  }

  /**
   * Makes `list` metric m's list, counting the series of the parts that came
   * in and leaving out those of the parts that went; true when no series is
   * in two of its parts (nor a part twice), so that every part is written
   * whole: the first-wins rule has nothing to drop.
   */
  #relist(m: number, list: readonly MetricPart[]): boolean {
    const last: MetricList = (this.#lists[m] ??= { parts: [], stamp: -1, counts: new Map<string, number>(), shared: 0 });
    const stamp = ++this.#stamps;
    let twice = false;
    for (const part of list) {
      if (part.listed === stamp) {
        twice = true;
        continue;
      }
      if (part.listed !== last.stamp) {
        for (const b of part.bodies) {
          const c = last.counts.get(b) ?? 0;
          if (c === 1) last.shared++;
          last.counts.set(b, c + 1);
        }
      }
      part.listed = stamp;
    }
    for (const part of last.parts) {
      if (part.listed === stamp) continue;
      for (const b of part.bodies) {
        const c = last.counts.get(b) as number;
        if (c === 2) last.shared--;
        if (c === 1) last.counts.delete(b);
        else last.counts.set(b, c - 1);
      }
    }
    last.parts = list;
    last.stamp = stamp;
    return !twice && last.shared === 0;
  }
}

/**
 * Pushes a metric's parts as blocks, reusing each block that starts with the
 * same part and goes on with the same parts as one made before; returns the
 * series written.
 */
function pushBlocks(list: readonly MetricPart[], out: Piece[]): number {
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
      for (const p of parts) n += p.bodies.length;
      block = first.block = { parts, series: n, bytes: undefined };
    }
    out.push(block as Block);
    series += (block as Block).series;
    start = end;
  }
  return series;
}
