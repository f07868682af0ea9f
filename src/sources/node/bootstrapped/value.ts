import type { SubnetChains } from '../subnet-chains.js';
/** Bootstrap state per chain, plus the L1 chains found for the watched subnets. */
export interface BootstrappedValue {
  chains: { chain: string; bootstrapped: boolean }[];
  /** The node runs only the P-Chain of the primary network (from its health report; the last known answer when it cannot be read). */
  partialSync?: boolean;
  /** Chains of each watched subnet, cached between slow refreshes. */
  subnetChains: SubnetChains;
}
