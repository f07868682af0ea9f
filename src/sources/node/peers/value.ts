/** Primary-network stake per validator, fetched rarely and carried from poll to poll. */
export interface StakeMap {
  /** nodeID → own weight + delegated weight, nAVAX. */
  byNodeId: ReadonlyMap<string, bigint>;
  /** Poll round in which it was fetched. */
  fetchedRound: number;
}

/** The last attempt to fetch the stake map: when, and whether it worked. */
export interface StakeAttempt {
  round: number;
  ok: boolean;
}

/** How the connected stake splits over node versions. */
export interface VersionStake {
  /** Version → share of the connected stake (0..1); the shares add up to 1. */
  ratioByVersion: Record<string, number>;
  /** The version with the most connected stake (a plurality, not necessarily over half). */
  majorityVersion: string;
  /**
   * Whether the node's own version is older than `majorityVersion`; undefined
   * when the node's version is not known yet or either version cannot be read.
   */
  behindMajority?: boolean;
}

/** A benched peer and the chains (primary alias or blockchain id) it is benched on, sorted. */
export interface BenchedPeer {
  nodeId: string;
  chains: string[];
}

/** Benched peers, capped at MAX_BENCHED_PEERS. */
export interface BenchedPeers {
  peers: BenchedPeer[];
  /** Benched peers left out by the cap. */
  omitted: number;
}

/** A watched validator and the number of chains this node benches it on (0: none, or not a connected peer). */
export interface WatchedBenched {
  nodeId: string;
  chains: number;
}

/** Peer counts of one node, and what the validator set adds to them. */
export interface PeersValue {
  numPeers: number;
  byVersion: Record<string, number>;
  benchedByChain: Record<string, number>;
  /** Peers per upgrade time they report (Unix seconds, as a string key). */
  byUpgradeTime?: Record<string, number>;
  /**
   * This node's uptime as the connected peers observe it (0..1): for each of
   * OBSERVED_UPTIME_QUANTILES, the nearest-rank quantile over the peers that
   * reported one; absent when none did. Only the quantiles are kept: the value
   * stays in memory until the next poll, and on mainnet the peers' figures
   * one by one were about 23 KB per polled node.
   */
  observedUptimeByPeers?: { quantile: number; ratio: number }[];
  /**
   * This node's uptime as the connected stake observes it: for each of
   * OBSERVED_UPTIME_QUANTILES, the stake-weighted quantile over the validator
   * peers that reported one; absent without the stake view or such peers.
   */
  observedUptimeByStake?: { quantile: number; ratio: number }[];
  /** Benched peers one by one (set by the poll, which knows the watched ids and the stake). */
  benched?: BenchedPeers;
  /** Each watched validator (--watch.node-id) and on how many chains this node benches it. */
  benchedWatched?: WatchedBenched[];
  /** Validator stake, kept in the value so the next polls reuse it between refreshes. */
  stake?: StakeMap;
  /** The last stake fetch; decides when the next one is due. */
  stakeAttempt?: StakeAttempt;
  /**
   * Each watched validator's share of the primary validator set's weight
   * (own + delegated over the set's total, 0..1; 0 for an id not in the set);
   * absent without a stake map.
   */
  stakeShares?: { nodeId: string; ratio: number }[];
  /** Connected stake per version; absent without a stake map or without connected stake. */
  versionStake?: VersionStake;
}
