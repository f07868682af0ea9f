import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { METRICS, type MetricName, type Sample } from './metric-defs.js';

const gzipAsync = promisify(gzip);

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Longest label value exported; longer values are cut (and marked) so one odd upstream string cannot bloat every scrape. */
export const MAX_LABEL_LENGTH = 256;

/** Samples formatted between two yields to the event loop, so a 20,000-series render never blocks scrapes for long. */
const CHUNK = 500;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const NEEDS_SANITIZING = /[\uD800-\uDFFF\u0000]/;

/** Makes a label value safe: well-formed UTF-8, no NUL, bounded length. */
export function sanitizeLabelValue(v: string): string {
  if (v.length <= MAX_LABEL_LENGTH && !NEEDS_SANITIZING.test(v)) return v;
  // Lone surrogates cannot be encoded as UTF-8; replace them like TextEncoder would.
  let s = v.replace(LONE_SURROGATE, '\ufffd').replace(/\u0000/g, '');
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
  text: Buffer;
  gzip: Buffer;
  /** Number of series in it. */
  series: number;
  contentType: string;
}

/**
 * Formats a sample's series, `name{labels}` (the line without its value, which
 * is also the key duplicates are found by); undefined when its labels do not
 * match the metric definition. `escaped` memoizes label values for one render:
 * the same few thousand values (node, subnet, node ids) recur in every metric.
 */
function formatSeries(s: Sample, labelNames: readonly string[], escaped: Map<string, string>): string | undefined {
  const labels = s.labels;
  let keys = 0;
  for (const _k in labels) keys++;
  if (keys !== labelNames.length) return undefined;
  if (labelNames.length === 0) return s.name;
  let out = `${s.name}{`;
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
 * Renders samples in the Prometheus text format. Metrics come in the order of
 * the contract (src/exposition/metric-defs.ts), series in the order the
 * collectors produced them; a duplicate series keeps its first value, since
 * Prometheus rejects a scrape with duplicates. The work is split into chunks
 * with yields in between, and gzip runs off the event loop, so rendering a
 * mainnet-sized state does not stall scrapes or polls.
 */
export class ExpositionRenderer {
  /** Samples dropped in the last render because they did not match their metric's definition (a bug). */
  rejected = 0;
  /** Duplicate series dropped in the last render. */
  duplicates = 0;

  /** Renders samples into text and gzip buffers. */
  async render(samples: readonly Sample[]): Promise<Exposition> {
    this.rejected = 0;
    this.duplicates = 0;
    const lines = new Map<MetricName, string[]>();
    const seen = new Set<string>();
    const escaped = new Map<string, string>();
    for (let start = 0; start < samples.length; start += CHUNK) {
      if (start > 0) await yieldToLoop();
      const end = Math.min(samples.length, start + CHUNK);
      for (let i = start; i < end; i++) {
        const s = samples[i] as Sample;
        const def = METRICS[s.name];
        const series = def ? formatSeries(s, def.labels, escaped) : undefined;
        if (series === undefined) {
          this.rejected++;
          continue;
        }
        if (seen.has(series)) {
          this.duplicates++;
          continue;
        }
        seen.add(series);
        let list = lines.get(s.name);
        if (!list) lines.set(s.name, (list = []));
        list.push(`${series} ${formatValue(s.value)}\n`);
      }
    }
    const parts: string[] = [];
    for (const name of Object.keys(METRICS) as MetricName[]) {
      const list = lines.get(name);
      if (!list) continue;
      const def = METRICS[name];
      parts.push(`# HELP ${name} ${escapeHelp(def.help)}\n# TYPE ${name} ${def.type}\n`, ...list);
    }
    const text = Buffer.from(parts.join(''), 'utf8');
    // Level 1: the cached exposition is compressed after every round, served many times; the
    // fastest level costs a fraction of the default's CPU for a few percent more bytes.
    return { text, gzip: await gzipAsync(text, { level: 1 }), series: seen.size, contentType: TEXT_CONTENT_TYPE };
  }
}
