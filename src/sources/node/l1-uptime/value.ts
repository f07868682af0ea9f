import type { SubnetChains } from '../subnet-chains.js';
/** An L1 validator's uptime as one chain of the L1 sees it on this node. */
export interface L1UptimeRecord {
  nodeId: string;
  validationId: string;
  uptimeRatio: number;
  connected: boolean;
  /** `isActive`: false once the P-Chain deactivated the validator (its fee balance ran out); absent on older Subnet-EVM. */
  active: boolean | undefined;
  /** `weight`, for the series cap's stable order (heaviest first). */
  weight: number | undefined;
}

/**
 * How one chain's validators API answered: `ok`, `bootstrapping` (503: the
 * chain is not done bootstrapping, api/server/server.go) or `failed` (any
 * other failure: its message is in `error`).
 */
export type L1ChainState = 'ok' | 'bootstrapping' | 'failed';

/** The validators one chain of a watched subnet reports. */
export interface L1ChainUptimes {
  subnetId: string;
  chain: string;
  state: L1ChainState;
  /** Why the chain failed, when `state` is `failed`. */
  error?: string;
  validators: L1UptimeRecord[];
  /** Validators left out by --watch.max-validators. */
  omitted: number;
}

/** L1 uptimes of every chain of the watched subnets that serves the validators API. */
export interface L1UptimeValue {
  chains: L1ChainUptimes[];
  /** Chains of each watched subnet, cached between slow refreshes. */
  subnetChains: SubnetChains;
}

/** Every state a chain can be in, for the state-set series. */
export const L1_CHAIN_STATES: readonly L1ChainState[] = ['ok', 'bootstrapping', 'failed'];
