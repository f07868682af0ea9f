import type { Sample } from '../../../metrics/metric-defs.js';
import type { UptimeValue } from './value.js';
import { bit, sample } from '../../sample.js';

/** info.uptime → samples; a non-validator has only avax_node_is_validator 0. */
export function collectUptime(v: UptimeValue, node: string): Sample[] {
  const out: Sample[] = [sample('avax_node_is_validator', { node }, bit(v.isValidator))];
  if (v.isValidator) {
    out.push(sample('avax_node_uptime_rewarding_stake_ratio', { node }, v.rewardingStakeRatio));
    out.push(sample('avax_node_uptime_weighted_average_ratio', { node }, v.weightedAverageRatio));
  }
  return out;
}
