import type { Sample } from '../../../metrics/metric-defs.js';
import { sample } from '../../sample.js';
import type { DataApiBlocksValue } from './value.js';

/** Chain heads → height and block time per chain; the P-Chain's L1 figures where the service gave them. */
export function collectDataApiBlocks(v: DataApiBlocksValue): Sample[] {
  return v.heads.flatMap((h) => [
    sample('avax_data_api_chain_height', { network: v.network, chain: h.chain }, Number(h.height)),
    sample('avax_data_api_chain_block_timestamp_seconds', { network: v.network, chain: h.chain }, h.timestampSeconds),
    ...(h.activeL1Validators !== undefined ? [sample('avax_data_api_active_l1_validators', { network: v.network }, h.activeL1Validators)] : []),
    ...(h.l1ValidatorsAccruedFeesNavax !== undefined
      ? [sample('avax_data_api_l1_validators_accrued_fees_avax', { network: v.network }, h.l1ValidatorsAccruedFeesNavax / 1e9)]
      : []),
  ]);
}
