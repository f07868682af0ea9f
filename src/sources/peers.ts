import { z } from 'zod';
import { smallUintString } from '../http/wire.js';
import { defineSource } from './source.js';
import { collectPeers } from '../collectors/peers.js';

const peerSchema = z.object({
  nodeID: z.string(),
  version: z.string(),
  benched: z.array(z.string()).nullable().optional(),
  /** Integer percent 0..100: this node's uptime as that peer observes it ("0" when the peer did not report it). */
  observedUptime: smallUintString.refine((v) => v <= 100, 'percentage outside 0..100').optional(),
});
/** info.peers result. */
export const peersResult = z.object({ numPeers: smallUintString, peers: z.array(peerSchema).nullable() });

/** Peer counts of one node. */
export interface PeersValue {
  numPeers: number;
  byVersion: Record<string, number>;
  benchedByChain: Record<string, number>;
  /** This node's uptime as each connected peer observes it (0..1), sorted ascending. */
  observedUptimes?: number[];
}

/** info.peers, reduced to counts (the peer list itself is large and churns). */
export const peersSource = defineSource<PeersValue>({
  name: 'peers',
  async poll(ctx) {
    return peersValueFrom(await ctx.rpc.call('/ext/info', 'info.peers', {}, peersResult, ctx.deadline));
  },
  collect: collectPeers,
});

/** Reduces a validated info.peers result to counts. Pure. */
export function peersValueFrom(r: z.output<typeof peersResult>): PeersValue {
    const byVersion: Record<string, number> = {};
    const benchedByChain: Record<string, number> = {};
    const observedUptimes: number[] = [];
    for (const p of r.peers ?? []) {
      byVersion[p.version] = (byVersion[p.version] ?? 0) + 1;
      for (const chain of new Set(p.benched ?? [])) benchedByChain[chain] = (benchedByChain[chain] ?? 0) + 1;
      if (p.observedUptime !== undefined) observedUptimes.push(p.observedUptime / 100);
    }
    observedUptimes.sort((a, b) => a - b);
    return { numPeers: r.numPeers, byVersion, benchedByChain, observedUptimes };
}
