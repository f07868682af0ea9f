import { z } from 'zod';
import { checkPAddress, idProblem, isValidBech32 } from './ids.js';
import type { ValueShown } from './problems.js';

const NAMED = { value: 'named' } as const satisfies ValueShown;

/** Re-exported: the bech32 check lives with the other id checks (ids.ts). */
export { isValidBech32 };

/**
 * The `addresses` section: wallets whose balance keeps something running
 * (fee-paying wallets, relayers), each with an optional floor the alerts
 * compare the balance against. P-Chain balances come from the Data API;
 * C-Chain and L1 (EVM) balances from `eth_getBalance` on a configured node.
 *
 * Its keys are declared in the table of settings (settings.ts); this module
 * holds the rules across them (used by the table), the rules that need the
 * rest of the configuration (used by load.ts) and how `--config.check` prints
 * the section. It imports neither, so no import forms a cycle.
 */

/** One watched address as the exporter runs with it. */
export interface WatchedAddress {
  /** The `alias` label: what the wallet is for. */
  alias: string;
  /** The `chain` label: `P`, `C` or an L1's blockchain id. */
  chain: string;
  /** The `address` label, as configured (`P-avax1…`, or `0x` + 40 hex digits). */
  address: string;
  /** Balance under which the alerts fire, in whole tokens; undefined for an address watched without one. */
  floorAvax?: number;
}

/** The P-Chain address prefixes the Data API serves, and the network each means. */
export const P_CHAIN_HRPS = { avax: 'mainnet', fuji: 'fuji' } as const;

/** `P-<hrp>1` + 32 data characters (a 20-byte address) + 6 checksum characters. */
const P_ADDRESS = /^P-(avax|fuji)1([02-9ac-hj-np-z]{38})$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const CB58_ID = /^[1-9A-HJ-NP-Za-km-z]{40,60}$/;

/** Whether a `chain` value names the P-Chain (balances from the Data API) rather than an EVM chain (balances from a node). */
export function isPChain(chain: string): boolean {
  return chain === 'P';
}

/** The network a P-Chain address belongs to, from its prefix; undefined when it is not one. */
export function networkOfPAddress(address: string): (typeof P_CHAIN_HRPS)[keyof typeof P_CHAIN_HRPS] | undefined {
  const m = P_ADDRESS.exec(address);
  return m ? P_CHAIN_HRPS[m[1] as keyof typeof P_CHAIN_HRPS] : undefined;
}

/** A `chain` value: `P`, `C`, or an id shaped like one, checked as one (checksum, length), so a typo names itself. */
export const addressChainSchema = z.string().superRefine((c, ctx) => {
  if (c === 'P' || c === 'C') return;
  if (!CB58_ID.test(c)) ctx.addIssue({ code: 'custom', message: 'must be P, C or the blockchain id (CB58) of an EVM L1' });
  const problem = CB58_ID.test(c) ? idProblem(c, 'blockchain id') : undefined;
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: NAMED });
});

/** One entry of the validated (file-shaped) section; its keys are declared in the table of settings (settings.ts). */
export interface RawAddress {
  alias: string;
  chain: string;
  address: string;
  floor_avax?: number | undefined;
  rpc_node?: string | undefined;
}

/** The rules across one entry's keys: the address fits its chain, and rpc_node is for EVM chains only. */
export function refineAddressEntry(a: RawAddress, ctx: z.RefinementCtx): void {
  if (isPChain(a.chain)) {
    const checked = checkPAddress(a.address);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: checked.problem, params: NAMED });
    } else if (!(checked.hrp in P_CHAIN_HRPS)) {
      ctx.addIssue({
        code: 'custom',
        path: ['address'],
        message: `"${a.address}" is an address of a ${checked.hrp} network; P-Chain balances come from the Data API, which serves mainnet (P-avax1…) and fuji (P-fuji1…) only`,
        params: NAMED,
      });
    }
    if (a.rpc_node !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['rpc_node'],
        message: 'P-Chain balances come from the Data API; rpc_node is for C-Chain and L1 addresses',
        params: { value: 'hidden' } satisfies ValueShown,
      });
    }
  } else if (!EVM_ADDRESS.test(a.address)) {
    ctx.addIssue({ code: 'custom', path: ['address'], message: 'must be an EVM address: 0x followed by 40 hex digits' });
  }
}

/** The rules across entries: aliases unique, no address listed twice on one chain. */
export function refineAddressList(list: readonly RawAddress[], ctx: z.RefinementCtx): void {
  const aliases = new Map<string, number>();
  const keys = new Map<string, number>();
  list.forEach((a, i) => {
    const prevAlias = aliases.get(a.alias);
    if (prevAlias !== undefined)
      ctx.addIssue({ code: 'custom', path: [i, 'alias'], message: `duplicate alias "${a.alias}" (also addresses[${prevAlias}])`, params: NAMED });
    else aliases.set(a.alias, i);
    // EVM addresses are case-insensitive (mixed case is only a checksum).
    const key = `${a.chain}/${isPChain(a.chain) ? a.address : a.address.toLowerCase()}`;
    const prevKey = keys.get(key);
    if (prevKey !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [i, 'address'],
        message: `${a.address} on chain ${a.chain} is already watched as addresses[${prevKey}]`,
        params: NAMED,
      });
    else keys.set(key, i);
  });
}

/** Where each watched address is asked about. */
export interface ResolvedAddresses {
  /** EVM addresses by the name of the node that answers for them. */
  byNode: Map<string, WatchedAddress[]>;
  /** P-Chain addresses, for the Data API. */
  pChain: WatchedAddress[];
}

function watched(a: RawAddress): WatchedAddress {
  return { alias: a.alias, chain: a.chain, address: a.address, ...(a.floor_avax !== undefined ? { floorAvax: a.floor_avax } : {}) };
}

/**
 * Applies the rules that need the rest of the configuration: an EVM address
 * needs a node to ask (`rpc_node`, default the first one), a P-Chain address
 * needs the Data API on and, when its network is configured, an address of
 * that network. Problems are appended to `problems` with their paths.
 */
export function resolveAddresses(
  raw: readonly RawAddress[] | undefined,
  nodeNames: readonly string[],
  dataApi: { enabled: boolean; network: string | undefined },
  problems: string[],
): ResolvedAddresses {
  const out: ResolvedAddresses = { byNode: new Map(), pChain: [] };
  (raw ?? []).forEach((a, i) => {
    if (isPChain(a.chain)) {
      if (!dataApi.enabled) {
        problems.push(`addresses[${i}].chain: P-Chain balances are read from the Data API, which is turned off (data_api.enabled)`);
        return;
      }
      const network = networkOfPAddress(a.address);
      const configured = dataApi.network === 'testnet' ? 'fuji' : dataApi.network;
      if (configured !== undefined && network !== configured) {
        problems.push(`addresses[${i}].address: ${a.address} is a ${network ?? 'unknown'} address, but data_api.network is ${dataApi.network as string}`);
        return;
      }
      out.pChain.push(watched(a));
      return;
    }
    const node = a.rpc_node ?? nodeNames[0];
    if (node === undefined) {
      problems.push(`addresses[${i}]: ${a.chain === 'C' ? 'C-Chain' : 'L1'} balances are read from a node (eth_getBalance), and no node is configured`);
      return;
    }
    if (!nodeNames.includes(node)) {
      problems.push(`addresses[${i}].rpc_node: no node is named "${node}" (configured: ${nodeNames.join(', ')})`);
      return;
    }
    const list = out.byNode.get(node) ?? [];
    list.push(watched(a));
    out.byNode.set(node, list);
  });
  return out;
}

function printAddress(a: WatchedAddress, rpcNode: string | undefined): Record<string, unknown> {
  return {
    alias: a.alias,
    chain: a.chain,
    address: a.address,
    ...(a.floorAvax !== undefined ? { floor_avax: a.floorAvax } : {}),
    ...(rpcNode !== undefined ? { rpc_node: rpcNode } : {}),
  };
}

/** The section as `--config.check` prints it: each node's addresses (named as their rpc_node), then the P-Chain's; undefined when none. */
export function printAddresses(
  nodes: readonly { name: string; addresses?: readonly WatchedAddress[] | undefined }[],
  pChain: readonly WatchedAddress[] | undefined,
): Record<string, unknown>[] | undefined {
  const out = [...nodes.flatMap((n) => (n.addresses ?? []).map((a) => printAddress(a, n.name))), ...(pChain ?? []).map((a) => printAddress(a, undefined))];
  return out.length > 0 ? out : undefined;
}
