import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { finiteNumber } from '../../../http/wire.js';
import { defineNodeSource } from '../source.js';
import { SUBNET_CHAINS_RPC_METHODS, watchedSubnetChains } from '../subnet-chains.js';
import { collectL1Uptime } from './collect.js';
import type { L1UptimeRecord, L1ChainUptimes, L1UptimeValue } from './value.js';
export type { L1UptimeRecord, L1ChainUptimes, L1UptimeValue } from './value.js';

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

/** Converts one validated entry. Pure. */
export function toL1UptimeRecord(v: z.output<typeof l1UptimeSchema>): L1UptimeRecord {
  return {
    nodeId: v.nodeID,
    validationId: v.validationID,
    uptimeRatio: v.uptimePercentage / 100,
    connected: v.isConnected,
    active: v.isActive,
    weight: v.weight,
  };
}

/**
 * The first `max` validators in a stable order: heaviest first, then by node
 * id, then by validation id, so the same set always exports the same
 * validators whatever order the node's map iteration gave. Pure.
 */
export function capL1Uptimes(records: readonly L1UptimeRecord[], max: number): { validators: L1UptimeRecord[]; omitted: number } {
  if (records.length <= max) return { validators: [...records], omitted: 0 };
  const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const ranked = [...records].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0) || byId(a.nodeId, b.nodeId) || byId(a.validationId, b.validationId));
  return { validators: ranked.slice(0, max), omitted: records.length - max };
}

/**
 * L1 validator uptime from each chain of each watched subnet
 * (`POST /ext/bc/<chainID>/validators`, `validators.getCurrentValidators`):
 * on an L1 the P-Chain reports no uptime, the L1's own VM does. The chains are
 * found from the node's health report (see chainsOfSubnet; aliased chains
 * included). A chain that answers 404 has no validators API (another VM, or
 * the API is disabled in the VM config) and is skipped. Each chain stands on
 * its own: one still bootstrapping (503) or failing is reported as such in its
 * state and leaves the other chains' data intact; the source fails only when
 * every chain it asked failed.
 */
export const l1UptimeSource = defineNodeSource<L1UptimeValue>({
  name: 'l1_uptime',
  rpcMethods: ['validators.getCurrentValidators', ...SUBNET_CHAINS_RPC_METHODS],
  appliesTo: (node) => node.watch.subnetIds.length > 0,
  async poll(ctx, previous) {
    const subnetChains = await watchedSubnetChains(ctx, previous?.subnetChains);
    const targets = ctx.node.watch.subnetIds.flatMap((subnetId) => (subnetChains[subnetId] ?? []).map((c) => ({ subnetId, chain: c.id })));
    const max = ctx.node.watch.maxValidators;
    const answers = await Promise.all(
      targets.map(async ({ subnetId, chain }): Promise<L1ChainUptimes | UpstreamError | undefined> => {
        try {
          const r = await ctx.rpc.call(`/ext/bc/${chain}/validators`, 'validators.getCurrentValidators', { nodeIDs: [] }, l1UptimeResult, ctx.deadline);
          return { subnetId, chain, state: 'ok', ...capL1Uptimes((r.validators ?? []).map(toL1UptimeRecord), max) };
        } catch (err) {
          if (!(err instanceof UpstreamError)) throw err;
          if (err.status === 404) return undefined;
          if (err.status === 503) return { subnetId, chain, state: 'bootstrapping', validators: [], omitted: 0 };
          // The round's deadline is the whole source's problem, not this chain's.
          if (err.reason === 'timeout') throw err;
          return err;
        }
      }),
    );
    const failures = answers.filter((a): a is UpstreamError => a instanceof UpstreamError);
    const chains = answers.filter((a): a is L1ChainUptimes => a !== undefined && !(a instanceof UpstreamError));
    // Nothing answered at all: that is the source failing, with the first chain's reason.
    if (failures.length > 0 && chains.length === 0) throw failures[0] as UpstreamError;
    answers.forEach((a, i) => {
      const t = targets[i];
      if (a instanceof UpstreamError && t) chains.push({ subnetId: t.subnetId, chain: t.chain, state: 'failed', error: a.message, validators: [], omitted: 0 });
    });
    chains.sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0));
    return { chains, subnetChains };
  },
  collect: collectL1Uptime,
});
