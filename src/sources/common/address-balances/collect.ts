import type { Sample } from '../../../metrics/metric-defs.js';
import type { AddressBalancesValue } from './value.js';
import { sample } from '../../sample.js';

/**
 * An integer amount in a chain's base unit (wei: 18 decimals, nAVAX: 9) as a
 * number of whole tokens. The integer part is divided out exactly with BigInt
 * before anything becomes a float, so a large balance keeps every whole token
 * and only the fraction is rounded (to a double's 16 digits). Pure.
 */
export function baseUnitsToWhole(amount: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(amount / scale) + Number(amount % scale) / Number(scale);
}

/**
 * Balances → samples: per address its balance in whole tokens and, when the
 * configuration gives one, its floor. The floor travels with the balance (same
 * labels, same source) so the alert is a plain `balance < floor` and an address
 * whose balance is unknown has no floor series to alert on either. Pure.
 */
export function collectAddressBalances(v: AddressBalancesValue): Sample[] {
  const out: Sample[] = [];
  for (const b of v.balances) {
    const labels = { network: v.network, chain: b.chain, address: b.address, alias: b.alias };
    out.push(sample('avax_address_balance_avax', labels, baseUnitsToWhole(b.amount, b.decimals)));
    if (b.floorAvax !== undefined) out.push(sample('avax_address_balance_floor_avax', labels, b.floorAvax));
  }
  return out;
}
