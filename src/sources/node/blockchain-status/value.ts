/**
 * What `platform.getBlockchainStatus` answers for a chain
 * (vms/platformvm/status/blockchain_status.go, `String()`, the wire form):
 * - `Validating`: the node runs the chain (the chain manager created it, so
 *   its id is an alias the P-Chain can look up) and the P-Chain's validator
 *   manager lists the node as a validator of the chain's subnet;
 * - `Syncing`: the node runs the chain but is not a validator of its subnet;
 * - `Created`: the chain is in the P-Chain's last accepted state but this node
 *   does not run it (it does not track the subnet);
 * - `Preferred`: only in the preferred, not yet accepted, P-Chain block;
 * - `Unknown` (`UnknownChain`): the P-Chain does not know the chain.
 * (vms/platformvm/service.go GetBlockchainStatus and nodeValidates.)
 */
export type BlockchainStatus = 'Validating' | 'Syncing' | 'Created' | 'Preferred' | 'Unknown';

/** Every status, for the state-set series (one series per status, 1 for the current one). */
export const BLOCKCHAIN_STATUSES: readonly BlockchainStatus[] = ['Validating', 'Syncing', 'Created', 'Preferred', 'Unknown'];

/** The statuses of a chain the node runs (GetBlockchainStatus found it among the chains it created). */
export const RUNNING_STATUSES: ReadonlySet<BlockchainStatus> = new Set<BlockchainStatus>(['Validating', 'Syncing']);

/** One chain of a watched subnet and its status on the node. */
export interface ChainStatus {
  subnetId: string;
  chain: string;
  status: BlockchainStatus;
}

/** The chains the P-Chain lists for each watched subnet (platform.getBlockchains), by subnet id. */
export type SubnetBlockchains = Record<string, string[]>;

/** Statuses of every chain of the watched subnets on one node. */
export interface BlockchainStatusValue {
  /** Sorted by subnet, then chain. */
  chains: ChainStatus[];
  /** Chains of each watched subnet as the P-Chain lists them, cached between slow refreshes. */
  subnetChains: SubnetBlockchains;
  /** The VM id of each of those chains (platform.getBlockchains vmID), refreshed with them. */
  chainVms?: Record<string, string>;
}
