import type { Sample } from '../../../metrics/metric-defs.js';
import { BLOCKCHAIN_STATUSES, RUNNING_STATUSES, type BlockchainStatusValue } from './value.js';
import { bit, sample } from '../../sample.js';

/**
 * Chain statuses → samples: each chain's status as a state set (one series
 * per status, 1 for the current one, 0 for the others), then per watched
 * subnet how many chains the P-Chain lists for it and whether the node runs
 * any of them (tracks the subnet). A watched subnet the node does not track
 * thus reads 0 instead of leaving no series.
 */
export function collectBlockchainStatus(v: BlockchainStatusValue, node: string): Sample[] {
  const out: Sample[] = [];
  for (const c of v.chains) {
    for (const status of BLOCKCHAIN_STATUSES)
      out.push(sample('avax_node_blockchain_status', { node, subnet: c.subnetId, chain: c.chain, status }, bit(c.status === status)));
  }
  // The VM of each chain the node runs: the plugins it actually runs, of all it has installed
  // (info.getNodeVersion vmVersions lists every installed VM: vms/manager.go).
  for (const c of v.chains) {
    const vm = v.chainVms?.[c.chain];
    if (vm !== undefined && RUNNING_STATUSES.has(c.status)) out.push(sample('avax_node_chain_vm_info', { node, subnet: c.subnetId, chain: c.chain, vm }, 1));
  }
  for (const [subnet, chains] of Object.entries(v.subnetChains)) {
    out.push(sample('avax_node_subnet_chains', { node, subnet }, chains.length));
    const tracks = v.chains.some((c) => c.subnetId === subnet && RUNNING_STATUSES.has(c.status));
    out.push(sample('avax_node_tracks_subnet', { node, subnet }, bit(tracks)));
  }
  return out;
}
