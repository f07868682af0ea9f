import type { MetricName, Sample } from '../metrics/metric-defs.js';

/** Builds a sample; a tiny helper so collectors read as tables. */
export function sample(name: MetricName, labels: Record<string, string>, value: number): Sample {
  return { name, labels, value };
}

/** 1 for true, 0 for false. */
export function bit(b: boolean): number {
  return b ? 1 : 0;
}
