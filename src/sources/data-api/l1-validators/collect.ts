import type { Sample } from '../../../metrics/metric-defs.js';
import type { WatchConfig } from '../../../config/load.js';
import { bit, sample } from '../../sample.js';
import type { DataApiL1ValidatorsValue } from './value.js';

/** nAVAX per AVAX. */
const NAVAX = 1e9;

/**
 * L1 validations → samples, one set per validation: balance (AVAX), weight,
 * active. Labelled by the Data API's `network`, never by a polled node. Pure.
 */
export function collectDataApiL1Validators(v: DataApiL1ValidatorsValue): Sample[] {
  const out: Sample[] = [];
  for (const n of v.nodes) {
    for (const x of n.validations) {
      const L = { network: v.network, node_id: n.nodeId, subnet: x.subnetId, validation_id: x.validationId };
      out.push(sample('avax_data_api_l1_validator_active', L, bit(x.active)));
      out.push(sample('avax_data_api_l1_validator_weight', L, x.weight));
      out.push(sample('avax_data_api_l1_validator_balance_avax', L, x.remainingBalanceNavax / NAVAX));
    }
  }
  return out;
}

/**
 * What the node pollers were configured to watch among L1s: every
 * `--watch.subnet-id` and `--watch.validation-id` of any node, once each. The
 * alert on an L1 validation nobody watches needs these next to the Data API's
 * list (a rule cannot read the configuration). Exporter self series. Pure.
 */
export function collectWatchedL1Config(watches: readonly WatchConfig[]): Sample[] {
  const subnets = new Set<string>();
  const validations = new Set<string>();
  for (const w of watches) {
    for (const s of w.subnetIds) subnets.add(s);
    for (const id of w.validationIds ?? []) validations.add(id);
  }
  return [
    ...[...subnets].map((subnet) => sample('avax_exporter_watched_subnet', { subnet }, 1)),
    ...[...validations].map((validation_id) => sample('avax_exporter_watched_validation', { validation_id }, 1)),
  ];
}
