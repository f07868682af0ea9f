import type { Sample } from '../../../metrics/metric-defs.js';
import type { ChainHeightValue } from './value.js';
import { sample } from '../../sample.js';

/** A chain's last accepted height → one sample; none for a chain the node does not run. */
export function collectChainHeight(v: ChainHeightValue, node: string): Sample[] {
  return v.height === undefined ? [] : [sample('avax_chain_height', { node, chain: v.chain }, Number(v.height))];
}
