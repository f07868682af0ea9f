import { z } from 'zod';
import { UpstreamError } from '../http/errors.js';
import { finiteNumber } from '../http/wire.js';
import { defineSource, SLOW_REFRESH_ROUNDS } from './source.js';
import { chainsOfSubnet } from './bootstrapped.js';
import { collectL1Uptime } from '../collectors/l1-uptime.js';

/**
 * One entry of the Subnet-EVM validators API. Unlike the P-Chain, numbers are
 * plain JSON numbers and `uptimePercentage` is a float percent 0..100.
 */
const l1UptimeSchema = z.object({
  validationID: z.string().min(1),
  nodeID: z.string().min(1),
  weight: finiteNumber.optional(),
  startTimestamp: finiteNumber.optional(),
  isActive: z.boolean().optional(),
  isL1Validator: z.boolean().optional(),
  isConnected: z.boolean(),
  uptimePercentage: finiteNumber.refine((v) => v >= 0 && v <= 100, 'percentage outside 0..100'),
  uptimeSeconds: finiteNumber.optional(),
});
/** `validators.getCurrentValidators` result at `/ext/bc/<chainID>/validators`. */
export const l1UptimeResult = z.object({ validators: z.array(l1UptimeSchema).nullable() });

/** An L1 validator's uptime as one chain of the L1 sees it on this node. */
export interface L1UptimeRecord {
  nodeId: string;
  validationId: string;
  uptimeRatio: number;
  connected: boolean;
}

/** The validators one chain of a watched subnet reports. */
export interface L1ChainUptimes {
  subnetId: string;
  chain: string;
  validators: L1UptimeRecord[];
}

/** L1 uptimes of every chain of the watched subnets that serves the validators API. */
export interface L1UptimeValue {
  chains: L1ChainUptimes[];
  /** Chains of each watched subnet, cached between slow refreshes. */
  subnetChains: Record<string, string[]>;
}

/** Converts one validated entry. Pure. */
export function toL1UptimeRecord(v: z.output<typeof l1UptimeSchema>): L1UptimeRecord {
  return { nodeId: v.nodeID, validationId: v.validationID, uptimeRatio: v.uptimePercentage / 100, connected: v.isConnected };
}

/**
 * L1 validator uptime from each chain of each watched subnet
 * (`POST /ext/bc/<chainID>/validators`, `validators.getCurrentValidators`):
 * on an L1 the P-Chain reports no uptime, the L1's own VM does. The chains are
 * found the way the bootstrapped source finds them (`/ext/health?tag=<subnet>`).
 * A chain that answers 404 has no validators API (another VM, or the API is
 * disabled in the VM config) and is skipped.
 */
export const l1UptimeSource = defineSource<L1UptimeValue>({
  name: 'l1_uptime',
  appliesTo: (node) => node.watch.subnetIds.length > 0,
  async poll(ctx, previous) {
    const subnetIds = ctx.node.watch.subnetIds;
    let subnetChains = previous?.subnetChains ?? {};
    const refresh = ctx.round % SLOW_REFRESH_ROUNDS === 0 || subnetIds.some((s) => !(s in subnetChains));
    if (refresh && subnetIds.length > 0) {
      const lists = await Promise.all(subnetIds.map((s) => chainsOfSubnet(ctx, s)));
      subnetChains = Object.fromEntries(subnetIds.map((s, i) => [s, lists[i] ?? []]));
    }
    const targets = subnetIds.flatMap((subnetId) => (subnetChains[subnetId] ?? []).map((chain) => ({ subnetId, chain })));
    const max = ctx.node.watch.maxValidators;
    const answers = await Promise.all(
      targets.map(async ({ subnetId, chain }): Promise<L1ChainUptimes | undefined> => {
        try {
          const r = await ctx.rpc.call(`/ext/bc/${chain}/validators`, 'validators.getCurrentValidators', { nodeIDs: [] }, l1UptimeResult, ctx.deadline);
          return { subnetId, chain, validators: (r.validators ?? []).slice(0, max).map(toL1UptimeRecord) };
        } catch (err) {
          if (err instanceof UpstreamError && err.status === 404) return undefined;
          throw err;
        }
      }),
    );
    return { chains: answers.filter((a): a is L1ChainUptimes => a !== undefined), subnetChains };
  },
  collect: collectL1Uptime,
});
