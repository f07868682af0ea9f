import { METRICS, samplesOf, type MetricDef, type Sample, type SampleGroup } from '../metrics/metric-defs.js';
import {
  MetricLists,
  bodiesOf,
  KeysApart,
  cutAfter,
  fixedPiece,
  joinPieces,
  pushBlocks,
  segmentsOf,
  type FixedPiece,
  type MetricPart,
  type Piece,
} from './part-blocks.js';
import { gzipOfSegments } from './gzip-segments.js';
import { TimeSlicer, type SlicePolicy } from './time-slice.js';

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Longest label value exported; longer values are cut (and marked) so one odd upstream string cannot bloat every scrape. */
export const MAX_LABEL_LENGTH = 256;

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
   * The text gzipped, made by the first call and kept; concurrent callers
   * share one compression. Only what changed since an earlier render is
   * compressed: the runs of series that did not change keep their
   * compressed form (part-blocks.ts, gzip-segments.ts), so the daemon makes
   * it with every render and a scrape never waits for it. `sliceMs`, the
   * first caller's, sets how long the compression runs between yields.
   */
  gzip(sliceMs?: SlicePolicy): Promise<Buffer>;
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
  /** The headers encoded and compressed, made once: every render writes them. */
  readonly headerPieces: FixedPiece[];

  constructor(extra: Readonly<Record<string, MetricDef>> = {}) {
    const defs: Record<string, MetricDef> = { ...extra, ...METRICS };
    this.names = Object.keys(defs);
    this.index = new Map(this.names.map((n, i) => [n, i]));
    this.labels = this.names.map((n) => (defs[n] as MetricDef).labels);
    this.headers = this.names.map((n) => `# HELP ${n} ${escapeHelp((defs[n] as MetricDef).help)}\n# TYPE ${n} ${(defs[n] as MetricDef).type}\n`);
    this.headerPieces = this.headers.map(fixedPiece);
  }
}

/** The product's contract alone, shared by every renderer without extra metrics. */
const PRODUCT_CONTRACT = new Contract();

/** Escaped label values kept across renders before the memo starts over (a bound for label values that churn). */
const MAX_ESCAPE_CACHE = 200_000;

/** A group of samples, formatted: its part of each metric it has series of. */
interface RenderedGroup {
  /** Its parts, one per metric, in the order of `present` (a dense list: a group kept for every validator entry stays small). */
  parts: MetricPart[];
  /** The contract index of each part's metric, ascending. */
  present: number[];
  rejected: number;
  duplicates: number;
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
  // Joined from an array, not concatenated: a concatenation is a tree of
  // string pieces that V8 flattens only when the string is written, and a
  // body is never written, only kept (as the key duplicates are found by):
  // about four tree nodes and two fragments per series more, for as long as
  // the series is cached (~45 KB per node of a fleet).
  const pieces: string[] = ['{'];
  for (let i = 0; i < labelNames.length; i++) {
    const name = labelNames[i] as string;
    const value = labels[name];
    if (value === undefined) return undefined;
    let e = escaped.get(value);
    if (e === undefined) {
      e = escapeLabelValue(sanitizeLabelValue(value));
      escaped.set(value, e);
    }
    pieces.push(i ? ',' : '', name, '="', e, '"');
  }
  pieces.push('}');
  return pieces.join('');
}

/**
 * Formats one group: per metric, its lines (duplicates within the group
 * dropped, first wins). Collectors share one labels object between the
 * metrics of one entity (a validator's dozen series), so the `{labels}` part
 * is built once per object and label-name list, not once per sample. Yields
 * to the event loop between time slices (time-slice.ts), across groups.
 */
async function formatGroup(contract: Contract, samples: readonly Sample[], escaped: Map<string, string>, slicer: TimeSlicer): Promise<RenderedGroup> {
  const lines: string[] = [];
  const bodies: (string[] | undefined)[] = [];
  const sets: (Set<string> | undefined)[] = [];
  const keys: (string | undefined)[] = [];
  const keys2: (string | undefined)[] = [];
  const bodyOf = new Map<object, { names: readonly string[]; body: string | undefined }>();
  let rejected = 0;
  let duplicates = 0;
  for (let i = 0; i < samples.length; i++) {
    const pause = slicer.step();
    if (pause) await pause;
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
    const second = names.length > 1 ? escaped.get(s.labels[names[1] as string] as string) : undefined;
    let set = sets[m];
    if (set === undefined) {
      set = sets[m] = new Set();
      lines[m] = '';
      bodies[m] = [];
      keys[m] = first;
      keys2[m] = second;
    } else {
      if (keys[m] !== first) keys[m] = undefined;
      if (keys2[m] !== second) keys2[m] = undefined;
    }
    if (set.has(body)) {
      duplicates++;
      continue;
    }
    set.add(body);
    (bodies[m] as string[]).push(body);
    lines[m] += `${s.name}${body} ${formatValue(s.value)}\n`;
  }
  // Sized exactly, not grown by push (which leaves room for 17): a group is kept for as long as its source value, a fleet's by the thousand.
  let count = 0;
  for (let m = 0; m < lines.length; m++) if (lines[m] !== undefined) count++;
  const parts = new Array<MetricPart>(count);
  const present = new Array<number>(count);
  let k = 0;
  for (let m = 0; m < lines.length; m++) {
    const l = lines[m];
    if (l === undefined) continue;
    const b = bodies[m] as string[];
    const key = keys[m];
    parts[k] = {
      text: l,
      bodies: b,
      series: b.length,
      key,
      key2: key === undefined ? undefined : keys2[m],
      listed: 0,
      paired: 0,
      cut: cutAfter(),
      block: undefined,
    };
    present[k++] = m;
  }
  return { parts, present, rejected, duplicates };
}

/**
 * A group's part of metric `name` again, leaving out the series in `seen`
 * (written by earlier groups) and adding the kept ones to it. Its lines are
 * those of its samples already, in order, duplicates within the group
 * dropped: keeping the lines whose `{labels}` were not seen yet is what
 * formatting them again without them wrote, and needs no samples (a group's
 * are not kept once formatted).
 */
function partWithout(part: MetricPart, name: string, seen: Set<string>): { text: string; count: number } {
  const bodies = bodiesOf(part, name);
  const text = part.text;
  let kept = '';
  let count = 0;
  let at = 0;
  for (const body of bodies) {
    const end = text.indexOf('\n', at) + 1;
    if (!seen.has(body)) {
      seen.add(body);
      kept += text.slice(at, end);
      count++;
    }
    at = end;
  }
  return { text: kept, count };
}

/**
 * An exposition whose text is joined, and gzip made, when first asked for.
 * The pieces stay: the gzip is made from them (the blocks' kept segments),
 * not from the joined text.
 */
function lazyExposition(parts: readonly Piece[], series: number): Exposition {
  let text: Buffer | undefined;
  let zipped: Promise<Buffer> | undefined;
  return {
    get text() {
      text ??= joinPieces(parts);
      return text;
    },
    gzip(sliceMs?: SlicePolicy) {
      zipped ??= segmentsOf(parts, new TimeSlicer(sliceMs))
        .then(gzipOfSegments)
        .catch((err: unknown) => {
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
 * was rendered before (the same group object, which the assembler keeps for
 * an unchanged value and a collector for an unchanged entry) is neither
 * formatted nor encoded again, so a render after one node's round costs that
 * node's changed series, not the whole fleet's. A group that makes its
 * samples (MadeSamples) is asked for them once, when first formatted; only
 * its lines are kept. The work is split into chunks with yields in between, and gzip
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
  /** Formatted groups by group object; an entry goes when its group is no longer referenced. */
  private cache = new WeakMap<SampleGroup, RenderedGroup>();
  /** Escaped label values, kept across renders: the same node names, node ids and subnets recur in every round. */
  private escaped = new Map<string, string>();
  /** The metric definitions this renderer writes. */
  readonly #contract: Contract;
  /** Per metric, its parts in the last cached render. */
  readonly #lists = new MetricLists();
  readonly #keysApart = new KeysApart();

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
   * `cache`, each group is formatted once and reused while the same group
   * object comes back; the result is byte-identical to an uncached render.
   * `sliceMs` sets how long it runs between two yields to the event loop.
   */
  async renderGroups(groups: readonly SampleGroup[], cache = true, sliceMs?: SlicePolicy): Promise<Exposition> {
    this.rejected = 0;
    this.duplicates = 0;
    this.formattedGroups = 0;
    if (this.escaped.size > MAX_ESCAPE_CACHE) this.escaped.clear();
    const rendered: RenderedGroup[] = [];
    const slicer = new TimeSlicer(sliceMs);
    for (const g of groups) {
      let r = cache ? this.cache.get(g) : undefined;
      if (!r) {
        r = await formatGroup(this.#contract, samplesOf(g), this.escaped, slicer);
        this.formattedGroups++;
        if (cache) this.cache.set(g, r);
      }
      this.rejected += r.rejected;
      this.duplicates += r.duplicates;
      rendered.push(r);
    }
    // Per metric, the groups' lines in group order. A series an earlier group
    // already wrote is a duplicate across groups: that metric's part of the
    // later group is written without it (rare: sources label their series apart).
    const partsOf: MetricPart[][] = this.#contract.names.map(() => []);
    for (const r of rendered) {
      for (let k = 0; k < r.present.length; k++) (partsOf[r.present[k] as number] as MetricPart[]).push(r.parts[k] as MetricPart);
    }
    const parts: Piece[] = [];
    let series = 0;
    const seen = new Set<string>();
    for (let m = 0; m < this.#contract.names.length; m++) {
      const list = partsOf[m] as MetricPart[];
      if (list.length === 0) continue;
      const name = this.#contract.names[m] as string;
      parts.push(this.#contract.headerPieces[m] as FixedPiece);
      if (cache) {
        if (this.#lists.relist(m, list, name)) {
          series += pushBlocks(list, parts);
          continue;
        }
      }
      // Whether every part has its own first-label value: then no series can be in two parts.
      const apart = list.length > 1 && this.#keysApart.check(list);
      seen.clear();
      for (const part of list) {
        if (list.length === 1 || apart) {
          parts.push(part.text);
          series += part.series;
          continue;
        }
        const bodies = bodiesOf(part, name);
        let clash = false;
        for (const b of bodies) if (seen.has(b)) clash = true;
        if (!clash) {
          for (const b of bodies) seen.add(b);
          parts.push(part.text);
          series += part.series;
          continue;
        }
        const kept = partWithout(part, name, seen);
        this.duplicates += part.series - kept.count;
        parts.push(kept.text);
        series += kept.count;
      }
    }
    return lazyExposition(parts, series);
  }
}
