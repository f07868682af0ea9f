import { z } from 'zod';
import type { Deadline } from '../http/json-rpc.js';
import { finiteNumber, uintString } from '../http/wire.js';
import { defineSource, type SourceDef } from '../sources/source.js';
import { collectDataApiBlocks, collectDataApiNodeBlocks, collectDataApiValidators } from '../data-api/collect.js';
import { DataApiHttpError, isServiceNotFound } from './client.js';
import type { DataApiContext } from './context.js';
import { dataApiAddressBalancesSource } from './balances.js';
import { dataApiL1ValidatorsSource } from './l1-validators/index.js';
import { dataApiBlocksSection, dataApiValidatorsSection } from './status.js';
import { validatorsSource } from '../sources/validators/index.js';
import {
  DATA_API_CHAINS,
  VALIDATION_STATUSES,
  type ChainHead,
  type DataApiBlocksValue,
  type DataApiNodeBlocksValue,
  type DataApiValidation,
  type DataApiValidatorsValue,
  type PrimaryChain,
  type ProposerState,
  type ValidationStatus,
} from './value.js';
export type {
  DataApiValidation,
  DataApiValidatorsValue,
  DataApiNodeBlocksValue,
  DataApiBlocksValue,
  PrimaryChain,
  ProposerState,
  ValidationStatus,
  ChainHead,
} from './value.js';

// The context type is a leaf module (context.ts) so the sources in balances.ts and l1-validators/ can use it without importing this registry back.
export type { DataApiContext } from './context.js';

const percent = finiteNumber.refine((v) => v >= 0 && v <= 100, 'percentage outside 0..100').transform((v) => v / 100);
const seconds = z.number().int().nonnegative();

/**
 * An optional field read the way the service is lenient: `null`, a value of
 * another type or one out of range reads as absent (that field's series are
 * left out for that validation) instead of failing the item, the page and
 * the source. The service's own SDK types these fields as optional, and it
 * sends null for what it does not know (avalanche-sdk-typescript
 * `models/components/activevalidatordetails.ts`: `geolocation: ... | null`,
 * `avalancheGoVersion?`, `delegationCapacity?`, `amountDelegated?`); its
 * observers' figures (uptimePerformance, validatorHealth.*) are percentages the
 * spec bounds to 0..100 and that a rounding or a restart can push past it.
 */
function lenient<T extends z.ZodType>(schema: T) {
  return z
    .unknown()
    .transform((v): z.output<T> | undefined => {
      if (v === undefined || v === null) return undefined;
      const r = schema.safeParse(v);
      return r.success ? r.data : undefined;
    })
    .optional();
}

/** `potentialRewards` (active) and `rewards` (completed): nAVAX as decimal strings (the SDK's Rewards). */
const rewardsObject = z.object({ validationRewardAmount: lenient(uintString), delegationRewardAmount: lenient(uintString) });

/**
 * One item of `GET /v1/networks/{network}/validators/{nodeId}`: a oneOf by
 * `validationStatus` in the spec. Only what every status has is required, and
 * checked strictly (a validation without a start, an end or a stake would be
 * made up). The fields the real service adds (uptime performance, health,
 * version, delegation capacity, potential rewards; a completed validation's
 * rewards, a removed one's removal time) are read leniently: see
 * {@link lenient}. Unknown fields are ignored.
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
export const dataApiValidatorsSource = defineSource<DataApiValidatorsValue, DataApiContext>({
  name: 'data_api_validators',
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

/**
 * A block of `GET .../blocks` (latest, or proposed by a node): only the
 * height, the time, the proposer and the P-Chain's L1 figures (active L1
 * validators, accrued fees) are read; everything else (hashes, transactions,
 * fields the spec does not list) is ignored.
 */
export const blockItem = z.object({
  blockNumber: uintString,
  blockTimestamp: seconds,
  // Lenient as the validators' optional fields: a null proposer is "not known", not a broken page.
  proposerDetails: lenient(z.object({ proposerNodeId: lenient(z.string().min(1)) })),
  // P-Chain blocks only, optional in the spec (PrimaryNetworkBlock): absent, null or malformed reads as unknown.
  activeL1Validators: lenient(z.number().int().nonnegative()),
  /** nAVAX. */
  l1ValidatorsAccruedFees: lenient(z.union([z.number().int().nonnegative(), uintString.transform((v) => Number(v))])),
});
/** A block as read from a blocks listing. */
export type BlockItem = z.output<typeof blockItem>;

/**
 * Chains whose proposers are followed: P, X and C. Every primary chain runs
 * Snowman++ (the proposervm wraps the P-, C- and, since Cortina, X-Chain VM),
 * so each has proposers; the service's node-blocks path takes any blockchain
 * id. The P-Chain is the one the service is known to serve; X and C are read
 * where it answers (see {@link proposedBlocks}).
 */
const PROPOSER_CHAINS = DATA_API_CHAINS;

/** Whether a listed block is newer than what a proposer state already counted. */
function isNew(prev: ProposerState, b: BlockItem): boolean {
  return prev.last !== undefined ? b.blockNumber > prev.last.height : b.blockTimestamp >= prev.sinceSeconds;
}

/**
 * Blocks a node proposed on one chain since `prev`; undefined when the service
 * does not serve that chain (a 4xx other than 429 for X or C, as for the chain
 * heads): the chain is then left out, not counted as a drought.
 */
async function proposedBlocks(
  ctx: DataApiContext,
  nodeId: string,
  chain: PrimaryChain,
  alias: string,
  prev: ProposerState | undefined,
): Promise<BlockItem[] | undefined> {
  const path = `/v1/networks/${ctx.network}/blockchains/${alias}/nodes/${encodeURIComponent(nodeId)}/blocks`;
  try {
    if (!prev) {
      // The baseline needs only the newest proposed block.
      return (await ctx.client.get(path, { pageSize: 1 }, z.object({ blocks: z.array(blockItem) }), ctx.deadline)).blocks;
    }
    // Newest first, and only since the last block seen: one short page in the usual case.
    const listing = await ctx.client.list(path, { startTimestamp: prev.last?.timestampSeconds ?? prev.sinceSeconds }, 'blocks', blockItem, ctx.deadline, {
      maxPages: ctx.maxPages,
      enough: (items) => items.some((b) => !isNew(prev, b)),
    });
    return listing.items;
  } catch (err) {
    if (chain !== 'P' && isNotServed(err)) return undefined;
    if (isServiceNotFound(err)) return [];
    throw err;
  }
}

/** A 4xx other than 429 (rate limited): the service does not serve that path. */
function isNotServed(err: unknown): boolean {
  return err instanceof DataApiHttpError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429;
}

/**
 * The next state of one proposer from the blocks just listed. Pure. Without a
 * previous state this is the baseline: what the node proposed before it was
 * watched is history, not an increase, so the count starts at 0.
 */
export function advanceProposer(
  prev: ProposerState | undefined,
  nodeId: string,
  chain: PrimaryChain,
  blocks: readonly BlockItem[],
  nowSeconds: number,
): ProposerState {
  // The endpoint lists the node's own blocks; one naming another proposer is not counted.
  const mine = blocks.filter((b) => b.proposerDetails?.proposerNodeId === undefined || b.proposerDetails.proposerNodeId === nodeId);
  const newest = (list: readonly BlockItem[], from: ProposerState['last']) =>
    list.reduce<ProposerState['last']>(
      (a, b) => (a === undefined || b.blockNumber > a.height ? { height: b.blockNumber, timestampSeconds: b.blockTimestamp } : a),
      from,
    );
  if (!prev) return { nodeId, chain, count: 0, last: newest(mine, undefined), sinceSeconds: nowSeconds };
  const fresh = new Map<bigint, BlockItem>();
  for (const b of mine) if (isNew(prev, b)) fresh.set(b.blockNumber, b);
  return { ...prev, count: prev.count + fresh.size, last: newest([...fresh.values()], prev.last) };
}

/**
 * Blocks each watched node proposed on the P-, X- and C-Chain (X and C where
 * the service serves them). The first poll of a node
 * id sets the baseline (its newest proposed block) and counts nothing; later
 * polls list only blocks since the last one seen (`startTimestamp`) and add
 * the new heights to the count. The count lives in the value, so it survives
 * failed polls; if the value expires (the service was unreachable for longer
 * than the max age), counting starts again from a new baseline, which
 * Prometheus reads as a counter reset.
 */
export const dataApiNodeBlocksSource = defineSource<DataApiNodeBlocksValue, DataApiContext>({
  name: 'data_api_node_blocks',
  // Shown in the validators' section; its own part is only the staleness note while it fails.
  status: { order: 45 },
  async poll(ctx, previous) {
    const prevByKey = new Map<string, ProposerState>();
    // A value about another network is not a baseline for this one.
    if (previous?.network === ctx.network) for (const p of previous.proposers) prevByKey.set(`${p.chain}/${p.nodeId}`, p);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const jobs = ctx.nodeIds.flatMap((nodeId) =>
      PROPOSER_CHAINS.map(async ({ chain, alias }) => {
        const prev = prevByKey.get(`${chain}/${nodeId}`);
        const blocks = await proposedBlocks(ctx, nodeId, chain, alias, prev);
        return blocks && advanceProposer(prev, nodeId, chain, blocks, nowSeconds);
      }),
    );
    return { network: ctx.network, proposers: (await Promise.all(jobs)).filter((p): p is ProposerState => p !== undefined) };
  },
  collect: collectDataApiNodeBlocks,
});

const latestBlocks = z.object({ blocks: z.array(blockItem) });

async function headOf(ctx: DataApiContext, chain: PrimaryChain, alias: string, deadline: Deadline): Promise<ChainHead | undefined> {
  const path = `/v1/networks/${ctx.network}/blockchains/${alias}/blocks`;
  try {
    const r = await ctx.client.get(path, { pageSize: 1 }, latestBlocks, deadline);
    const newest = r.blocks[0];
    if (!newest) return undefined;
    return {
      chain,
      height: newest.blockNumber,
      timestampSeconds: newest.blockTimestamp,
      ...(newest.activeL1Validators !== undefined ? { activeL1Validators: newest.activeL1Validators } : {}),
      ...(newest.l1ValidatorsAccruedFees !== undefined ? { l1ValidatorsAccruedFeesNavax: newest.l1ValidatorsAccruedFees } : {}),
    };
  } catch (err) {
    // The P-Chain is the point of this source; X and C are read "where the
    // service answers": a 4xx (other than 429) means it does not serve them.
    if (chain !== 'P' && isNotServed(err)) return undefined;
    throw err;
  }
}

/** The latest block of the P-, X- and C-Chain as the service sees them: an independent view of each chain's head. */
export const dataApiBlocksSource = defineSource<DataApiBlocksValue, DataApiContext>({
  name: 'data_api_blocks',
  status: { order: 50, section: (v, kit, view) => dataApiBlocksSection(v, kit, view.nowMs) },
  async poll(ctx) {
    const heads = await Promise.all(DATA_API_CHAINS.map(({ chain, alias }) => headOf(ctx, chain, alias, ctx.deadline)));
    return { network: ctx.network, heads: heads.filter((h): h is ChainHead => h !== undefined) };
  },
  collect: collectDataApiBlocks,
});

/** The Data API sources, in the order a round runs them. */
export const DATA_API_SOURCES: readonly SourceDef<unknown, DataApiContext>[] = [
  dataApiValidatorsSource,
  dataApiNodeBlocksSource,
  dataApiBlocksSource,
  dataApiAddressBalancesSource,
  // Last: when a round's deadline leaves no room under the rate limit, the newest source waits, not the older ones.
  dataApiL1ValidatorsSource,
] as SourceDef<unknown, DataApiContext>[];
