/**
 * The shipped alert rules, sped up for a live test: every duration that is
 * time (`for:`, `keep_firing_for:`, and in PromQL the range of a range
 * selector, the range and step of a subquery, an `offset`) is divided by one
 * factor; everything else, thresholds that happen to be seconds or days
 * included (they are compared with data), is left as it is. Pure functions:
 * the detection matrix (test/detection-matrix.test.ts) loads the result into
 * a real Prometheus.
 */
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/** How durations are scaled. */
export interface ScaleOptions {
  /** Every duration is divided by this (e.g. 60: 15m becomes 15s). */
  factor: number;
  /**
   * Shortest range a range selector or subquery may get, in ms: a range must
   * hold a few samples of a scrape interval to mean anything (rate needs two).
   * Default 0 (no floor).
   */
  minRangeMs?: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };

/** Parses a Prometheus duration (`1h30m`, `500ms`, `0s`; a bare number is seconds) to ms. Throws on anything else. */
export function parsePromDuration(text: string): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  if (!/^(\d+(ms|[smhdwy]))+$/.test(s)) throw new Error(`not a Prometheus duration: "${text}"`);
  let ms = 0;
  for (const m of s.matchAll(/(\d+)(ms|[smhdwy])/g)) ms += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return ms;
}

/** Formats ms as the shortest exact Prometheus duration (`90s` → `1m30s`, `2500` → `2s500ms`, 0 → `0s`). */
export function formatPromDuration(ms: number): string {
  let left = Math.round(ms);
  if (left <= 0) return '0s';
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms']) {
    const size = UNIT_MS[unit] as number;
    const n = Math.floor(left / size);
    if (n > 0) {
      out += `${n}${unit}`;
      left -= n * size;
    }
  }
  return out;
}

/** One duration divided by the factor (rounded to the ms), with an optional floor. */
export function scaleDuration(text: string, factor: number, floorMs = 0): string {
  if (!(factor > 0)) throw new Error(`scale factor must be positive (got ${factor})`);
  return formatPromDuration(Math.max(parsePromDuration(text) / factor, floorMs));
}

/**
 * Scales the time durations of a PromQL expression: ranges of range
 * selectors and subqueries (floored at `minRangeMs`), subquery steps and
 * offsets. Found with Prometheus's own grammar (lezer-promql), so durations
 * inside string literals (a regex like `"[0-9]{5m}"`) are never touched.
 */
export function scaleExpr(expr: string, opts: ScaleOptions): string {
  const tree = parser.parse(expr);
  const edits: { from: number; to: number; text: string }[] = [];
  const cur = tree.cursor();
  do {
    if (cur.name !== 'NumberDurationLiteralInDurationContext') continue;
    const node = cur.node;
    const parent = node.parent;
    let floor = 0;
    if (parent?.name === 'DurationExpr') {
      const owner = parent.parent;
      // The first DurationExpr of a range selector or subquery is its range; a subquery's second is its step.
      const isRange = owner?.name === 'MatrixSelector' || (owner?.name === 'SubqueryExpr' && owner.getChildren('DurationExpr')[0]?.from === parent.from);
      if (isRange) floor = opts.minRangeMs ?? 0;
    } else if (parent?.name !== 'OffsetDurationExpr') {
      throw new Error(`duration in an unexpected place (${parent?.name ?? 'top'}) in: ${expr}`);
    }
    edits.push({ from: node.from, to: node.to, text: scaleDuration(expr.slice(node.from, node.to), opts.factor, floor) });
  } while (cur.next());
  let out = expr;
  for (const e of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}

type RulesDoc = { groups: { name: string; interval?: string; rules: Record<string, unknown>[] }[] };

/**
 * A Prometheus rules file (YAML text) with every time duration scaled: each
 * rule's `for` and `keep_firing_for`, and the durations in its `expr` (see
 * {@link scaleExpr}). A group's own `interval` is left alone (the test's
 * Prometheus evaluates every second anyway); labels and annotations are
 * untouched. Returns YAML text.
 */
export function scaleRulesText(yamlText: string, opts: ScaleOptions): string {
  const doc = parseYaml(yamlText) as RulesDoc;
  for (const g of doc.groups) {
    for (const r of g.rules) {
      if (typeof r['expr'] === 'string') r['expr'] = scaleExpr(r['expr'], opts);
      for (const key of ['for', 'keep_firing_for']) {
        const v = r[key];
        if (v === undefined) continue;
        if (typeof v !== 'string') throw new Error(`rule ${String(r['alert'] ?? r['record'])}: ${key} is not a duration string`);
        r[key] = scaleDuration(v, opts.factor);
      }
    }
  }
  return stringifyYaml(doc, { lineWidth: 0 });
}
