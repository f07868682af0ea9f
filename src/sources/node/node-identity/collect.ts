import type { Sample } from '../../../metrics/metric-defs.js';
import type { NodeIdentityValue } from './value.js';
import { sample } from '../../sample.js';

/** Public address and VM versions → info series (always 1). */
export function collectNodeIdentity(v: NodeIdentityValue, node: string): Sample[] {
  const out: Sample[] = [sample('avax_node_ip_info', { node, ip: v.ip }, 1)];
  for (const { vm, version } of v.vmVersions) out.push(sample('avax_node_vm_version_info', { node, vm, version }, 1));
  return out;
}
