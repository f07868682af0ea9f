import type { MadeSamples, Sample, SampleGroup } from '../../../metrics/metric-defs.js';
import type { ValidatorRecord, ValidatorsValue } from './value.js';
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import { balanceRunwaySeconds, downtimeBudgetSeconds, firstOfEach, isInactiveL1, rewardUptimeThreshold } from '../../../domain/rules.js';
import { navaxToAvax } from '../../../http/wire.js';
import { bit, sample } from '../../sample.js';
import { collectValidationLookups } from './validation-lookup-collect.js';

/** One entry's series but the downtime budget, as a group that makes them, and what they are made from. */
interface EntrySamples {
  node: string;
  subnet: string;
  price: number | undefined;
  upgradeTime: number | undefined;
  threshold: number;
  group: MadeSamples;
}

/**
 * The group of each record made last, by record: a record the source kept
 * from the previous round (its entry did not change) gives the same group
 * again, whose lines the renderer has already written. The group keeps the
 * record, not its samples: the renderer asks for them once. Goes with its
 * record.
 */
const madeFor = new WeakMap<ValidatorRecord, EntrySamples>();

/** A validator entry's series as a group, the downtime budget aside (it moves with `observedAt`). Pure but for the memo. */
function entrySamples(val: ValidatorRecord, node: string, subnet: string, price: number | undefined, upgradeTime: number | undefined): EntrySamples {
  const hit = madeFor.get(val);
  if (hit && hit.node === node && hit.subnet === subnet && hit.price === price && hit.upgradeTime === upgradeTime) return hit;
  const threshold = rewardUptimeThreshold(val.startTime, upgradeTime);
  const made: EntrySamples = { node, subnet, price, upgradeTime, threshold, group: { make: () => entrySeries(val, node, subnet, price, threshold) } };
  madeFor.set(val, made);
  return made;
}

/** A validator entry's series, the downtime budget aside. Pure. */
function entrySeries(val: ValidatorRecord, node: string, subnet: string, price: number | undefined, threshold: number): Sample[] {
  const out: Sample[] = [];
  const labels = { node, node_id: val.nodeId, subnet };
  // An L1 validator whose fee balance ran out stays in the set but is
  // inactive, reported with balance 0 (vms/platformvm/api/validator.go).
  out.push(sample('avax_validator_active', labels, isInactiveL1(val) ? 0 : 1));
  out.push(sample('avax_validator_weight', labels, Number(val.weight)));
  out.push(sample('avax_validator_start_timestamp_seconds', labels, val.startTime));
  if (val.endTime !== undefined) out.push(sample('avax_validator_end_timestamp_seconds', labels, val.endTime));
  if (val.uptimeRatio !== undefined) out.push(sample('avax_validator_uptime_ratio', labels, val.uptimeRatio));
  if (val.connected !== undefined) out.push(sample('avax_validator_connected', labels, bit(val.connected)));
  if (val.potentialReward !== undefined) out.push(sample('avax_validator_potential_reward_avax', labels, navaxToAvax(val.potentialReward)));
  if (val.delegatorWeight !== undefined) out.push(sample('avax_validator_delegator_weight_avax', labels, navaxToAvax(val.delegatorWeight)));
  if (val.delegatorCount !== undefined) out.push(sample('avax_validator_delegators', labels, val.delegatorCount));
  if (val.delegationFeeRatio !== undefined) out.push(sample('avax_validator_delegation_fee_ratio', labels, val.delegationFeeRatio));
  if (subnet === PRIMARY_NETWORK_ID) {
    // endTime is the end of the current cycle only: an auto-renewed
    // validation with a next period goes on (ACP-236 style, Helicon).
    out.push(sample('avax_validator_renews', labels, bit(val.nextPeriod !== undefined && val.nextPeriod > 0)));
    if (val.nextPeriod !== undefined) out.push(sample('avax_validator_next_period_seconds', labels, val.nextPeriod));
    if (val.autoCompoundRewardShares !== undefined)
      out.push(sample('avax_validator_auto_compound_reward_ratio', labels, val.autoCompoundRewardShares / 1_000_000));
    out.push(sample('avax_validator_reward_uptime_threshold_ratio', labels, threshold));
  }
  if (val.validationId !== undefined && val.balance !== undefined) {
    const l1 = { ...labels, validation_id: val.validationId };
    out.push(sample('avax_l1_validator_balance_avax', l1, navaxToAvax(val.balance)));
    // An inactive L1 validator (balance 0) pays no fee: it has no runway to run out of.
    const runway = balanceRunwaySeconds(val.balance, price);
    if (runway !== undefined) out.push(sample('avax_l1_validator_balance_runway_seconds', l1, runway));
  }
  return out;
}

/** Where the walk over a value puts its samples. */
interface Sink {
  /** An entry's series but its budget: the same group while the entry is unchanged. */
  entry(group: MadeSamples): void;
  /** An entry's downtime budget in seconds (comes right after its entry's series). */
  budget(nodeId: string, subnet: string, seconds: number): void;
  /** Any other series. */
  other(s: Sample): void;
}

/**
 * Validator sets → samples. Optional fields produce no sample when absent
 * (L1 validators have no end time, uptime or delegations); watched ids that
 * are not in the set get only `avax_validator_active 0`.
 */
export function collectValidators(v: ValidatorsValue, node: string): Sample[] {
  const out: Sample[] = [];
  walkValidators(v, node, {
    entry: (group) => {
      for (const x of group.make()) out.push(x);
    },
    budget: (nodeId, subnet, seconds) => out.push(budgetSample(node, nodeId, subnet, seconds)),
    other: (s) => out.push(s),
  });
  return out;
}

/**
 * collectValidators' samples in groups: each entry's series (but its
 * budget) are a group of their own, the same group object while the entry is
 * unchanged, so the exposition writes an unchanged validator's lines from
 * what it rendered before; the budgets, which move every round, are one
 * group at the end. The entries' and the budgets' groups make their samples
 * when the renderer asks, so that a mainnet set's are not kept besides its
 * lines. Rendered per metric in group order, this is the same
 * text as the flat list: the budget metric has no series in any other
 * group, and the other series keep their order.
 */
export function collectValidatorGroups(v: ValidatorsValue, node: string): SampleGroup[] {
  const groups: SampleGroup[] = [];
  let loose: Sample[] = [];
  // The budgets' figures, not their samples: made into samples when the renderer asks, so that nothing keeps those.
  const budgets = { nodeIds: [] as string[], subnets: [] as string[], seconds: [] as number[] };
  walkValidators(v, node, {
    entry: (group) => {
      if (loose.length > 0) groups.push(loose);
      loose = [];
      groups.push(group);
    },
    budget: (nodeId, subnet, seconds) => {
      budgets.nodeIds.push(nodeId);
      budgets.subnets.push(subnet);
      budgets.seconds.push(seconds);
    },
    other: (s) => loose.push(s),
  });
  if (loose.length > 0) groups.push(loose);
  if (budgets.seconds.length > 0) {
    groups.push({
      make: () => budgets.seconds.map((seconds, i) => budgetSample(node, budgets.nodeIds[i] as string, budgets.subnets[i] as string, seconds)),
    });
  }
  return groups;
}

/** An entry's downtime budget series. */
function budgetSample(node: string, nodeId: string, subnet: string, seconds: number): Sample {
  return sample('avax_validator_downtime_budget_seconds', { node, node_id: nodeId, subnet }, seconds);
}

/** Walks a validators value's series in the exposition's order, into `sink`. */
function walkValidators(v: ValidatorsValue, node: string, sink: Sink): void {
  const price = v.feePriceNavaxPerSecond;
  if (price !== undefined) sink.other(sample('avax_l1_validator_fee_price_avax_per_second', { node }, price / 1e9));
  for (const s of v.subnets) {
    const present = new Set<string>();
    const primary = s.subnetId === PRIMARY_NETWORK_ID;
    // An L1 can list the same node twice (legacy staker + L1 validator); the first wins.
    for (const val of firstOfEach(s.validators, (x) => x.nodeId)) {
      present.add(val.nodeId);
      const kept = entrySamples(val, node, s.subnetId, price, v.rewardUptimeUpgradeTime);
      sink.entry(kept.group);
      if (primary && v.observedAt !== undefined) {
        // The budget is the one series that moves with the clock: made anew each round, after the entry's others.
        const budget = downtimeBudgetSeconds(val, kept.threshold, v.observedAt);
        if (budget !== undefined) sink.budget(val.nodeId, s.subnetId, budget);
      }
    }
    sink.other(sample('avax_exporter_validators_omitted', { node, subnet: s.subnetId }, s.omitted));
    for (const id of s.watched) {
      if (!present.has(id)) sink.other(sample('avax_validator_active', { node, node_id: id, subnet: s.subnetId }, 0));
    }
  }
  const ow = v.operatorWatched;
  if (ow) {
    const watchedIds = new Set<string>();
    for (const id of ow.ids) {
      // The node's own id, watched by default, is the operator's validator only while it validates
      // (the primary network or a watched L1: a partial-sync L1 validator is no primary validator):
      // an RPC node that is not a validator has nothing to be alerted about.
      if (ow.ownIdByDefault && !v.subnets.some((x) => x.validators.some((r) => r.nodeId === id))) continue;
      watchedIds.add(id);
    }
    // The validators behind the validation ids the operator asked for (--watch.validation-id).
    const validations = new Set((v.validations ?? []).filter((l) => l.found).map((l) => l.validationId));
    for (const x of v.subnets) for (const r of x.validators) if (r.validationId !== undefined && validations.has(r.validationId)) watchedIds.add(r.nodeId);
    for (const id of watchedIds) sink.other(sample('avax_validator_watched', { node, node_id: id }, 1));
  }
  for (const x of collectValidationLookups(v.validations ?? [], node)) sink.other(x);
}
