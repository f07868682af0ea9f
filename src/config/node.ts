import type { WatchedAddress } from './addresses.js';

/** What to watch on one node. */
export interface WatchConfig {
  /** Validators to watch; empty means "this node's own id". */
  nodeIds: string[];
  /** Export every current primary-network validator. */
  allValidators: boolean;
  /** Subnets / L1s whose validators and chains to watch. */
  subnetIds: string[];
  /** Most validators exported per subnet; the rest are left out with a warning (a series cap). */
  maxValidators: number;
  /**
   * L1 validations to look up one by one (platform.getL1Validator), whether or
   * not their L1 is watched; absent when none.
   */
  validationIds?: string[];
}

/** One polled node. */
export interface NodeConfig {
  /** The `node` label value. */
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Lower-cased names of headers whose values must never be shown. */
  secretHeaders: string[];
  watch: WatchConfig;
  /** C-Chain and L1 addresses whose balance this node is asked for (`addresses` with this node as `rpc_node`); absent when none. */
  addresses?: WatchedAddress[];
}
