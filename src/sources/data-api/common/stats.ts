import type { Sample } from '../../../metrics/metric-defs.js';
import type { DataApiStats } from '../../../data-api/client.js';
import { sample } from '../../sample.js';

/**
 * The client's own counters → samples. They are not a source's value: a
 * source that keeps failing on 429 would never store a new value, and the
 * count of those 429s is exactly what must keep moving.
 */
export function collectDataApiStats(network: string, stats: DataApiStats): Sample[] {
  return [sample('avax_data_api_rate_limited_total', { network }, stats.rateLimited)];
}
