import { z } from 'zod';
import { isServiceNotFound } from '../../../data-api/client.js';
import { defineDataApiSource, type DataApiContext } from '../source.js';
import { blockItem, isNotServed, type BlockItem } from '../common/schemas.js';
import { DATA_API_CHAINS, type PrimaryChain } from '../common/chains.js';
import { collectDataApiNodeBlocks } from './collect.js';
import { advanceProposer, isNew } from './proposer.js';
import type { DataApiNodeBlocksValue, ProposerState } from './value.js';

/**
 * Chains whose proposers are followed: P, X and C. Every primary chain runs
 * Snowman++ (the proposervm wraps the P-, C- and, since Cortina, X-Chain VM),
 * so each has proposers; the service's node-blocks path takes any blockchain
 * id. The P-Chain is the one the service is known to serve; X and C are read
 * where it answers (see {@link proposedBlocks}).
 */
const PROPOSER_CHAINS = DATA_API_CHAINS;

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
export const dataApiNodeBlocksSource = defineDataApiSource<DataApiNodeBlocksValue>({
  name: 'data_api_node_blocks',
  requestsPerPoll: (asked) => asked.nodeIds * PROPOSER_CHAINS.length,
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
