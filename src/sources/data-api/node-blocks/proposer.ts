/**
 * The proposer arithmetic of the node-blocks source: which listed blocks are
 * new, and the next count. Pure.
 */
import type { BlockItem } from '../common/schemas.js';
import type { PrimaryChain } from '../common/chains.js';
import type { ProposerState } from './value.js';

/** Whether a listed block is newer than what a proposer state already counted. */
export function isNew(prev: ProposerState, b: BlockItem): boolean {
  return prev.last !== undefined ? b.blockNumber > prev.last.height : b.blockTimestamp >= prev.sinceSeconds;
}

/**
 * The next state of one proposer from the blocks just listed. Pure. Without a
 * previous state this is the baseline: what the node proposed before it was
 * watched is history, not an increase, so the count starts at 0.
 */
export function advanceProposer(
  prev: ProposerState | undefined,
  nodeId: string,
  chain: PrimaryChain,
  blocks: readonly BlockItem[],
  nowSeconds: number,
): ProposerState {
  // The endpoint lists the node's own blocks; one naming another proposer is not counted.
  const mine = blocks.filter((b) => b.proposerDetails?.proposerNodeId === undefined || b.proposerDetails.proposerNodeId === nodeId);
  const newest = (list: readonly BlockItem[], from: ProposerState['last']) =>
    list.reduce<ProposerState['last']>(
      (a, b) => (a === undefined || b.blockNumber > a.height ? { height: b.blockNumber, timestampSeconds: b.blockTimestamp } : a),
      from,
    );
  if (!prev) return { nodeId, chain, count: 0, last: newest(mine, undefined), sinceSeconds: nowSeconds };
  const fresh = new Map<bigint, BlockItem>();
  for (const b of mine) if (isNew(prev, b)) fresh.set(b.blockNumber, b);
  return { ...prev, count: prev.count + fresh.size, last: newest([...fresh.values()], prev.last) };
}
