import type { Sample } from '../exposition/metric-defs.js';
import type { ValidatorsValue } from '../sources/validators.js';
import { navaxToAvax } from '../http/wire.js';
import { bit, sample } from './sample.js';

/**
 * Validator sets → samples. Optional fields produce no sample when absent
 * (L1 validators have no end time, uptime or delegations); watched ids that
 * are not in the set get only `avax_validator_active 0`.
 */
export function collectValidators(v: ValidatorsValue, node: string): Sample[] {
  const out: Sample[] = [];
  for (const s of v.subnets) {
    const present = new Set<string>();
    for (const val of s.validators) {
      // An L1 can list the same node twice (legacy staker + L1 validator); the first wins.
      if (present.has(val.nodeId)) continue;
      present.add(val.nodeId);
      const labels = { node, node_id: val.nodeId, subnet: s.subnetId };
      out.push(sample('avax_validator_active', labels, 1));
      out.push(sample('avax_validator_weight', labels, Number(val.weight)));
      out.push(sample('avax_validator_start_timestamp_seconds', labels, val.startTime));
      if (val.endTime !== undefined) out.push(sample('avax_validator_end_timestamp_seconds', labels, val.endTime));
      if (val.uptimeRatio !== undefined) out.push(sample('avax_validator_uptime_ratio', labels, val.uptimeRatio));
      if (val.connected !== undefined) out.push(sample('avax_validator_connected', labels, bit(val.connected)));
      if (val.potentialReward !== undefined) out.push(sample('avax_validator_potential_reward_avax', labels, navaxToAvax(val.potentialReward)));
      if (val.delegatorWeight !== undefined) out.push(sample('avax_validator_delegator_weight_avax', labels, navaxToAvax(val.delegatorWeight)));
      if (val.delegatorCount !== undefined) out.push(sample('avax_validator_delegators', labels, val.delegatorCount));
      if (val.delegationFeeRatio !== undefined) out.push(sample('avax_validator_delegation_fee_ratio', labels, val.delegationFeeRatio));
      if (val.validationId !== undefined && val.balance !== undefined) {
        out.push(sample('avax_l1_validator_balance_avax', { ...labels, validation_id: val.validationId }, navaxToAvax(val.balance)));
      }
    }
    out.push(sample('avax_exporter_validators_omitted', { node, subnet: s.subnetId }, s.omitted));
    for (const id of s.watched) {
      if (!present.has(id)) out.push(sample('avax_validator_active', { node, node_id: id, subnet: s.subnetId }, 0));
    }
  }
  return out;
}
