/**
 * What the demo node's JSON-RPC methods share: resolving a chain's alias or id to the state's
 * key, and decoding ID arguments as AvalancheGo does (an invalid ID is an argument error).
 *
 * @packageDocumentation
 */
import { chainCreated } from './health.js';
import { isCb58Id, isCb58NodeId } from './ids.js';
import type { FakeNodeState } from './node-state.js';
import { field, InvalidArgs, optString } from './wire.js';

/** Maps an alias (P/platform, X/avm, C/evm), a primary chain ID or an L1 chain ID (or its alias) to its state key. */
export function chainKey(state: FakeNodeState, alias: string): string | undefined {
  const { P, X, C } = state.chainIds;
  if (alias === 'P' || alias === 'platform' || alias === P) return 'P';
  if (alias === 'X' || alias === 'avm' || alias === X) return 'X';
  if (alias === 'C' || alias === 'evm' || alias === C) return 'C';
  if (Object.hasOwn(state.bootstrapped, alias)) return alias;
  const aliased = state.chainAliases?.[alias];
  if (aliased !== undefined && Object.hasOwn(state.bootstrapped, aliased)) return aliased;
  return undefined;
}

/**
 * The chain manager's Lookup (an ids.Aliaser, chains/manager.go): the state key of the chain `alias`
 * names, or undefined when the node has no such alias. The genesis aliases (P, platform, X, avm, C,
 * evm) and those of `--chain-aliases-file` are registered at start-up (node/node.go
 * initChainAliases); a chain's own id only once the chain is created (createChain:
 * `m.Alias(id, id.String())`). So while the P-Chain bootstraps, X's, C's and an L1 chain's ids name
 * nothing yet, though `X` does (see chainCreated in health.ts).
 */
export function lookupChain(state: FakeNodeState, alias: string): string | undefined {
  const key = chainKey(state, alias);
  if (key === undefined) return undefined;
  const ownId = key === 'P' || key === 'X' || key === 'C' ? state.chainIds[key] : key;
  return alias === ownId && !chainCreated(state, key) ? undefined : key;
}

/**
 * IDs that are not valid CB58 are accepted when the state itself uses them, so tests may put
 * hand-written IDs in the state and still query them. A real node would reject them.
 */
export function knowsId(s: FakeNodeState, id: string): boolean {
  return (
    s.nodeId === id ||
    s.primaryValidators.some((v) => v.nodeId === id || v.txId === id) ||
    s.peers.some((p) => p.nodeId === id) ||
    Object.hasOwn(s.subnets, id) ||
    Object.values(s.subnets).some((sub) => sub.validators.some((v) => v.nodeId === id || ('validationId' in v ? v.validationId === id : v.txId === id))) ||
    Object.values(s.l1Uptimes).some((l) => l.some((v) => v.nodeId === id || v.validationId === id)) ||
    s.blockchains.some((b) => b.id === id || b.subnetId === id)
  );
}

/** A list of node IDs argument (`nodeIDs`); nulls are skipped, anything else invalid is an argument error. */
export function nodeIdArgs(state: FakeNodeState, args: Record<string, unknown>, name: string): string[] {
  const v = field(args, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new InvalidArgs();
  const out: string[] = [];
  for (const e of v) {
    if (e === null) continue;
    if (typeof e !== 'string' || !(isCb58NodeId(e) || knowsId(state, e))) throw new InvalidArgs();
    out.push(e);
  }
  return out;
}

/** An optional 32-byte ID argument (`subnetID`, `validationID`). */
export function idArg(state: FakeNodeState, args: Record<string, unknown>, name: string): string | undefined {
  const v = optString(args, name);
  if (v === undefined) return undefined;
  if (!(isCb58Id(v) || knowsId(state, v))) throw new InvalidArgs();
  return v;
}
