import { z } from 'zod';
import { finiteNumber, uintString } from '../../../http/wire.js';
import { isServiceNotFound } from '../../../data-api/client.js';
import { defineDataApiSource, type DataApiContext } from '../source.js';
import { lenient, seconds } from '../common/schemas.js';
import type { PrimaryChain } from '../common/chains.js';
import { validatorsSource } from '../../node/validators/index.js';
import { dataApiNodeBlocksSource } from '../node-blocks/index.js';
import { collectDataApiValidators } from './collect.js';
import { dataApiValidatorsSection } from './status.js';
import { VALIDATION_STATUSES, type DataApiValidation, type DataApiValidatorsValue, type ValidationStatus } from './value.js';

const percent = finiteNumber.refine((v) => v >= 0 && v <= 100, 'percentage outside 0..100').transform((v) => v / 100);
/** `potentialRewards` (active) and `rewards` (completed): nAVAX as decimal strings (the SDK's Rewards). */
const rewardsObject = z.object({ validationRewardAmount: lenient(uintString), delegationRewardAmount: lenient(uintString) });

/**
 * One item of `GET /v1/networks/{network}/validators/{nodeId}`: a oneOf by
 * `validationStatus` in the spec. Only what every status has is required, and
 * checked strictly (a validation without a start, an end or a stake would be
 * made up). The fields the real service adds (uptime performance, health,
 * version, delegation capacity, potential rewards; a completed validation's
 * rewards, a removed one's removal time) are read leniently: see
 * `lenient` (../common/schemas.ts). Unknown fields are ignored.
 */
export const validationItem = z.object({
  txHash: z.string(),
  nodeId: z.string(),
  subnetId: z.string().min(1),
  validationStatus: z.string(),
  amountStaked: uintString,
  startTimestamp: seconds,
  endTimestamp: seconds,
  amountDelegated: lenient(uintString),
  delegationCapacity: lenient(uintString),
  delegatorCount: lenient(z.number().int().nonnegative()),
  uptimePerformance: lenient(percent),
  avalancheGoVersion: lenient(z.string().min(1)),
  potentialRewards: lenient(rewardsObject),
  /** Completed validations: what was paid; a validation reward of 0 means it was denied (uptime under the requirement). */
  rewards: lenient(rewardsObject),
  /** Removed validations (permissioned subnets): when the removal transaction was accepted. */
  removeTimestamp: lenient(seconds),
  validatorHealth: lenient(
    z.object({
      reachabilityPercent: lenient(percent),
      benchedPChainRequestsPercent: lenient(percent),
      benchedXChainRequestsPercent: lenient(percent),
      benchedCChainRequestsPercent: lenient(percent),
    }),
  ),
});

function isValidationStatus(s: string): s is ValidationStatus {
  return (VALIDATION_STATUSES as readonly string[]).includes(s);
}

/**
 * A listed item: undefined for an item whose `validationStatus` this exporter
 * does not know (a status added to the service's enum later is ignored, item
 * by item, whatever else that item holds or lacks); else {@link validationItem},
 * whose problems fail the answer as usual.
 */
export const validationListItem = z.unknown().transform((v, ctx): z.output<typeof validationItem> | undefined => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const status = (v as { validationStatus?: unknown }).validationStatus;
    if (typeof status === 'string' && !isValidationStatus(status)) return undefined;
  }
  const r = validationItem.safeParse(v);
  if (r.success) return r.data;
  for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

/** Converts one validated item; undefined for a status the exporter does not know. Pure. */
export function toValidation(v: z.output<typeof validationItem>): DataApiValidation | undefined {
  const status = v.validationStatus;
  if (!isValidationStatus(status)) return undefined;
  const h = v.validatorHealth;
  const benched: Partial<Record<PrimaryChain, number>> = {};
  if (h?.benchedPChainRequestsPercent !== undefined) benched.P = h.benchedPChainRequestsPercent;
  if (h?.benchedXChainRequestsPercent !== undefined) benched.X = h.benchedXChainRequestsPercent;
  if (h?.benchedCChainRequestsPercent !== undefined) benched.C = h.benchedCChainRequestsPercent;
  return {
    txHash: v.txHash,
    subnetId: v.subnetId,
    status,
    startTimestamp: v.startTimestamp,
    endTimestamp: v.endTimestamp,
    amountStaked: v.amountStaked,
    amountDelegated: v.amountDelegated,
    delegationCapacity: v.delegationCapacity,
    delegatorCount: v.delegatorCount,
    uptimeRatio: v.uptimePerformance,
    version: v.avalancheGoVersion,
    potentialValidationReward: v.potentialRewards?.validationRewardAmount,
    potentialDelegationReward: v.potentialRewards?.delegationRewardAmount,
    reachabilityRatio: h?.reachabilityPercent,
    benchedRatio: h && Object.keys(benched).length > 0 ? benched : undefined,
    ...(status === 'completed' ? { validationReward: v.rewards?.validationRewardAmount, delegationReward: v.rewards?.delegationRewardAmount } : {}),
    ...(status === 'removed' ? { removeTimestamp: v.removeTimestamp } : {}),
  };
}

/** Validations of one node: every page up to the bound. A 404 from the service itself means it knows no validation of that node. */
async function validationsOf(ctx: DataApiContext, nodeId: string): Promise<DataApiValidation[]> {
  const path = `/v1/networks/${ctx.network}/validators/${encodeURIComponent(nodeId)}`;
  try {
    const listing = await ctx.client.list(path, { sortOrder: 'desc' }, 'validators', validationListItem, ctx.deadline, { maxPages: ctx.maxPages });
    return listing.items.flatMap((v) => (v !== undefined && v.nodeId === nodeId ? (toValidation(v) ?? []) : []));
  } catch (err) {
    if (isServiceNotFound(err)) return [];
    throw err;
  }
}

/** Every validation (active, pending, completed, removed) of each watched node id, across subnets. */
export const dataApiValidatorsSource = defineDataApiSource<DataApiValidatorsValue>({
  name: 'data_api_validators',
  requestsPerPoll: (asked) => asked.nodeIds,
  status: {
    order: 40,
    section: (v, kit, view) =>
      dataApiValidatorsSection(
        v,
        view.valueOf(dataApiNodeBlocksSource)?.proposers ?? [],
        view.anyValueOf(validatorsSource)?.rewardUptimeUpgradeTime,
        kit,
        view.nowMs,
      ),
  },
  async poll(ctx) {
    const nodes = await Promise.all(ctx.nodeIds.map(async (nodeId) => ({ nodeId, validations: await validationsOf(ctx, nodeId) })));
    return { network: ctx.network, nodes };
  },
  collect: collectDataApiValidators,
});
