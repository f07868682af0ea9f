import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { parseJsonBody, rejectHttpStatus } from '../../../http/json-rpc.js';
import { describeIssues } from '../../../http/wire.js';
import { healthBodySchema } from '../health/index.js';
import { defineNodeSource, type PollContext } from '../source.js';
import { SUBNET_CHAINS_RPC_METHODS, watchedSubnetChains, type SubnetChain } from '../subnet-chains.js';
import { collectL1Health } from './collect.js';
import type { L1ChainHealth, L1HealthValue } from './value.js';
export type { L1ChainHealth, L1HealthValue } from './value.js';

/**
 * The error chains/manager.go createChain registers under a chain it could not
 * create: `fmt.Errorf("failed to create chain on subnet %s: %w", …)`.
 */
const FAILED_TO_CREATE = /^failed to create chain on subnet /;

/** One chain's entry from its subnet's tagged report. Pure. */
export function l1ChainHealthFrom(subnetId: string, chain: SubnetChain, check: z.output<typeof healthBodySchema>['checks'][string]): L1ChainHealth {
  const error = typeof check.error === 'string' ? check.error : check.error === undefined || check.error === null ? undefined : JSON.stringify(check.error);
  const out: L1ChainHealth = {
    subnetId,
    chain: chain.id,
    check: chain.check,
    passing: error === undefined,
    failedToStart: error !== undefined && FAILED_TO_CREATE.test(error),
  };
  if (error !== undefined) out.error = error;
  // The check's consensus details (blocks processing, last accepted height)
  // are read once, for every chain, by the node_vitals source.
  return out;
}

async function taggedReport(ctx: PollContext, subnetId: string): Promise<z.output<typeof healthBodySchema>> {
  const path = `/ext/health?tag=${encodeURIComponent(subnetId)}`;
  const res = await ctx.get(path);
  if (res.status !== 200 && res.status !== 503) rejectHttpStatus(res, `GET ${path}`);
  const parsed = healthBodySchema.safeParse(parseJsonBody(res.body, `GET ${path}`));
  if (!parsed.success) throw new UpstreamError('invalid_response', `GET ${path}: unexpected shape (${describeIssues(parsed.error)})`);
  return parsed.data;
}

/**
 * The health of each chain of each watched subnet, apart from the node's own:
 * `/ext/health?tag=<subnet id>` holds the subnet's chain checks, tagged with
 * its id in chains/manager.go (plus the application-wide ones, which the
 * health source reports). A chain's check fails when this node is connected
 * to less than 80 % of the stake of that chain's validator set
 * (snow/networking/handler/health.go): in a small L1 one other operator's
 * node offline is enough, which says the L1 is degraded, not that this node
 * is. A chain that could not be created has a check too, failing with
 * "failed to create chain on subnet …". The chains are the cached lists the
 * bootstrapped and L1 uptime sources use; a cached chain without a check in
 * the report is one the node no longer runs, and is left out. Every request
 * is single-flight per round with theirs.
 */
export const l1HealthSource = defineNodeSource<L1HealthValue>({
  name: 'l1_health',
  rpcMethods: [...SUBNET_CHAINS_RPC_METHODS],
  appliesTo: (node) => node.watch.subnetIds.length > 0,
  async poll(ctx, previous) {
    const subnetChains = await watchedSubnetChains(ctx, previous?.subnetChains);
    const subnets = ctx.node.watch.subnetIds;
    const reports = await Promise.all(subnets.map((s) => taggedReport(ctx, s)));
    const chains: L1ChainHealth[] = [];
    subnets.forEach((subnetId, i) => {
      const checks = reports[i]?.checks ?? {};
      for (const c of subnetChains[subnetId] ?? []) {
        const check = checks[c.check];
        if (check) chains.push(l1ChainHealthFrom(subnetId, c, check));
      }
    });
    chains.sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0));
    return { chains, subnetChains };
  },
  collect: collectL1Health,
});
