import type { DataApiNetwork } from '../../../data-api/client.js';
import type { PrimaryChain } from '../common/chains.js';

/** The latest block of a chain as the service has indexed it. */
export interface ChainHead {
  chain: PrimaryChain;
  height: bigint;
  timestampSeconds: number;
  /** P-Chain: active L1 validators after this block, when the service gave it. */
  activeL1Validators?: number | undefined;
  /** P-Chain: L1 validator fees accrued since Etna after this block, nAVAX, when the service gave it. */
  l1ValidatorsAccruedFeesNavax?: number | undefined;
}

/** Heads of the primary chains. */
export interface DataApiBlocksValue {
  network: DataApiNetwork;
  heads: ChainHead[];
}
