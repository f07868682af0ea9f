import type { Sample } from '../../../metrics/metric-defs.js';
import type { ValidationLookup } from './validation-lookup.js';
import { bit, sample } from '../../sample.js';

/**
 * Watched validation ids → `avax_l1_validation_lookup_success` for each, and
 * `avax_l1_validation_found` for those the node gave a usable answer about
 * (absent when that answer was an error or invalid: unknown, not "ended").
 * Pure.
 */
export function collectValidationLookups(lookups: readonly ValidationLookup[], node: string): Sample[] {
  const out: Sample[] = [];
  for (const l of lookups) {
    const labels = { node, validation_id: l.validationId };
    out.push(sample('avax_l1_validation_lookup_success', labels, bit(l.failure === undefined)));
    if (l.found !== undefined) out.push(sample('avax_l1_validation_found', labels, bit(l.found)));
  }
  return out;
}
