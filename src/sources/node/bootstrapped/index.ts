import { z } from 'zod';
import { defineNodeSource } from '../source.js';
import { isPartialSyncReport, primaryChainsRun, readHealthReport } from '../health/index.js';
import { RpcError } from '../../../http/json-rpc.js';
import { SUBNET_CHAINS_RPC_METHODS, watchedSubnetChains, type SubnetChains } from '../subnet-chains.js';
import { collectBootstrapped } from './collect.js';
import { bootstrappedStatus } from './status.js';
import type { BootstrappedValue } from './value.js';
export type { BootstrappedValue } from './value.js';

const result = z.object({ isBootstrapped: z.boolean() });

/**
 * The `bootstrapped` health check in a passing state: no error, and a message
 * that is an empty array (the list of subnets still bootstrapping, empty).
 */
const bootstrappedCheckPassing = z.object({ message: z.array(z.unknown()).length(0), error: z.null().optional() });
/** Just enough of a /ext/health body to read the `bootstrapped` check and the names of the others. */
const healthChecks = z.object({ checks: z.record(z.string(), z.unknown()), healthy: z.boolean() });

/**
 * Whether a /ext/health body says that every chain the node runs has finished
 * bootstrapping, so that P, X, C and the subnets' chains need not be asked one by
 * one. Pure.
 *
 * AvalancheGo (chains/manager.go) registers the application-wide health check
 * `bootstrapped` as `Subnets.Bootstrapping()`: it passes with the message `[]`
 * exactly when every chain of every subnet the node runs, the primary network's
 * P, X and C included, has finished bootstrapping; otherwise it fails ("subnets
 * not bootstrapped") and lists the subnets still bootstrapping. A chain never
 * goes back to bootstrapping within one node process, and a restarted node
 * starts its health results over (failing, or "not yet run"), so a passing
 * result is never out of date. Only a failing one can be (the health worker
 * runs the checks every 30 s by default), and then the chains are asked one
 * by one, live.
 *
 * Anything else (no such check, a failing one, a message that is not an empty
 * array, a body of another shape) answers false: the caller asks
 * info.isBootstrapped as before. So does a watched subnet chain without a
 * health check of its own: the `bootstrapped` check covers only the chains the
 * node runs, and the chain lists are cached between slow refreshes, so a chain
 * the node no longer runs (restarted with another configuration) must not be
 * reported as bootstrapped on its word.
 */
export function healthSaysAllBootstrapped(body: unknown, subnetChecks: readonly string[]): boolean {
  const parsed = healthChecks.safeParse(body);
  if (!parsed.success) return false;
  const { checks } = parsed.data;
  if (!bootstrappedCheckPassing.safeParse(checks['bootstrapped']).success) return false;
  return subnetChecks.every((check) => Object.hasOwn(checks, check));
}

/**
 * The cached chain lists without the chains that have no check in the node's
 * current health report (`checks`): chains/manager.go registers a check for
 * every chain it creates or fails to create, so a chain without one is not
 * run by the node. A subnet that lost a chain is dropped from the lists, which
 * makes watchedSubnetChains read it again in the next round. Pure.
 */
export function runningChains(cached: SubnetChains, checks: Readonly<Record<string, unknown>>): SubnetChains {
  const out: SubnetChains = {};
  for (const [subnet, chains] of Object.entries(cached)) {
    if (chains.every((c) => Object.hasOwn(checks, c.check))) out[subnet] = chains;
  }
  return out;
}

/**
 * Bootstrap state of P, X, C and every chain of the watched subnets: all
 * bootstrapped at once when the node's `bootstrapped` health check says so
 * (see {@link healthSaysAllBootstrapped}), else info.isBootstrapped per chain.
 */
export const bootstrappedSource = defineNodeSource<BootstrappedValue>({
  name: 'bootstrapped',
  rpcMethods: ['info.isBootstrapped', ...SUBNET_CHAINS_RPC_METHODS],
  status: bootstrappedStatus,
  async poll(ctx, previous) {
    // Started first, alongside the chain lists; never rejects. Waited for at
    // most half the time left, leaving the other half to the fallback calls.
    const health = readHealthReport(ctx, Math.max(0, (ctx.deadline.at - Date.now()) / 2));
    const cached = await watchedSubnetChains(ctx, previous?.subnetChains);
    const body = await health;
    const checks = healthChecks.safeParse(body);
    // A cached chain without a check in the report is one the node no longer
    // runs (restarted without the subnet in --track-subnets): it is not asked
    // about, and its subnet's list is dropped so that the next round reads it
    // anew instead of waiting for the slow refresh.
    const subnetChains = checks.success ? runningChains(cached, checks.data.checks) : cached;
    const l1 = [
      ...new Map(
        Object.values(subnetChains)
          .flat()
          .map((c) => [c.id, c]),
      ).values(),
    ];
    const l1Chains = l1.map((c) => c.id);
    // A partial-sync node runs no X- or C-Chain: info.isBootstrapped says false
    // for them forever (chains/manager.go IsBootstrapped: no such chain), which
    // is not "still bootstrapping". Only the chains the node runs are reported.
    const partialSync = checks.success ? isPartialSyncReport(checks.data.checks) : (previous?.partialSync ?? false);
    const names = [...primaryChainsRun(partialSync), ...l1Chains];
    if (
      healthSaysAllBootstrapped(
        body,
        l1.map((c) => c.check),
      )
    ) {
      return { chains: names.map((chain) => ({ chain, bootstrapped: true })), partialSync, subnetChains };
    }
    // Each chain on its own: an L1 chain that failed to start is never aliased,
    // so info.isBootstrapped answers "there is no chain with alias/ID"
    // (api/info/service.go); it is left out (avax_l1_chain_failed_to_start
    // says why) and P, X, C and the other chains keep their state.
    const l1Set = new Set(l1Chains);
    const answers = await Promise.all(
      names.map(async (chain): Promise<boolean | undefined> => {
        try {
          return (await ctx.rpc.call('/ext/info', 'info.isBootstrapped', { chain }, result, ctx.deadline)).isBootstrapped;
        } catch (err) {
          if (err instanceof RpcError && l1Set.has(chain)) return undefined;
          throw err;
        }
      }),
    );
    const chains = names.flatMap((chain, i) => {
      const b = answers[i];
      return b === undefined ? [] : [{ chain, bootstrapped: b }];
    });
    return { chains, partialSync, subnetChains };
  },
  collect: collectBootstrapped,
});
