import { z } from 'zod';
import { UpstreamError } from '../http/errors.js';
import { parseJsonBody, rejectHttpStatus } from '../http/json-rpc.js';
import { describeIssues } from '../http/wire.js';
import { defineSource, SLOW_REFRESH_ROUNDS, type PollContext } from './source.js';
import { healthBodySchema } from './health.js';
import { collectBootstrapped } from '../collectors/bootstrapped.js';

const result = z.object({ isBootstrapped: z.boolean() });
/** Blockchain ids are CB58; application-wide health checks have plain names. */
const BLOCKCHAIN_ID = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;

/** Bootstrap state per chain, plus the L1 chains found for the watched subnets. */
export interface BootstrappedValue {
  chains: { chain: string; bootstrapped: boolean }[];
  /** Chains of each watched subnet, cached between slow refreshes. */
  subnetChains: Record<string, string[]>;
}

/**
 * Finds the chains of a subnet: the node's health report filtered by the
 * subnet's tag lists its chain checks, keyed by blockchain id. This uses only
 * the health API every node serves (platform.getBlockchains is deprecated).
 */
export async function chainsOfSubnet(ctx: PollContext, subnetId: string): Promise<string[]> {
  const path = `/ext/health?tag=${encodeURIComponent(subnetId)}`;
  const res = await ctx.get(path);
  if (res.status !== 200 && res.status !== 503) rejectHttpStatus(res, `GET ${path}`);
  const parsed = healthBodySchema.safeParse(parseJsonBody(res.body, `GET ${path}`));
  if (!parsed.success) throw new UpstreamError('invalid_response', `GET ${path}: unexpected shape (${describeIssues(parsed.error)})`);
  return Object.keys(parsed.data.checks).filter((k) => BLOCKCHAIN_ID.test(k)).sort();
}

/** info.isBootstrapped for P, X, C and every chain of the watched subnets. */
export const bootstrappedSource = defineSource<BootstrappedValue>({
  name: 'bootstrapped',
  async poll(ctx, previous) {
    let subnetChains = previous?.subnetChains ?? {};
    const refresh = ctx.round % SLOW_REFRESH_ROUNDS === 0 || ctx.node.watch.subnetIds.some((s) => !(s in subnetChains));
    if (refresh && ctx.node.watch.subnetIds.length > 0) {
      const lists = await Promise.all(ctx.node.watch.subnetIds.map((s) => chainsOfSubnet(ctx, s)));
      subnetChains = Object.fromEntries(ctx.node.watch.subnetIds.map((s, i) => [s, lists[i] ?? []]));
    }
    const names = ['P', 'X', 'C', ...new Set(Object.values(subnetChains).flat())];
    const answers = await Promise.all(
      names.map((chain) => ctx.rpc.call('/ext/info', 'info.isBootstrapped', { chain }, result, ctx.deadline)),
    );
    return { chains: names.map((chain, i) => ({ chain, bootstrapped: answers[i]?.isBootstrapped ?? false })), subnetChains };
  },
  collect: collectBootstrapped,
});
