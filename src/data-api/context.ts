import type { BaseContext } from '../sources/source.js';
import type { WatchedAddress } from '../config/addresses.js';
import type { DataApiClient, DataApiNetwork } from './client.js';

/** Everything a Data API source may use during one poll. */
export interface DataApiContext extends BaseContext {
  readonly client: DataApiClient;
  /** The network every path is about. */
  readonly network: DataApiNetwork;
  /** Validator node ids to ask about. */
  readonly nodeIds: readonly string[];
  /** Most pages one listing may fetch. */
  readonly maxPages: number;
  /** P-Chain addresses whose balance to ask for (none when absent). */
  readonly addresses?: readonly WatchedAddress[];
}
