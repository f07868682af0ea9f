import type { DataApiNetwork } from '../../../data-api/client.js';
import type { PrimaryChain } from '../common/chains.js';

/** What is known of the blocks one validator proposed on one chain. */
export interface ProposerState {
  nodeId: string;
  chain: PrimaryChain;
  /** New proposed blocks seen since this exporter started watching (0 on the first poll). */
  count: number;
  /** The newest proposed block seen, if the node ever proposed one. */
  last?: { height: bigint; timestampSeconds: number } | undefined;
  /** Unix seconds of the first poll: for a node that had proposed nothing then, blocks from this time on are new. */
  sinceSeconds: number;
}

/** Proposed-block state of every watched node id. */
export interface DataApiNodeBlocksValue {
  network: DataApiNetwork;
  proposers: ProposerState[];
}
