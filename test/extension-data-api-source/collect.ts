import type { MetricName, Sample } from '../../src/metrics/metric-defs.js';
import type { ValidationCountValue } from './value.js';

/**
 * The example's metric is declared by the source itself (`metrics` in
 * index.ts), outside the product's contract, whose names the Sample type
 * lists: hence the cast.
 */
export const VALIDATION_COUNT_METRIC = 'avax_example_data_api_validations' as MetricName;

/** The counts → one series per watched node id. Pure. */
export function collectValidationCount(v: ValidationCountValue): Sample[] {
  return v.counts.map((c) => ({ name: VALIDATION_COUNT_METRIC, labels: { network: v.network, node_id: c.nodeId }, value: c.validations }));
}
