import { z } from 'zod';
import type { Deadline } from '../../../http/json-rpc.js';
import { defineDataApiSource, type DataApiContext } from '../source.js';
import { blockItem, isNotServed } from '../common/schemas.js';
import { DATA_API_CHAINS, type PrimaryChain } from '../common/chains.js';
import { collectDataApiBlocks } from './collect.js';
import { dataApiBlocksSection } from './status.js';
import type { ChainHead, DataApiBlocksValue } from './value.js';

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
export const dataApiBlocksSource = defineDataApiSource<DataApiBlocksValue>({
  name: 'data_api_blocks',
  requestsPerPoll: () => DATA_API_CHAINS.length,
  status: { order: 50, section: (v, kit, view) => dataApiBlocksSection(v, kit, view.nowMs) },
  async poll(ctx) {
    const heads = await Promise.all(DATA_API_CHAINS.map(({ chain, alias }) => headOf(ctx, chain, alias, ctx.deadline)));
    return { network: ctx.network, heads: heads.filter((h): h is ChainHead => h !== undefined) };
  },
  collect: collectDataApiBlocks,
});
