/**
 * What AvalancheGo computes from a node's own state, computed the same way by
 * the fake node instead of being given: info.uptime from the node's peers and
 * the primary validator set, and the end of each staker's validation as the
 * P-Chain's time passes it (a validation that ends leaves the set; a renewing
 * one renews, or is removed when the network judges its uptime too low).
 * Cited against ava-labs/avalanchego master at 1cf1fc3d.
 */
import type { FakeNodeState, FakeUptime, FakeValidator } from './node-state.js';
import { REWARD_UPTIME_THRESHOLD, REWARD_UPTIME_THRESHOLD_ACP267 } from '../domain/rules.js';

/** Stake of a primary validator as the validator manager weighs it: its own stake plus its delegations. */
export function stakeOf(v: FakeValidator): bigint {
  return v.weight + v.delegators.reduce((sum, d) => sum + d.weight, 0n);
}

/** Unix seconds of an RFC3339 upgrade time; undefined when unparseable. */
function unixOf(rfc3339: string): number | undefined {
  const ms = Date.parse(rfc3339);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * The reward uptime requirement of a validation starting at `startTime`:
 * 80 %, or 90 % once Helicon (ACP-267) is active at its start
 * (network/network.go NodeUptime, vms/platformvm/block/executor/options.go).
 */
export function requirementAt(state: FakeNodeState, startTime: number): number {
  const helicon = unixOf(state.upgrades.heliconTime);
  return helicon !== undefined && startTime >= helicon ? REWARD_UPTIME_THRESHOLD_ACP267 : REWARD_UPTIME_THRESHOLD;
}

/**
 * info.uptime as network/network.go NodeUptime computes it: not a validator
 * (null) when the node has no primary-network weight; else the node's own
 * stake counts at 100 % (a node is always connected to itself), each
 * connected peer that is a validator counts its stake at the uptime it
 * observes of this node (info.peers `observedUptime`), and both percentages
 * divide by the TOTAL stake: stake the node is not connected to counts as 0 %.
 * `rewardingStakePercentage` adds the stake of the peers that see the node at
 * or above its requirement (80 %, 90 % for a validation started under
 * Helicon).
 */
export function nodeUptime(state: FakeNodeState): FakeUptime | null {
  const self = state.primaryValidators.find((v) => v.nodeId === state.nodeId);
  if (!self) return null;
  const stake = new Map(state.primaryValidators.map((v) => [v.nodeId, stakeOf(v)] as const));
  let total = 0n;
  for (const w of stake.values()) total += w;
  const mine = Number(stake.get(state.nodeId) ?? 0n);
  const requirement = requirementAt(state, self.startTime);
  let weighted = 100 * mine;
  let rewarding = mine;
  for (const p of state.peers) {
    const w = Number(stake.get(p.nodeId) ?? 0n);
    if (w === 0 || p.nodeId === state.nodeId) continue;
    weighted += p.observedUptime * w;
    if (p.observedUptime / 100 >= requirement) rewarding += w;
  }
  const t = Number(total);
  return { weightedAveragePercentage: Math.abs(weighted / t), rewardingStakePercentage: Math.abs((100 * rewarding) / t) };
}

/**
 * Whether the network commits the reward of validator `v` at the end of its
 * cycle. Each validator prefers the commit option when its own view of the
 * validator's uptime meets the requirement (vms/platformvm/block/executor/options.go
 * prefersCommit) and consensus follows the stake. For the node's own
 * validation the fake knows the view of each connected validator peer
 * (observedUptime) and its own (always ~100 %): the reward is committed when
 * more than half of that stake prefers it. For another validator it knows
 * only its own view (`uptime`).
 */
export function networkCommits(state: FakeNodeState, v: FakeValidator): boolean {
  const requirement = requirementAt(state, v.startTime);
  if (v.nodeId !== state.nodeId) return v.uptime / 100 >= requirement;
  const stake = new Map(state.primaryValidators.map((x) => [x.nodeId, stakeOf(x)] as const));
  let voting = Number(stakeOf(v));
  let commit = voting;
  for (const p of state.peers) {
    const w = Number(stake.get(p.nodeId) ?? 0n);
    // A peer that has not reported (0) has no view to vote with here.
    if (w === 0 || p.nodeId === state.nodeId || p.observedUptime === 0) continue;
    voting += w;
    if (p.observedUptime / 100 >= requirement) commit += w;
  }
  return commit * 2 > voting;
}

/**
 * Moves the P-Chain's time to `nowSec`: every staker whose end time passed is
 * rewarded and leaves the current set, as the P-Chain does when its time
 * reaches the end (vms/platformvm/txs/executor/proposal_tx_executor.go):
 * - a validation that does not renew, and a permissioned (PoA) subnet staker,
 *   leave the set (RewardValidatorTx; an expired subnet validator is removed
 *   at its end time);
 * - an auto-renewed validation (RewardAutoRenewedValidatorTx) with
 *   `nextPeriod` 0 leaves the set on both branches; with `nextPeriod` > 0 it
 *   starts its next cycle on the commit branch, and is REMOVED on the abort
 *   branch (its principal returned, this cycle's reward forfeited), which the
 *   network takes when its uptime is under the requirement
 *   ({@link networkCommits}).
 * L1 validators have no end time: only their validator manager removes them.
 */
export function advancePChain(state: FakeNodeState, nowSec: number): void {
  state.primaryValidators = state.primaryValidators.flatMap((v) => {
    let cur = v;
    while (cur.endTime <= nowSec) {
      const renew = cur.autoRenew;
      if (!renew || renew.nextPeriod <= 0 || !networkCommits(state, cur)) return [];
      cur = { ...cur, startTime: cur.endTime, endTime: cur.endTime + renew.nextPeriod };
    }
    return [cur];
  });
  for (const sub of Object.values(state.subnets)) {
    sub.validators = sub.validators.filter((v) => !('endTime' in v) || v.endTime > nowSec);
  }
}
