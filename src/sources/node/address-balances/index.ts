import { UpstreamError } from '../../../http/errors.js';
import { hexQuantity } from '../../../http/wire.js';
import type { WatchedAddress } from '../../../config/addresses.js';
import { aboutAddress } from '../../common/address-balances/about-address.js';
import { collectAddressBalances } from '../../common/address-balances/collect.js';
import type { AddressBalance, AddressBalancesValue } from '../../common/address-balances/value.js';
import { defineNodeSource, type KnownNodeFacts, type PollContext } from '../source.js';

/** Decimals of the native token of every EVM chain (wei). */
export const EVM_DECIMALS = 18;

/**
 * The `network` label of a node's series: named after the network id where
 * the Data API names it the same way (1 mainnet, 5 fuji), so a wallet's P- and
 * C-Chain balances carry one value; else the node's own network name.
 */
export function networkLabel(known: KnownNodeFacts): string | undefined {
  if (known.networkId === 1) return 'mainnet';
  if (known.networkId === 5) return 'fuji';
  return known.networkName ?? (known.networkId !== undefined ? `network-${known.networkId}` : undefined);
}

/** The geth endpoint of an EVM chain on the node: the C-Chain by alias, an L1 by blockchain id. */
export function evmRpcPath(chain: string): string {
  return `/ext/bc/${chain}/rpc`;
}

async function balanceOf(ctx: PollContext, a: WatchedAddress): Promise<AddressBalance> {
  try {
    const amount = await ctx.rpc.call(evmRpcPath(a.chain), 'eth_getBalance', [a.address, 'latest'], hexQuantity, ctx.deadline);
    return { ...a, amount, decimals: EVM_DECIMALS };
  } catch (err) {
    throw aboutAddress(a, err, ctx.deadline.signal.aborted);
  }
}

/**
 * Native balances of the C-Chain and L1 addresses this node answers for
 * (`addresses` entries whose `rpc_node` is this node, or the first node):
 * `eth_getBalance(address, "latest")` on the chain's geth endpoint, the cheap,
 * key-free path. Polled only on nodes with such addresses. One address that
 * cannot be read fails the source (its log line names the address), as any
 * other source's failed call does: a partial answer would hide the failure.
 */
export const addressBalancesSource = defineNodeSource<AddressBalancesValue>({
  name: 'address_balances',
  rpcMethods: ['eth_getBalance'],
  appliesTo: (node) => (node.addresses?.length ?? 0) > 0,
  async poll(ctx) {
    const network = networkLabel(ctx.known);
    if (network === undefined) {
      // Only before the node's first successful info poll: the labels need the network.
      throw new UpstreamError('invalid_response', 'the node has not reported its network yet (info.getNetworkID), which the balance series are labelled with');
    }
    return { network, balances: await Promise.all((ctx.node.addresses ?? []).map((a) => balanceOf(ctx, a))) };
  },
  collect: collectAddressBalances,
});
