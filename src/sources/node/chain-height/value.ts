/** Last accepted height of one chain. */
export interface ChainHeightValue {
  chain: string;
  /** Undefined when the node does not run the chain (a partial-sync node's X and C). */
  height: bigint | undefined;
  /** The node runs only the P-Chain of the primary network (see isPartialSyncReport). */
  partialSync?: boolean;
}
