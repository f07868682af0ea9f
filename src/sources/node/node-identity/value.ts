/** One VM the node has (built in or a plugin, run or not: vms/manager.go Versions) and the version it reports (info.getNodeVersion `vmVersions`). */
export interface VmVersion {
  /** The VM's primary alias as the node reports it (`avm`, `evm`, `platform`, or a plugin's id or alias). */
  vm: string;
  version: string;
}

/** What a node advertises about itself beyond its id: its public address and the versions of its VMs. */
export interface NodeIdentityValue {
  /** The public `ip:port` (`[v6]:port`) the node advertises to its peers (info.getNodeIP). */
  ip: string;
  /** Sorted by vm. */
  vmVersions: VmVersion[];
}
