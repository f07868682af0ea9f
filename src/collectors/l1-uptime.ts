import type { Sample } from '../exposition/metric-defs.js';
import type { L1UptimeValue } from '../sources/l1-uptime.js';
import { bit, sample } from './sample.js';

/** L1 uptimes → samples; a node listed twice on a chain keeps its first entry. */
export function collectL1Uptime(v: L1UptimeValue, node: string): Sample[] {
  const out: Sample[] = [];
  for (const c of v.chains) {
    const seen = new Set<string>();
    for (const val of c.validators) {
      if (seen.has(val.nodeId)) continue;
      seen.add(val.nodeId);
      const labels = { node, node_id: val.nodeId, subnet: c.subnetId, chain: c.chain };
      out.push(sample('avax_l1_validator_uptime_ratio', labels, val.uptimeRatio));
      out.push(sample('avax_l1_validator_connected', labels, bit(val.connected)));
    }
  }
  return out;
}
