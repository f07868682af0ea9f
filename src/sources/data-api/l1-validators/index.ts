import { z } from 'zod';
import { uintString } from '../../../http/wire.js';
import { isServiceNotFound } from '../../../data-api/client.js';
import { defineDataApiSource, type DataApiContext } from '../source.js';
import { collectDataApiL1Validators } from './collect.js';
import type { DataApiL1Validation, DataApiL1ValidatorsValue } from './value.js';
export type { DataApiL1Validation, DataApiL1ValidatorsValue } from './value.js';

/**
 * A whole number the spec types as a JSON number (`weight`,
 * `remainingBalance`): a decimal string is read too, as the node's own
 * platform API sends these figures (the two interfaces disagree; accept both).
 */
const wholeNumber = z.union([z.number().int().nonnegative().refine(Number.isSafeInteger, 'not a safe integer'), uintString.transform((v) => Number(v))]);

/**
 * One item of `GET /v1/networks/{network}/l1Validators` (the spec's
 * L1ValidatorDetailsFull). The ids, weight and balance are required; the
 * creation time is read leniently (absent or null reads as unknown); the BLS
 * credentials and owners are ignored.
 */
export const l1ValidatorItem = z.object({
  validationId: z.string().min(1),
  nodeId: z.string().min(1),
  subnetId: z.string().min(1),
  weight: wholeNumber,
  remainingBalance: wholeNumber,
  creationTimestamp: z
    .unknown()
    .transform((v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined))
    .optional(),
});

/** Converts one validated item. Pure. */
export function toL1Validation(v: z.output<typeof l1ValidatorItem>): DataApiL1Validation {
  return {
    validationId: v.validationId,
    nodeId: v.nodeId,
    subnetId: v.subnetId,
    weight: v.weight,
    remainingBalanceNavax: v.remainingBalance,
    creationTimestamp: v.creationTimestamp,
    active: v.weight !== 0 && v.remainingBalance !== 0,
  };
}

/** Every L1 validation of one node, inactive ones included: every page up to the bound. */
async function l1ValidationsOf(ctx: DataApiContext, nodeId: string): Promise<DataApiL1Validation[]> {
  const path = `/v1/networks/${ctx.network}/l1Validators`;
  try {
    const listing = await ctx.client.list(path, { nodeId, includeInactiveL1Validators: 'true' }, 'validators', l1ValidatorItem, ctx.deadline, {
      maxPages: ctx.maxPages,
    });
    // The filter is the service's; an item about another node is not this node's.
    return listing.items.filter((v) => v.nodeId === nodeId).map(toL1Validation);
  } catch (err) {
    if (isServiceNotFound(err)) return [];
    throw err;
  }
}

/**
 * The L1 validations of each watched node id as the Data API sees them
 * (balance, weight, active), independent of the node's own P-Chain API, which
 * answers 503 while it bootstraps. One listing per node id per round.
 */
export const dataApiL1ValidatorsSource = defineDataApiSource<DataApiL1ValidatorsValue>({
  name: 'data_api_l1_validators',
  requestsPerPoll: (asked) => asked.nodeIds,
  status: { order: 42 },
  async poll(ctx) {
    const nodes = await Promise.all(ctx.nodeIds.map(async (nodeId) => ({ nodeId, validations: await l1ValidationsOf(ctx, nodeId) })));
    return { network: ctx.network, nodes };
  },
  collect: collectDataApiL1Validators,
});
