import { z } from 'zod';
import { hexQuantity, uintString } from '../http/wire.js';
import { defineSource, type SourceDef } from './source.js';
import { collectChainHeight } from '../collectors/chain-height.js';

/** Last accepted height of one chain. */
export interface ChainHeightValue {
  chain: string;
  height: bigint;
}

const heightResult = z.object({ height: uintString });

function heightSource(name: string, chain: string, path: string, method: string, schema: z.ZodType<bigint>): SourceDef<ChainHeightValue> {
  return defineSource<ChainHeightValue>({
    name,
    async poll(ctx) {
      const params = method.startsWith('eth_') ? [] : {};
      return { chain, height: await ctx.rpc.call(path, method, params, schema, ctx.deadline) };
    },
    collect: collectChainHeight,
  });
}

/**
 * One source per chain, so a chain that is still bootstrapping (its API
 * answers 503) does not hide the heights of the others.
 */
export const pChainSource = heightSource('p_chain', 'P', '/ext/bc/P', 'platform.getHeight', heightResult.transform((r) => r.height));
/** X-Chain height (avm.getHeight). */
export const xChainSource = heightSource('x_chain', 'X', '/ext/bc/X', 'avm.getHeight', heightResult.transform((r) => r.height));
/** C-Chain height (eth_blockNumber on the geth-style endpoint). */
export const cChainSource = heightSource('c_chain', 'C', '/ext/bc/C/rpc', 'eth_blockNumber', hexQuantity);
