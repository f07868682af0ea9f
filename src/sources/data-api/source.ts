/**
 * The Data API family: sources polled by the Data API's own poller (the
 * pseudo-node `data_api`) through the shared client (src/data-api/client.ts),
 * about the watched node ids of one network.
 */
import type { WatchedAddress } from '../../config/addresses.js';
import type { DataApiConfig } from '../../config/load.js';
import type { DataApiClient, DataApiNetwork } from '../../data-api/client.js';
import type { BaseContext, SourceDef } from '../source.js';

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

/** A Data API source: the generic shape plus the hook only the Data API poller calls. */
export interface DataApiSourceDef<T> extends SourceDef<T, DataApiContext> {
  /**
   * Whether this source has anything to ask with this Data API configuration
   * (default: yes). A source with nothing to ask is not polled at all, rather
   * than reporting "up" for requests never sent.
   */
  appliesTo?(config: DataApiConfig): boolean;
  /**
   * The fewest requests one poll sends (one page per listing) for this many
   * watched ids and addresses: what the poller weighs against the rate limit
   * before a round, to say so when a round cannot fit (see DataApiPoller.plan).
   */
  requestsPerPoll(asked: DataApiAsked): number;
}

/** What a Data API round asks about, counted. */
export interface DataApiAsked {
  readonly nodeIds: number;
  readonly addresses: number;
}

/** Helper that keeps the value type of a Data API source's definition. */
export function defineDataApiSource<T>(def: DataApiSourceDef<T>): DataApiSourceDef<T> {
  return def;
}
