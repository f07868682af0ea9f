import type { Sample } from '../../../metrics/metric-defs.js';
import type { BootstrappedValue } from './value.js';
import { bit, sample } from '../../sample.js';

/** Bootstrap state per chain → samples. */
export function collectBootstrapped(v: BootstrappedValue, node: string): Sample[] {
  return v.chains.map((c) => sample('avax_node_bootstrapped', { node, chain: c.chain }, bit(c.bootstrapped)));
}
