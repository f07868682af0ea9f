import type { Sample } from '../../../metrics/metric-defs.js';
import { sample } from '../../sample.js';
import type { DataApiNodeBlocksValue } from './value.js';

/** Proposed-block state → the counter and the last proposed block. */
export function collectDataApiNodeBlocks(v: DataApiNodeBlocksValue): Sample[] {
  const out: Sample[] = [];
  for (const p of v.proposers) {
    const L = { network: v.network, node_id: p.nodeId, chain: p.chain };
    out.push(sample('avax_validator_proposed_blocks_total', L, p.count));
    if (p.last) {
      out.push(sample('avax_validator_last_proposed_block_height', L, Number(p.last.height)));
      out.push(sample('avax_validator_last_proposed_block_timestamp_seconds', L, p.last.timestampSeconds));
    }
  }
  return out;
}
