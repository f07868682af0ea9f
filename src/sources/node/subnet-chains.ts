import { z } from 'zod';
import { UpstreamError } from '../../http/errors.js';
import { parseJsonBody, rejectHttpStatus, RpcError } from '../../http/json-rpc.js';
import { describeIssues } from '../../http/wire.js';
import { healthBodySchema } from './health/index.js';
import { SLOW_REFRESH_ROUNDS, type PollContext } from './source.js';

/** Blockchain ids are CB58 (32 bytes and a checksum: 49 to 50 characters); anything else in a chain check's name is an alias. */
const BLOCKCHAIN_ID = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;

/** One chain of a watched subnet that the node runs. */
export interface SubnetChain {
  /** The blockchain id: the `chain` label and the path of its APIs. */
  id: string;
  /** The name of its health check: its primary alias when the operator set one (`--chain-aliases-file`), else its id. */
  check: string;
}

/** Chains of each watched subnet, by subnet id. */
export type SubnetChains = Record<string, SubnetChain[]>;

const blockchainIdResult = z.object({ blockchainID: z.string().regex(BLOCKCHAIN_ID) });

/** The names of the checks in a health report GET (200 or 503 alike). */
async function checkNames(ctx: PollContext, path: string): Promise<string[]> {
  const res = await ctx.get(path);
  if (res.status !== 200 && res.status !== 503) rejectHttpStatus(res, `GET ${path}`);
  const parsed = healthBodySchema.safeParse(parseJsonBody(res.body, `GET ${path}`));
  if (!parsed.success) throw new UpstreamError('invalid_response', `GET ${path}: unexpected shape (${describeIssues(parsed.error)})`);
  return Object.keys(parsed.data.checks);
}

/**
 * The chains of a subnet that the node runs, from its health report: every
 * chain's health check is tagged with its subnet id and named by the chain's
 * primary alias, or its id without one (chains/manager.go,
 * `RegisterHealthCheck(PrimaryAliasOrDefault(chainID), h, subnetID)`), and a
 * query by tag also returns the application-wide checks
 * (api/health/worker.go Results always adds the `application` tag). So the
 * chains are the checks of `?tag=<subnet>` that `?tag=application` does not
 * list; a name that is not an id is resolved with info.getBlockchainID. A
 * name the node cannot resolve is not a chain and is left out. Uses only the
 * health and info APIs every node serves (platform.getBlockchains is
 * deprecated).
 */
/** The JSON-RPC methods the helpers below call, for the `rpcMethods` of the sources that use them. */
export const SUBNET_CHAINS_RPC_METHODS = ['info.getBlockchainID'] as const;

export async function chainsOfSubnet(ctx: PollContext, subnetId: string): Promise<SubnetChain[]> {
  const [tagged, application] = await Promise.all([
    checkNames(ctx, `/ext/health?tag=${encodeURIComponent(subnetId)}`),
    checkNames(ctx, '/ext/health?tag=application'),
  ]);
  const app = new Set(application);
  const names = tagged.filter((n) => !app.has(n)).sort();
  const chains = await Promise.all(
    names.map(async (check): Promise<SubnetChain | undefined> => {
      if (BLOCKCHAIN_ID.test(check)) return { id: check, check };
      try {
        const r = await ctx.rpc.call('/ext/info', 'info.getBlockchainID', { alias: check }, blockchainIdResult, ctx.deadline);
        return { id: r.blockchainID, check };
      } catch (err) {
        // "there is no ID with alias": not a chain after all.
        if (err instanceof RpcError) return undefined;
        throw err;
      }
    }),
  );
  return chains.filter((c): c is SubnetChain => c !== undefined).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The chains of every watched subnet: the last known lists, refreshed every
 * SLOW_REFRESH_ROUNDS rounds and whenever a watched subnet has none yet. The
 * sources that need them ask in the same rounds, and every request they make
 * is single-flight per round, so asking twice costs nothing.
 */
export async function watchedSubnetChains(ctx: PollContext, previous: SubnetChains | undefined): Promise<SubnetChains> {
  const subnetIds = ctx.node.watch.subnetIds;
  const known = previous ?? {};
  const refresh = ctx.round % SLOW_REFRESH_ROUNDS === 0 || subnetIds.some((s) => !(s in known));
  if (!refresh || subnetIds.length === 0) return known;
  const lists = await Promise.all(subnetIds.map((s) => chainsOfSubnet(ctx, s)));
  return Object.fromEntries(subnetIds.map((s, i) => [s, lists[i] ?? []]));
}
