import type { Sample } from '../../../metrics/metric-defs.js';
import { L1_CHAIN_STATES, type L1UptimeValue } from './value.js';
import { firstOfEach } from '../../../domain/rules.js';
import { bit, sample } from '../../sample.js';

/**
 * L1 uptimes → samples: each chain's state (a state set: one series per
 * state, 1 for the current one), then its validators; a node listed twice on
 * a chain keeps its first entry.
 */
export function collectL1Uptime(v: L1UptimeValue, node: string): Sample[] {
  const out: Sample[] = [];
  for (const c of v.chains) {
    for (const state of L1_CHAIN_STATES) out.push(sample('avax_l1_chain_state', { node, subnet: c.subnetId, chain: c.chain, state }, bit(c.state === state)));
    if (c.state !== 'ok') continue;
    out.push(sample('avax_exporter_l1_validators_omitted', { node, subnet: c.subnetId, chain: c.chain }, c.omitted));
    for (const val of firstOfEach(c.validators, (x) => x.nodeId)) {
      const labels = { node, node_id: val.nodeId, subnet: c.subnetId, chain: c.chain };
      out.push(sample('avax_l1_validator_uptime_ratio', labels, val.uptimeRatio));
      out.push(sample('avax_l1_validator_connected', labels, bit(val.connected)));
      if (val.active !== undefined) out.push(sample('avax_l1_validator_active', labels, bit(val.active)));
    }
  }
  return out;
}
