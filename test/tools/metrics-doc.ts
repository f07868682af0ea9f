import { METRICS, type MetricDef } from '../../src/metrics/metric-defs.js';

/** Path of the generated reference, relative to the repository root. */
export const METRICS_DOC_PATH = 'docs/metrics.md';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/** Renders the metrics reference (markdown) from the metric definitions. */
export function renderMetricsDoc(metrics: Record<string, MetricDef> = METRICS): string {
  const rows = Object.entries(metrics)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, d]) => `| \`${name}\` | ${d.type} | ${d.labels.map((l) => `\`${l}\``).join(', ') || '-'} | ${cell(d.source)} | ${cell(d.help)} |`);
  return [
    '# Metrics reference',
    '',
    '<!-- Generated from src/metrics/metric-defs.ts by `npm run docs:metrics`; a test fails when this file differs. -->',
    '',
    'Every series avax-exporter exports. Names are a public contract: dashboards and alert rules depend on them.',
    'Units are base units (seconds, ratios 0..1, AVAX amounts in `_avax`); no sample carries a timestamp.',
    '',
    '| metric | type | labels | source | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
