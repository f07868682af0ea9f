import { z } from 'zod';
import { hexQuantity, uintString } from '../../../http/wire.js';
import { defineNodeSource, type NodeSourceDef } from '../source.js';
import { partialSyncOf } from '../health/index.js';
import { collectChainHeight } from './collect.js';
import type { ChainHeightValue } from './value.js';
export type { ChainHeightValue } from './value.js';

const heightResult = z.object({ height: uintString });

/**
 * A chain height source. `primaryOnly`: a chain a partial-sync node does not
 * run (X, C): such a node answers 404 on the chain's path, since the chain was
 * never created (vms/platformvm/vm.go initBlockchains), so the source asks its
 * health report first and does not call the chain then.
 */
function heightSource(
  name: string,
  chain: string,
  path: string,
  method: string,
  schema: z.ZodType<bigint>,
  primaryOnly: boolean,
): NodeSourceDef<ChainHeightValue> {
  return defineNodeSource<ChainHeightValue>({
    name,
    async poll(ctx, previous) {
      if (primaryOnly && (await partialSyncOf(ctx, previous?.partialSync ?? false))) return { chain, height: undefined, partialSync: true };
      const params = method.startsWith('eth_') ? [] : {};
      return { chain, height: await ctx.rpc.call(path, method, params, schema, ctx.deadline) };
    },
    rpcMethods: [method],
    collect: collectChainHeight,
  });
}

/**
 * One source per chain, so a chain that is still bootstrapping (its API
 * answers 503) does not hide the heights of the others.
 */
export const pChainSource = heightSource(
  'p_chain',
  'P',
  '/ext/bc/P',
  'platform.getHeight',
  heightResult.transform((r) => r.height),
  false,
);
/** X-Chain height (avm.getHeight). */
export const xChainSource = heightSource(
  'x_chain',
  'X',
  '/ext/bc/X',
  'avm.getHeight',
  heightResult.transform((r) => r.height),
  true,
);
/** C-Chain height (eth_blockNumber on the geth-style endpoint). */
export const cChainSource = heightSource('c_chain', 'C', '/ext/bc/C/rpc', 'eth_blockNumber', hexQuantity, true);
