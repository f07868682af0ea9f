import { z } from 'zod';
import type { ValueChange } from '../../source.js';
import { defineNodeSource, SLOW_REFRESH_ROUNDS } from '../source.js';
import { collectNodeIdentity } from './collect.js';
import type { NodeIdentityValue, VmVersion } from './value.js';
export type { NodeIdentityValue, VmVersion } from './value.js';

/**
 * info.getNodeIP: a netip.AddrPort in text form, `a.b.c.d:port` or
 * `[v6]:port` (api/info/service.go GetNodeIP). Anything else would become a
 * label value nobody can read, so it fails the source instead.
 */
export const nodeIpResult = z.object({
  ip: z.string().regex(/^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]):\d{1,5}$/, 'expected ip:port'),
});

/** Most VMs a node is expected to run; more would be a label explosion, not a node. */
const MAX_VMS = 64;

/**
 * info.getNodeVersion's `vmVersions`: VM primary alias → version
 * (vms/manager.go Versions). Values are opaque strings (`avalanchego/1.14.2`,
 * `v1.14.2`, a plugin's own `v0.7.3`).
 */
export const vmVersionsResult = z.object({
  vmVersions: z.record(z.string().min(1).max(128), z.string().max(128)).refine((m) => Object.keys(m).length <= MAX_VMS, `more than ${MAX_VMS} VMs`),
});

/** Sorted VM versions of a vmVersions map. Pure. */
export function vmVersionsOf(map: Readonly<Record<string, string>>): VmVersion[] {
  return Object.entries(map)
    .map(([vm, version]) => ({ vm, version }))
    .sort((a, b) => (a.vm < b.vm ? -1 : a.vm > b.vm ? 1 : 0));
}

/** Log lines for a new public address or a VM whose version changed. Pure. */
export function identityChanges(previous: NodeIdentityValue | undefined, next: NodeIdentityValue): ValueChange[] {
  if (!previous) return [];
  const out: ValueChange[] = [];
  if (previous.ip !== next.ip) out.push({ kind: 'public_ip', level: 'warn', message: 'public IP changed', detail: { from: previous.ip, to: next.ip } });
  const before = new Map(previous.vmVersions.map((v) => [v.vm, v.version]));
  for (const { vm, version } of next.vmVersions) {
    const was = before.get(vm);
    if (was !== undefined && was !== version)
      out.push({ kind: 'vm_version', level: 'info', message: 'VM version changed', detail: { vm, from: was, to: version } });
  }
  return out;
}

/**
 * What the node advertises about itself beyond the identity source: its
 * public IP (asked every round, one cheap call: a change must be seen within
 * a poll interval, peers dial the old address until they re-learn it) and
 * the versions of its VMs (info.getNodeVersion `vmVersions`, refreshed every
 * SLOW_REFRESH_ROUNDS rounds like the rest of the node's version: plugins
 * change only when the node restarts).
 */
export const nodeIdentitySource = defineNodeSource<NodeIdentityValue>({
  name: 'node_identity',
  rpcMethods: ['info.getNodeIP', 'info.getNodeVersion'],
  changes: identityChanges,
  async poll(ctx, previous) {
    const { ip } = await ctx.rpc.call('/ext/info', 'info.getNodeIP', {}, nodeIpResult, ctx.deadline);
    if (previous && ctx.round % SLOW_REFRESH_ROUNDS !== 0) {
      return previous.ip === ip ? previous : { ip, vmVersions: previous.vmVersions };
    }
    const { vmVersions } = await ctx.rpc.call('/ext/info', 'info.getNodeVersion', {}, vmVersionsResult, ctx.deadline);
    return { ip, vmVersions: vmVersionsOf(vmVersions) };
  },
  collect: collectNodeIdentity,
});
