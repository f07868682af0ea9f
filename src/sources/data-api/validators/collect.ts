import type { Sample } from '../../../metrics/metric-defs.js';
import type { DataApiValidation, DataApiValidatorsValue, ValidationStatus } from './value.js';
import { navaxToAvax } from '../../../http/wire.js';
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import { bit, sample } from '../../sample.js';

/** The `status` series of each validator, in this order. */
const STATUS_SERIES: readonly ValidationStatus[] = ['active', 'pending', 'completed', 'removed'];

/**
 * The validation the metrics describe: the active one, else the newest (by
 * start time, then by the service's newest-first order). A renewal the
 * service already lists as pending does not end the validation in progress,
 * so an active validation wins over a newer pending one. Pure.
 */
export function currentValidation(validations: readonly DataApiValidation[]): DataApiValidation | undefined {
  const active = validations.filter((v) => v.status === 'active');
  const pool = active.length > 0 ? active : validations;
  return pool.reduce<DataApiValidation | undefined>((a, b) => (a === undefined || b.startTimestamp > a.startTimestamp ? b : a), undefined);
}

/** Groups validations by subnet, the primary network first, then in the order the service listed them. */
function bySubnet(validations: readonly DataApiValidation[]): Map<string, DataApiValidation[]> {
  const out = new Map<string, DataApiValidation[]>([[PRIMARY_NETWORK_ID, []]]);
  for (const v of validations) {
    const list = out.get(v.subnetId) ?? [];
    list.push(v);
    out.set(v.subnetId, list);
  }
  return out;
}

/**
 * Validations → samples. Per node and subnet: one `status` series per status
 * (1 for the current validation's, all 0 for a watched node the service knows
 * no primary-network validation of). A validation that is over (completed,
 * removed) exports only its status; a pending one also its end and stake; an
 * active one everything the service gave. AVAX amounts are exported for the
 * primary network only (a permissioned subnet's "stake" is a weight). Health,
 * reachability and version describe the node, from its active primary-network
 * validation.
 */
export function collectDataApiValidators(v: DataApiValidatorsValue): Sample[] {
  const out: Sample[] = [];
  const network = v.network;
  for (const n of v.nodes) {
    let node: DataApiValidation | undefined;
    for (const [subnet, list] of bySubnet(n.validations)) {
      const cur = currentValidation(list);
      const L = { network, node_id: n.nodeId, subnet };
      for (const status of STATUS_SERIES) out.push(sample('avax_data_api_validator_status', { ...L, status }, bit(cur?.status === status)));
      const primary = subnet === PRIMARY_NETWORK_ID;
      out.push(...collectPastValidations(list, L, primary));
      if (!cur || cur.status === 'completed' || cur.status === 'removed') continue;
      out.push(sample('avax_data_api_validator_end_timestamp_seconds', L, cur.endTimestamp));
      if (primary) out.push(sample('avax_data_api_validator_stake_avax', L, navaxToAvax(cur.amountStaked)));
      if (cur.status !== 'active') continue;
      if (primary) node = cur;
      if (cur.uptimeRatio !== undefined) out.push(sample('avax_data_api_validator_uptime_ratio', L, cur.uptimeRatio));
      if (cur.delegatorCount !== undefined) out.push(sample('avax_data_api_validator_delegators', L, cur.delegatorCount));
      if (!primary) continue;
      if (cur.amountDelegated !== undefined) out.push(sample('avax_data_api_validator_delegated_avax', L, navaxToAvax(cur.amountDelegated)));
      if (cur.delegationCapacity !== undefined) out.push(sample('avax_data_api_validator_delegation_capacity_avax', L, navaxToAvax(cur.delegationCapacity)));
      if (cur.potentialValidationReward !== undefined) {
        out.push(sample('avax_data_api_validator_potential_reward_avax', { ...L, kind: 'validation' }, navaxToAvax(cur.potentialValidationReward)));
      }
      if (cur.potentialDelegationReward !== undefined) {
        out.push(sample('avax_data_api_validator_potential_reward_avax', { ...L, kind: 'delegation' }, navaxToAvax(cur.potentialDelegationReward)));
      }
    }
    if (!node) continue;
    const N = { network, node_id: n.nodeId };
    if (node.reachabilityRatio !== undefined) out.push(sample('avax_data_api_validator_reachability_ratio', N, node.reachabilityRatio));
    for (const [chain, ratio] of Object.entries(node.benchedRatio ?? {})) {
      out.push(sample('avax_data_api_validator_benched_requests_ratio', { ...N, chain }, ratio));
    }
    if (node.version !== undefined) out.push(sample('avax_data_api_validator_version_info', { ...N, version: node.version }, 1));
  }
  return out;
}

/** The newest validation of a list by start time (the service's newest-first order breaks ties). Pure. */
function newest(list: readonly DataApiValidation[]): DataApiValidation | undefined {
  return list.reduce<DataApiValidation | undefined>((a, b) => (a === undefined || b.startTimestamp > a.startTimestamp ? b : a), undefined);
}

/**
 * What the validator's past validations on one subnet say, whatever the
 * current one is: the newest completed primary-network validation's end and
 * rewards (a validation reward of 0 is a denied reward: the uptime was under
 * the requirement; rewards exist on the primary network only), and the
 * newest removed validation's removal time. One series each per subnet, not
 * one per validation ever made. Pure.
 */
function collectPastValidations(list: readonly DataApiValidation[], L: Record<string, string>, primary: boolean): Sample[] {
  const out: Sample[] = [];
  const completed = primary ? newest(list.filter((v) => v.status === 'completed')) : undefined;
  if (completed) {
    out.push(sample('avax_data_api_validator_last_completed_end_timestamp_seconds', L, completed.endTimestamp));
    if (completed.validationReward !== undefined) {
      out.push(sample('avax_data_api_validator_last_reward_avax', { ...L, kind: 'validation' }, navaxToAvax(completed.validationReward)));
      out.push(sample('avax_data_api_validator_last_reward_denied', L, bit(completed.validationReward === 0n)));
    }
    if (completed.delegationReward !== undefined) {
      out.push(sample('avax_data_api_validator_last_reward_avax', { ...L, kind: 'delegation' }, navaxToAvax(completed.delegationReward)));
    }
  }
  const removed = newest(list.filter((v) => v.status === 'removed'));
  if (removed?.removeTimestamp !== undefined) out.push(sample('avax_data_api_validator_remove_timestamp_seconds', L, removed.removeTimestamp));
  return out;
}
