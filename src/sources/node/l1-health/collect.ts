import type { Sample } from '../../../metrics/metric-defs.js';
import type { L1HealthValue } from './value.js';
import { bit, sample } from '../../sample.js';

/**
 * Each watched L1 chain's health check → samples: passing, failed to start,
 * and the check's name. The consensus figures in the same check (blocks
 * processing, last accepted height) are the node_vitals source's
 * avax_node_chain_* series, which cover every chain; the check's name joins
 * them to the chain and its subnet.
 */
export function collectL1Health(v: L1HealthValue, node: string): Sample[] {
  const out: Sample[] = [];
  for (const c of v.chains) {
    const labels = { node, subnet: c.subnetId, chain: c.chain };
    out.push(sample('avax_l1_chain_healthy', labels, bit(c.passing)));
    out.push(sample('avax_l1_chain_failed_to_start', labels, bit(c.failedToStart)));
    out.push(sample('avax_l1_chain_health_check_info', { ...labels, check: c.check }, 1));
  }
  return out;
}
