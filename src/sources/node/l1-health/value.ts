import type { SubnetChains } from '../subnet-chains.js';

/**
 * One chain of a watched subnet as its health check on this node reports it
 * (`/ext/health?tag=<subnet id>`, the check named by the chain's primary alias
 * or id: chains/manager.go).
 */
export interface L1ChainHealth {
  subnetId: string;
  /** The blockchain id. */
  chain: string;
  /** The name of its health check. */
  check: string;
  passing: boolean;
  /**
   * The check is the one chains/manager.go registers when the chain could not
   * be created ("failed to create chain on subnet …"): the node does not run
   * the chain at all (plugin missing, RPCChainVM protocol mismatch).
   */
  failedToStart: boolean;
  /** The check's error, while it fails. */
  error?: string;
}

/** The health of every chain of the watched subnets the node has a check for. */
export interface L1HealthValue {
  chains: L1ChainHealth[];
  /** Chains of each watched subnet, cached between slow refreshes. */
  subnetChains: SubnetChains;
}
