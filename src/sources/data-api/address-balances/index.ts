import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { uintString } from '../../../http/wire.js';
import { networkOfPAddress, type WatchedAddress } from '../../../config/addresses.js';
import type { DataApiNetwork } from '../../../data-api/client.js';
import { aboutAddress } from '../../common/address-balances/about-address.js';
import { collectAddressBalances } from '../../common/address-balances/collect.js';
import type { AddressBalance, AddressBalancesValue } from '../../common/address-balances/value.js';
import { defineDataApiSource, type DataApiContext } from '../source.js';

/** The asset id of AVAX, by the network it lives on (`testnet` is fuji). */
export const AVAX_ASSET_IDS = {
  mainnet: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
  fuji: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
} as const;

/** Decimals of AVAX on the P-Chain (nAVAX). */
export const P_CHAIN_DECIMALS = 9;

/**
 * One entry of a primary-network balance category: an asset and the amount of
 * it (a decimal string in the asset's smallest unit). Only what the exporter
 * reads is required; `name`, `symbol`, `type`, `utxoCount` and the
 * atomic-memory fields are ignored.
 */
export const balanceAssetEntry = z.object({
  assetId: z.string().min(1),
  denomination: z.number().int().min(0).max(30),
  amount: uintString,
});

/**
 * `GET /v1/networks/{network}/blockchains/p-chain/balances` (the spec's
 * PChainBalance inside `balances`). Only `unlockedUnstaked` is read: it is the
 * AVAX a transaction can spend now, which is what a fee-paying wallet needs.
 * Staked and locked amounts (the other seven lists) are not spendable.
 */
export const pChainBalancesResponse = z.object({
  balances: z.object({ unlockedUnstaked: z.array(balanceAssetEntry) }),
});

/** The network label of a Data API network: `testnet` is fuji, named as the nodes name it. */
export function networkLabelOf(network: DataApiNetwork): 'mainnet' | 'fuji' {
  return network === 'mainnet' ? 'mainnet' : 'fuji';
}

/**
 * The spendable AVAX, in nAVAX, of one answer: the `unlockedUnstaked` entries
 * of the network's AVAX asset, summed (other assets are not AVAX, whatever
 * their symbol says). Throws `invalid_response` for AVAX with a denomination
 * other than 9, which would make the amount mean something else. Pure.
 */
export function spendableNavax(answer: z.output<typeof pChainBalancesResponse>, network: DataApiNetwork): bigint {
  const avax = AVAX_ASSET_IDS[networkLabelOf(network)];
  let total = 0n;
  for (const e of answer.balances.unlockedUnstaked) {
    if (e.assetId !== avax) continue;
    if (e.denomination !== P_CHAIN_DECIMALS) {
      throw new UpstreamError('invalid_response', `AVAX (${avax}) listed with denomination ${e.denomination}, expected ${P_CHAIN_DECIMALS}`);
    }
    total += e.amount;
  }
  return total;
}

async function pBalanceOf(ctx: DataApiContext, a: WatchedAddress): Promise<AddressBalance> {
  try {
    const own = networkOfPAddress(a.address);
    if (own !== networkLabelOf(ctx.network)) {
      // The service would answer 400 (or nothing useful); say why instead.
      throw new UpstreamError('network_mismatch', `a ${own ?? 'unknown'} address, but the Data API is asked about ${ctx.network}`);
    }
    // The spec's own examples give the address without its chain prefix.
    const answer = await ctx.client.get(
      `/v1/networks/${ctx.network}/blockchains/p-chain/balances`,
      { addresses: a.address.replace(/^P-/, '') },
      pChainBalancesResponse,
      ctx.deadline,
    );
    return { ...a, amount: spendableNavax(answer, ctx.network), decimals: P_CHAIN_DECIMALS };
  } catch (err) {
    throw aboutAddress(a, err, ctx.deadline.signal.aborted);
  }
}

/**
 * Spendable AVAX of each watched P-Chain address (`addresses` entries on chain
 * P), one request per address: the endpoint sums every address it is given
 * into one balance, so asking for several at once would lose which wallet is
 * low. Polled only when the configuration lists such addresses (`appliesTo`).
 */
export const dataApiAddressBalancesSource = defineDataApiSource<AddressBalancesValue>({
  name: 'data_api_address_balances',
  appliesTo: (config) => (config.addresses?.length ?? 0) > 0,
  requestsPerPoll: (asked) => asked.addresses,
  async poll(ctx) {
    const balances = await Promise.all((ctx.addresses ?? []).map((a) => pBalanceOf(ctx, a)));
    return { network: networkLabelOf(ctx.network), balances };
  },
  collect: collectAddressBalances,
});
