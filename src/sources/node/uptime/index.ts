import { z } from 'zod';
import { RpcError } from '../../../http/json-rpc.js';
import { percentAsRatio } from '../../../http/wire.js';
import { defineNodeSource } from '../source.js';
import { collectUptime } from './collect.js';
import type { UptimeValue } from './value.js';
export type { UptimeValue } from './value.js';

/** info.uptime result. */
export const uptimeResult = z.object({
  rewardingStakePercentage: percentAsRatio,
  weightedAveragePercentage: percentAsRatio,
});

/**
 * info.uptime. A node that is not a validator answers with a JSON-RPC error:
 * that is state, not a failure of the source. The `subnetID` argument is not
 * sent: current nodes ignore it and answer for the primary network.
 */
export const uptimeSource = defineNodeSource<UptimeValue>({
  name: 'uptime',
  rpcMethods: ['info.uptime'],
  async poll(ctx) {
    try {
      const r = await ctx.rpc.call('/ext/info', 'info.uptime', {}, uptimeResult, ctx.deadline);
      return { isValidator: true, rewardingStakeRatio: r.rewardingStakePercentage, weightedAverageRatio: r.weightedAveragePercentage };
    } catch (err) {
      if (err instanceof RpcError && /not a validator/i.test(err.rpcMessage)) return { isValidator: false };
      throw err;
    }
  },
  collect: collectUptime,
});
