import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { Counter, Gauge, Registry } from 'prom-client';
import { METRICS, type MetricName, type Sample } from './metric-defs.js';

const gzipAsync = promisify(gzip);

/** Longest label value exported; longer values are cut (and marked) so one odd upstream string cannot bloat every scrape. */
export const MAX_LABEL_LENGTH = 256;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Makes a label value safe: well-formed UTF-8, no NUL, bounded length. */
export function sanitizeLabelValue(v: string): string {
  // Lone surrogates cannot be encoded as UTF-8; replace them like TextEncoder would.
  let s = v.replace(LONE_SURROGATE, '\ufffd').replace(/\u0000/g, '');
  if (s.length > MAX_LABEL_LENGTH) s = `${s.slice(0, MAX_LABEL_LENGTH - 1)}…`;
  return s;
}

/** A rendered exposition, ready to be written to any number of scrapers. */
export interface Exposition {
  text: Buffer;
  gzip: Buffer;
  /** Number of samples in it. */
  series: number;
  contentType: string;
}

/**
 * Renders samples in the Prometheus text format with prom-client. Rendering
 * happens once per state change; scrapes are served from the cached result.
 */
export class ExpositionRenderer {
  readonly #registry = new Registry();
  readonly #metrics = new Map<MetricName, Gauge | Counter>();
  /** Samples that did not fit their metric's label set (a bug, reported once per render). */
  rejected = 0;

  constructor() {
    for (const [name, def] of Object.entries(METRICS) as [MetricName, (typeof METRICS)[MetricName]][]) {
      const cfg = { name, help: def.help, labelNames: [...def.labels], registers: [this.#registry] };
      this.#metrics.set(name, def.type === 'counter' ? new Counter(cfg) : new Gauge(cfg));
    }
  }

  /** Renders samples into text and gzip buffers. */
  async render(samples: readonly Sample[]): Promise<Exposition> {
    this.#registry.resetMetrics();
    this.rejected = 0;
    for (const s of samples) {
      const metric = this.#metrics.get(s.name);
      if (!metric || !Number.isFinite(s.value) && !Number.isNaN(s.value)) {
        this.rejected++;
        continue;
      }
      const labels: Record<string, string> = {};
      for (const [k, v] of Object.entries(s.labels)) labels[k] = sanitizeLabelValue(v);
      try {
        if (metric instanceof Counter) metric.inc(labels, s.value);
        else metric.set(labels, s.value);
      } catch {
        this.rejected++;
      }
    }
    const text = Buffer.from(await this.#registry.metrics(), 'utf8');
    return { text, gzip: await gzipAsync(text), series: samples.length - this.rejected, contentType: this.#registry.contentType };
  }
}
