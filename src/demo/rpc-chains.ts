/**
 * The demo node's chain APIs: the X-Chain's `avm.getHeight`, an L1's Subnet-EVM validators API
 * (`validators.getCurrentValidators`, uptimes) and the geth-style JSON-RPC of the C-Chain and the
 * L1 chains (`/ext/bc/<chain>/rpc`: block number, chain id, balances), from the node's state.
 *
 * @packageDocumentation
 */
import type { FakeNodeState } from './node-state.js';
import { nodeIdArgs } from './rpc-args.js';
import { dec, isPlainObject, RpcError, text, type Handler, type WireResponse } from './wire.js';

/** The X-Chain's `avm` service. */
export function avmHandlers(state: FakeNodeState): Record<string, Handler> {
  return {
    GetHeight: () => () => ({ height: dec(state.heights.X) }),
  };
}

/** An L1 chain's Subnet-EVM `validators` service (graft/subnet-evm/plugin/evm/service.go). */
export function validatorsHandlers(state: FakeNodeState, chain: string): Record<string, Handler> {
  return {
    GetCurrentValidators: (args) => {
      const nodeIds = nodeIdArgs(state, args, 'nodeIDs');
      return () => ({ validators: l1UptimeList(state, chain, nodeIds) });
    },
  };
}

function l1UptimeList(state: FakeNodeState, chain: string, nodeIds: string[]): unknown[] {
  const list = state.l1Uptimes[chain] ?? [];
  let chosen = list;
  if (nodeIds.length > 0) {
    chosen = [];
    for (const nodeId of new Set(nodeIds)) {
      const v = list.find((e) => e.nodeId === nodeId);
      if (!v) throw new RpcError(`couldn't find validator with node ID ${nodeId}`);
      chosen.push(v);
    }
  }
  return chosen.map((v) => ({
    validationID: v.validationId,
    nodeID: v.nodeId,
    weight: v.weight,
    startTimestamp: v.startTimestamp,
    isActive: v.isActive,
    isL1Validator: v.isL1Validator,
    isConnected: v.isConnected,
    uptimePercentage: v.uptimePercentage,
    uptimeSeconds: v.uptimeSeconds,
  }));
}

/** geth-style JSON-RPC (C-Chain and Subnet-EVM `/rpc`) of `chain` (its state key). */
export function geth(state: FakeNodeState, chain: string, httpMethod: string, contentType: string | undefined, body: string): WireResponse {
  // geth answers bodiless GETs with 200 so load balancers can health-check the port.
  if (httpMethod === 'GET' && body === '') return { status: 200, headers: {}, body: '' };
  if (httpMethod === 'PUT' || httpMethod === 'DELETE') return text(405, 'method not allowed\n', true);
  const mt = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!['application/json', 'application/json-rpc', 'application/jsonrequest'].includes(mt)) {
    return text(415, 'invalid content type, only application/json is supported\n', true);
  }
  const json = (v: unknown): WireResponse => ({
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: `${JSON.stringify(v)}\n`,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    const out = parsed.map((m) => gethOne(state, chain, m)).filter((r) => r !== undefined);
    return out.length === 0 ? { status: 200, headers: {}, body: '' } : json(out);
  }
  const r = gethOne(state, chain, parsed);
  return r === undefined ? { status: 200, headers: {}, body: '' } : json(r);
}

/** geth's argument errors for `eth_getBalance(address, blockNumberOrTag)`, or undefined when the arguments are valid. */
function getBalanceArgsProblem(params: unknown): string | undefined {
  if (params === undefined || params === null) return 'missing value for required argument 0';
  if (!Array.isArray(params)) return 'non-array args';
  if (params.length > 2) return 'too many arguments, want at most 2';
  const [address, block] = params as unknown[];
  if (address === undefined) return 'missing value for required argument 0';
  if (typeof address !== 'string' || !address.startsWith('0x'))
    return 'invalid argument 0: json: cannot unmarshal non-hex string into Go value of type common.Address';
  if (!/^0x[0-9a-fA-F]*$/.test(address)) return 'invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Address';
  if (address.length !== 42) return `invalid argument 0: hex string has length ${address.length - 2}, want 40 for common.Address`;
  if (block === undefined) return 'missing value for required argument 1';
  const tags = ['latest', 'pending', 'earliest', 'finalized', 'safe', 'accepted'];
  if (typeof block !== 'string' || !(tags.includes(block) || /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(block))) return 'invalid argument 1: invalid block number';
  return undefined;
}

function gethOne(state: FakeNodeState, chain: string, msg: unknown): unknown {
  if (!isPlainObject(msg)) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
  const id = msg['id'] ?? null;
  const method = msg['method'];
  const hasId = msg['id'] !== undefined && msg['id'] !== null;
  if (typeof method !== 'string' || method === '') {
    return hasId ? { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } } : undefined;
  }
  const params = msg['params'];
  const fail = (code: number, message: string): unknown => (hasId ? { jsonrpc: '2.0', id, error: { code, message } } : undefined);
  const noArgs = (): string | undefined => {
    if (params === undefined || params === null) return undefined;
    if (!Array.isArray(params)) return 'non-array args';
    if (params.length > 0) return 'too many arguments, want at most 0';
    return undefined;
  };
  let result: unknown;
  switch (method) {
    case 'eth_blockNumber': {
      const bad = noArgs();
      if (bad) return fail(-32602, bad);
      const h = state.heights[chain] ?? 0n;
      result = `0x${h.toString(16)}`;
      break;
    }
    case 'eth_chainId': {
      const bad = noArgs();
      if (bad) return fail(-32602, bad);
      result = `0x${(state.evmChainIds[chain] ?? 0).toString(16)}`;
      break;
    }
    case 'net_version':
      result = String(state.evmChainIds[chain] ?? 0);
      break;
    case 'eth_syncing':
      result = false;
      break;
    case 'eth_getBalance': {
      const bad = getBalanceArgsProblem(params);
      if (bad) return fail(-32602, bad);
      const [address, block] = params as [string, string];
      // A block above the head is unknown to geth; every other block reads the current balance
      // (the fake keeps no history).
      if (/^0x[0-9a-fA-F]+$/.test(block) && BigInt(block) > (state.heights[chain] ?? 0n)) return fail(-32000, 'header not found');
      result = `0x${(state.evmBalances?.[chain]?.[address.toLowerCase()] ?? 0n).toString(16)}`;
      break;
    }
    default:
      return fail(-32601, `the method ${method} does not exist/is not available`);
  }
  return hasId ? { jsonrpc: '2.0', id, result } : undefined;
}
