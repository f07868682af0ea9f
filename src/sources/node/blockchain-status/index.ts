import { z } from 'zod';
import { defineNodeSource, SLOW_REFRESH_ROUNDS, type PollContext } from '../source.js';
import { collectBlockchainStatus } from './collect.js';
import { blockchainStatusChanges } from './changes.js';
import { BLOCKCHAIN_STATUSES, type BlockchainStatus, type BlockchainStatusValue, type ChainStatus, type SubnetBlockchains } from './value.js';
export type { BlockchainStatus, BlockchainStatusValue, ChainStatus, SubnetBlockchains } from './value.js';

/** `platform.getBlockchains` result (vms/platformvm/service.go APIBlockchain). */
export const getBlockchainsResult = z.object({
  blockchains: z.array(z.object({ id: z.string().min(1), name: z.string(), subnetID: z.string().min(1), vmID: z.string() })),
});

/** `platform.getBlockchainStatus` result: the status's String() form (vms/platformvm/status/blockchain_status.go). */
export const getBlockchainStatusResult = z.object({
  status: z.enum(BLOCKCHAIN_STATUSES as [BlockchainStatus, ...BlockchainStatus[]]),
});

/**
 * The chains of each watched subnet as the P-Chain lists them
 * (platform.getBlockchains: every chain of every subnet, whether this node
 * runs it or not; deprecated but served at master 1cf1fc3d), refreshed every
 * SLOW_REFRESH_ROUNDS rounds and whenever a watched subnet is not known yet.
 * Unlike the chains found from the health report (subnet-chains.ts), this
 * lists the chains of a subnet the node does not track: exactly the ones
 * whose status says so.
 */
async function watchedBlockchains(
  ctx: PollContext,
  previous: Pick<BlockchainStatusValue, 'subnetChains' | 'chainVms'> | undefined,
): Promise<{ subnetChains: SubnetBlockchains; chainVms?: Record<string, string> }> {
  const subnetIds = ctx.node.watch.subnetIds;
  const known = previous?.subnetChains ?? {};
  const refresh = ctx.round % SLOW_REFRESH_ROUNDS === 0 || subnetIds.some((s) => !(s in known));
  if (!refresh && previous) return previous;
  const r = await ctx.rpc.call('/ext/P', 'platform.getBlockchains', {}, getBlockchainsResult, ctx.deadline);
  const out: SubnetBlockchains = {};
  const chainVms: Record<string, string> = {};
  for (const s of subnetIds) {
    const mine = r.blockchains.filter((b) => b.subnetID === s);
    out[s] = [...new Set(mine.map((b) => b.id))].sort();
    for (const b of mine) chainVms[b.id] = b.vmID;
  }
  return { subnetChains: out, chainVms };
}

/**
 * Whether the node validates each chain of each watched subnet
 * (`platform.getBlockchainStatus {blockchainID}` per chain listed by
 * `platform.getBlockchains`). The P-Chain API answers all of them, so one
 * failing call fails the source (its values stay unknown rather than
 * half-reported).
 */
export const blockchainStatusSource = defineNodeSource<BlockchainStatusValue>({
  name: 'blockchain_status',
  rpcMethods: ['platform.getBlockchains', 'platform.getBlockchainStatus'],
  appliesTo: (node) => node.watch.subnetIds.length > 0,
  async poll(ctx, previous) {
    const { subnetChains, chainVms } = await watchedBlockchains(ctx, previous);
    const targets = Object.entries(subnetChains).flatMap(([subnetId, chains]) => chains.map((chain) => ({ subnetId, chain })));
    const chains = await Promise.all(
      targets.map(async ({ subnetId, chain }): Promise<ChainStatus> => {
        const r = await ctx.rpc.call('/ext/P', 'platform.getBlockchainStatus', { blockchainID: chain }, getBlockchainStatusResult, ctx.deadline);
        return { subnetId, chain, status: r.status };
      }),
    );
    return chainVms ? { chains, subnetChains, chainVms } : { chains, subnetChains };
  },
  collect: collectBlockchainStatus,
  changes: blockchainStatusChanges,
});
