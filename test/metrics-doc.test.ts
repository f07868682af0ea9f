import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../src/metrics/metric-defs.js';
import { METRICS_DOC_PATH, renderMetricsDoc } from './tools/metrics-doc.js';

describe('metrics reference', () => {
  it('the committed docs/metrics.md is what the metric definitions generate (run npm run docs:metrics)', () => {
    expect(readFileSync(METRICS_DOC_PATH, 'utf8')).toBe(renderMetricsDoc());
  });

  it('every metric follows the naming rules', () => {
    for (const [name, def] of Object.entries(METRICS)) {
      expect(name).toMatch(/^avax_[a-z0-9_]+$/);
      if (def.type === 'counter') expect(name).toMatch(/_total$/);
      else expect(name).not.toMatch(/_total$/);
      expect(name).not.toMatch(/_percent|_percentage|_ms$|_milliseconds|_navax/);
      if (name.endsWith('_info')) expect(def.type).toBe('gauge');
      expect(def.help.length).toBeGreaterThan(10);
    }
  });

  it('a definition change shows up in the generated doc', () => {
    const changed = renderMetricsDoc({ ...METRICS, avax_test_metric: { type: 'gauge', help: 'A test | metric.', labels: ['a'], source: 'x' } });
    expect(changed).toContain('| `avax_test_metric` | gauge | `a` | x | A test \\| metric. |');
    expect(changed).not.toBe(renderMetricsDoc());
  });
});
