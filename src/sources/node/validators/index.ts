import { z } from 'zod';
import { percentStringAsRatio, uintString } from '../../../http/wire.js';
import { defineNodeSource, type PollContext } from '../source.js';
import { RpcError, type KnownItem } from '../../../http/json-rpc.js';
import { collectValidatorGroups, collectValidators } from './collect.js';
import { validatorChanges } from './changes.js';
import { validatorsStatus } from './status.js';
import { readValidatorEntry } from './validator-entry.js';
import { lookupFailureOf, NOT_FOUND } from './validation-lookup.js';
import type { FailureReason } from '../../../http/errors.js';
import type { ValidatorRecord, SubnetValidators, ValidatorsValue } from './value.js';
export type { ValidatorRecord, SubnetValidators, ValidatorsValue } from './value.js';

/** The primary network's subnet id (also the P-Chain's blockchain id). */
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
export { PRIMARY_NETWORK_ID };

/**
 * One entry of platform.getCurrentValidators. Primary validators, legacy
 * subnet stakers and L1 validators share this list with different optional
 * keys; every number is a decimal string and every percentage a "99.8712"
 * string, which the wire helpers check and convert.
 */
export const validatorSchema = z.object({
  nodeID: z.string().min(1),
  weight: uintString,
  startTime: uintString,
  endTime: uintString.optional(),
  txID: z.string().optional(),
  validationID: z.string().optional(),
  balance: uintString.optional(),
  potentialReward: uintString.optional(),
  delegationFee: percentStringAsRatio.optional(),
  uptime: percentStringAsRatio.optional(),
  connected: z.boolean().optional(),
  delegatorCount: uintString.optional(),
  delegatorWeight: uintString.optional(),
  // Auto-renewed validations only (vms/platformvm/api/validator.go
  // AutoRenewedConfig, activated by Helicon): seconds of the next cycle (0:
  // the validation stops at this cycle's end) and the share of rewards
  // restaked, in millionths (reward.PercentDenominator). Both json.Uint
  // strings. `validatorAuthority` (an owner) is not read.
  nextPeriod: uintString.optional(),
  autoCompoundRewardShares: uintString.optional(),
});
/** platform.getCurrentValidators result. */
export const validatorsResult = z.object({ validators: z.array(validatorSchema) });

/**
 * platform.getL1Validator result: an L1 entry of getCurrentValidators plus
 * its subnet and the P-Chain height (other keys are not read).
 */
export const l1ValidatorResult = z.object({
  nodeID: z.string().min(1),
  validationID: z.string().min(1),
  subnetID: z.string().min(1),
  weight: uintString,
  startTime: uintString,
  balance: uintString,
});

/**
 * Looks up each watched validation id: the record, or undefined when the
 * P-Chain does not know it (the validation ended), or the failure when the
 * node's answer about that one id was an error or invalid (the other ids are
 * not blinded by it). A failure of the node itself fails the poll, as for
 * getCurrentValidators (lookupFailureOf).
 */
async function lookUpValidations(
  ctx: PollContext,
  ids: readonly string[],
): Promise<{ id: string; subnetId?: string; record?: ValidatorRecord; failure?: FailureReason }[]> {
  return Promise.all(
    ids.map(async (id) => {
      try {
        const r = await ctx.rpc.call('/ext/bc/P', 'platform.getL1Validator', { validationID: id }, l1ValidatorResult, ctx.deadline);
        const record: ValidatorRecord = {
          nodeId: r.nodeID,
          weight: r.weight,
          startTime: Number(r.startTime),
          endTime: undefined,
          validationId: r.validationID,
          balance: r.balance,
          potentialReward: undefined,
          delegationFeeRatio: undefined,
          uptimeRatio: undefined,
          connected: undefined,
          delegatorCount: undefined,
          delegatorWeight: undefined,
          nextPeriod: undefined,
          autoCompoundRewardShares: undefined,
        };
        return { id, subnetId: r.subnetID, record };
      } catch (err) {
        if (err instanceof RpcError && NOT_FOUND.test(err.rpcMessage)) return { id };
        const failure = lookupFailureOf(err);
        if (failure === undefined) throw err;
        return { id, failure };
      }
    }),
  );
}

/**
 * Adds looked-up L1 validators to the sets: to their L1's set when it is
 * watched and does not list them already (or left them out under the series
 * cap: a watched validation is always exported), else to a set of their own
 * for that L1. Pure.
 */
export function mergeValidations(sets: SubnetValidators[], found: readonly { subnetId?: string; record?: ValidatorRecord }[]): SubnetValidators[] {
  for (const f of found) {
    if (!f.subnetId || !f.record) continue;
    let set = sets.find((s) => s.subnetId === f.subnetId);
    if (!set) {
      set = { subnetId: f.subnetId, validators: [], watched: [], omitted: 0 };
      sets.push(set);
    }
    if (!set.validators.some((v) => v.validationId === f.record?.validationId)) set.validators.push(f.record);
  }
  return sets;
}

/** platform.getValidatorFeeState result: `excess` and `price` are plain JSON numbers (unlike most P-Chain replies). */
export const validatorFeeStateResult = z.object({
  excess: z.number().int().nonnegative(),
  price: z.number().int().nonnegative(),
  timestamp: z.string(),
});

/** Converts one validated validator entry. Pure. */
export function toRecord(v: z.output<typeof validatorSchema>): ValidatorRecord {
  return {
    nodeId: v.nodeID,
    weight: v.weight,
    startTime: Number(v.startTime),
    endTime: v.endTime === undefined ? undefined : Number(v.endTime),
    validationId: v.validationID,
    balance: v.balance,
    potentialReward: v.potentialReward,
    delegationFeeRatio: v.delegationFee,
    uptimeRatio: v.uptime,
    connected: v.connected,
    delegatorCount: v.delegatorCount === undefined ? undefined : Number(v.delegatorCount),
    delegatorWeight: v.delegatorWeight,
    nextPeriod: v.nextPeriod === undefined ? undefined : Number(v.nextPeriod),
    autoCompoundRewardShares: v.autoCompoundRewardShares === undefined ? undefined : Number(v.autoCompoundRewardShares),
  };
}

/**
 * The entries each value was read from, by call (params as JSON) and by their
 * bytes: the next round reuses the records of entries that did not change
 * (most of a mainnet set from one round to the next), so they are neither
 * parsed again nor new objects, and their series are not formatted again.
 * Goes with its value.
 */
const entriesOf = new WeakMap<ValidatorsValue, Map<string, Map<string, KnownItem<ValidatorRecord>>>>();

async function watchedIds(ctx: PollContext): Promise<string[]> {
  if (ctx.node.watch.nodeIds.length > 0) return ctx.node.watch.nodeIds;
  if (ctx.known.nodeId) return [ctx.known.nodeId];
  const r = await ctx.rpc.call('/ext/info', 'info.getNodeID', {}, z.object({ nodeID: z.string().min(1) }), ctx.deadline);
  return [r.nodeID];
}

/**
 * Applies the series cap: past `max` validators, the watched ones are kept
 * first, then the heaviest; the rest are counted, not exported, so one huge
 * set cannot blow up every scrape and the Prometheus behind it. Pure.
 */
export function capValidators(subnetId: string, validators: ValidatorRecord[], watched: string[], max: number): SubnetValidators {
  if (validators.length <= max) return { subnetId, validators, watched, omitted: 0 };
  const isWatched = new Set(watched);
  const ranked = [...validators].sort((a, b) => {
    const w = Number(isWatched.has(b.nodeId)) - Number(isWatched.has(a.nodeId));
    if (w !== 0) return w;
    return a.weight === b.weight ? (a.nodeId < b.nodeId ? -1 : 1) : a.weight > b.weight ? -1 : 1;
  });
  return { subnetId, validators: ranked.slice(0, max), watched, omitted: validators.length - max };
}

/**
 * platform.getCurrentValidators: the primary network for the watched node ids
 * (or every validator with --watch.all-validators, fetched once per round),
 * and every validator of each watched subnet / L1; with watched subnets also
 * platform.getValidatorFeeState, so the L1 balance runway is computed from one
 * value. The poll time and the reward-uptime upgrade time (learned by the info
 * source) go into the value so the collector stays pure.
 */
export const validatorsSource = defineNodeSource<ValidatorsValue>({
  name: 'validators',
  rpcMethods: ['info.getNodeID', 'platform.getCurrentValidators', 'platform.getValidatorFeeState', 'platform.getL1Validator'],
  changes: validatorChanges,
  status: validatorsStatus,
  async poll(ctx, previous) {
    const watched = await watchedIds(ctx);
    const before = previous ? entriesOf.get(previous) : undefined;
    const entries = new Map<string, Map<string, KnownItem<ValidatorRecord>>>();
    // Items parsed, checked and converted a batch at a time: a mainnet set is several MB. Each
    // entry is read by the hand-written reader first (zod's cost per entry dominates a round's
    // CPU); whatever it is unsure of goes through the schema, which words any rejection. An
    // entry byte for byte as in the previous round is the previous round's record.
    const call = async (params: Record<string, unknown>) => {
      const at = JSON.stringify(params);
      const remember = new Map<string, KnownItem<ValidatorRecord>>();
      entries.set(at, remember);
      const known = before?.get(at);
      const spec = { key: 'validators', item: validatorSchema, map: toRecord, fast: readValidatorEntry, remember, ...(known ? { known } : {}) };
      return (await ctx.rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', params, spec, ctx.deadline)).items;
    };
    const observedAt = Math.floor(Date.now() / 1000);
    const primaryParams = ctx.node.watch.allValidators ? {} : { nodeIDs: watched };
    const validationIds = ctx.node.watch.validationIds ?? [];
    const watchesSubnets = ctx.node.watch.subnetIds.length > 0 || validationIds.length > 0;
    const [found, [feeState, primary, ...subnets]] = await Promise.all([
      lookUpValidations(ctx, validationIds),
      Promise.all([
        // The fee price only matters for L1 balances, so nodes that watch no subnet or validation are not asked.
        watchesSubnets ? ctx.rpc.call('/ext/bc/P', 'platform.getValidatorFeeState', {}, validatorFeeStateResult, ctx.deadline) : undefined,
        call(primaryParams),
        ...ctx.node.watch.subnetIds.map((subnetID) => call({ subnetID })),
      ]),
    ]);
    const max = ctx.node.watch.maxValidators;
    const out: SubnetValidators[] = [capValidators(PRIMARY_NETWORK_ID, primary, watched, max)];
    // The watched ids are watched on each watched subnet too, so an L1 validation its validator
    // manager removed, or a permissioned (PoA) subnet validator past its end time, reads
    // `avax_validator_active 0` there instead of simply disappearing (AvaxValidatorLeftSet).
    ctx.node.watch.subnetIds.forEach((subnetId, i) => {
      out.push(capValidators(subnetId, subnets[i] ?? [], watched, max));
    });
    mergeValidations(out, found);
    const value: ValidatorsValue = { subnets: out, observedAt, operatorWatched: { ids: watched, ownIdByDefault: ctx.node.watch.nodeIds.length === 0 } };
    if (found.length > 0)
      value.validations = found.map((f) =>
        f.failure ? { validationId: f.id, found: undefined, failure: f.failure } : { validationId: f.id, found: f.record !== undefined },
      );
    if (ctx.known.rewardUptimeUpgradeTime !== undefined) value.rewardUptimeUpgradeTime = ctx.known.rewardUptimeUpgradeTime;
    if (feeState) value.feePriceNavaxPerSecond = feeState.price;
    entriesOf.set(value, entries);
    return value;
  },
  collect: collectValidators,
  collectGroups: collectValidatorGroups,
});
