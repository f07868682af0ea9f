import type { Sample } from '../exposition/metric-defs.js';
import type { HealthValue } from '../sources/health.js';
import { bit, sample } from './sample.js';

/** Health endpoints and every health check → samples. */
export function collectHealth(v: HealthValue, node: string): Sample[] {
  const out: Sample[] = [
    sample('avax_node_healthy', { node }, bit(v.healthy)),
    sample('avax_node_ready', { node }, bit(v.ready)),
    sample('avax_node_live', { node }, bit(v.live)),
  ];
  for (const c of v.checks) {
    const labels = { node, check: c.name };
    out.push(sample('avax_node_health_check_passing', labels, bit(c.passing)));
    out.push(sample('avax_node_health_check_contiguous_failures', labels, c.contiguousFailures));
    if (!c.passing && c.failingSince !== undefined) {
      out.push(sample('avax_node_health_check_failing_since_timestamp_seconds', labels, c.failingSince));
    }
  }
  return out;
}
