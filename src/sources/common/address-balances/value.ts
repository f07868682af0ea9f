import type { WatchedAddress } from '../../../config/addresses.js';
/** The balance of one watched address, as read. */
export interface AddressBalance extends WatchedAddress {
  /** Integer amount in the chain's base unit. */
  amount: bigint;
  /** Decimals of that unit: 18 (wei) on EVM chains, 9 (nAVAX) on the P-Chain. */
  decimals: number;
}

/** Balances of the watched addresses one poller asks about. */
export interface AddressBalancesValue {
  /** The `network` label: `mainnet`, `fuji`, or the node's network name elsewhere. */
  network: string;
  balances: AddressBalance[];
}
