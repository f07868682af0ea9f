/**
 * Child role `fake`: one mainnet-scale fake node, or a fleet of them sharing
 * one world (each with its own node id), served by the project's FakeNode.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import { join } from 'node:path';
import { FakeNode, type FakeCall } from '../../fakes/fake-node.js';
import { MAINNET, mainnetWorld } from './world.js';
import type { Role } from './child.js';
import { askBody, type ReplayRequest } from './replay.js';

/** Arguments of the fake role. */
export interface FakeArgs {
  /** How many nodes (1 for the mainnet node, 50 for the fleet). */
  count: number;
  /** Index of this process's first node in the world's validator list (a fleet split over several processes: each node a distinct validator). */
  offset?: number;
}

/** What the fake role reports at start. */
export interface FakeInfo {
  urls: string[];
  /** Node id of each node. */
  nodeIds: string[];
  validators: number;
  l1Validators: number;
  peers: number;
  /** Size of the answers that matter, from the first node (bytes). */
  allValidatorsBytes: number;
  peersBytes: number;
  healthBytes: number;
  /** Idle keep-alive timeout of the fake nodes (ms); 5000 when it could not be set. */
  idleTimeoutMs: number;
}

/**
 * AvalancheGo keeps idle API connections for 120 s (--http-idle-timeout); a
 * node:http server closes them after 5 s, which with a 15 s poll interval would
 * make every round open new connections. The benchmark's fake nodes behave like
 * the real ones: this process serves nothing but fakes, so every HTTP server it
 * creates gets AvalancheGo's idle timeout (counted, so the report can say
 * whether it took effect).
 */
const AVALANCHEGO_IDLE_TIMEOUT_MS = 120_000;
let serversWithIdleTimeout = 0;
{
  const createServer = http.createServer.bind(http) as (...args: unknown[]) => Server;
  (http as { createServer: unknown }).createServer = (...args: unknown[]): Server => {
    const server = createServer(...args);
    server.keepAliveTimeout = AVALANCHEGO_IDLE_TIMEOUT_MS;
    serversWithIdleTimeout++;
    return server;
  };
}

/** Upstream calls received since the last `calls`. */
export interface CallCounts {
  total: number;
  /** Distinct call (HTTP method, path, query, RPC method, params) → count, over all nodes. */
  byCall: Record<string, number>;
}

/**
 * A call's kind: its key with node ids written as `NodeID-*`, so the same call
 * of every node of a fleet (its own validator looked up, say) is one kind.
 */
export const callKind = (key: string): string => key.replace(/NodeID-[1-9A-HJ-NP-Za-km-z]+/g, 'NodeID-*');

/** One kind of call received since the last `calls` or `bodies`, with the body of one of them as answered again. */
export interface RecordedKind {
  kind: string;
  count: number;
  /** One of them, to ask again (the exchange floor, role-floor.ts). */
  request: ReplayRequest;
  /** File holding the answer's body (as the fake serves it now: the same state, so the same bytes up to clocks). */
  file: string;
  bytes: number;
}

/** Upstream calls received since the last `calls` or `bodies`, by kind, one answer of each written to a file. */
export interface RecordedCalls {
  total: number;
  kinds: RecordedKind[];
  /** Exact call (as {@link CallCounts.byCall}) → count. */
  byCall: Record<string, number>;
}

/**
 * Groups `calls` by kind and asks one of each again (`requestOf` says how),
 * writing its body to `dir`: what a poll round received, to time parsing it
 * (the floor) and to ask it again with a bare client (the exchange floor).
 */
export async function recordBodies<C>(
  calls: Iterable<C>,
  keyOf: (c: C) => string,
  requestOf: (c: C) => ReplayRequest,
  dir: string,
  prefix: string,
): Promise<RecordedCalls> {
  const groups = new Map<string, { count: number; first: C }>();
  const byCall: Record<string, number> = {};
  let total = 0;
  for (const c of calls) {
    const key = keyOf(c);
    byCall[key] = (byCall[key] ?? 0) + 1;
    const kind = callKind(key);
    const g = groups.get(kind);
    if (g) g.count++;
    else groups.set(kind, { count: 1, first: c });
    total++;
  }
  const kinds: RecordedKind[] = [];
  let i = 0;
  for (const [kind, g] of groups) {
    const request = requestOf(g.first);
    const body = await askBody(request);
    const file = join(dir, `${prefix}-${i++}.body`);
    writeFileSync(file, body);
    kinds.push({ kind, count: g.count, request, file, bytes: body.length });
  }
  return { total, kinds, byCall };
}

function callKey(c: FakeCall): string {
  const rpc = c.rpcMethod === undefined ? '' : ` ${c.rpcMethod} ${JSON.stringify(c.params ?? null)}`;
  return `${c.httpMethod} ${c.path}${c.query}${rpc}`;
}

async function bodySize(url: string, init?: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  return (await res.arrayBuffer()).byteLength;
}

function rpc(method: string, params: unknown = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) };
}

/** The request that asks a fake node the same as `c` again. */
function requestOfCall(base: string, c: FakeCall): ReplayRequest {
  const url = `${base}${c.path}${c.query}`;
  if (c.rpcMethod === undefined) return { url, method: c.httpMethod };
  return { url, method: c.httpMethod, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: c.rpcMethod, params: c.params ?? {} }) };
}

export async function startFakeRole(raw: unknown): Promise<Role> {
  const args = raw as FakeArgs;
  const world = mainnetWorld(MAINNET);
  const validators = world.primaryValidators ?? [];
  const nodes: FakeNode[] = [];
  for (let i = 0; i < args.count; i++) {
    // Shallow override: the validator, peer and health objects are shared by every node of the fleet.
    const at = (args.offset ?? 0) + i;
    const nodeId = at === 0 ? (world.nodeId as string) : (validators[at % validators.length]?.nodeId ?? world.nodeId);
    nodes.push(await FakeNode.start({ state: { ...world, nodeId }, maxCalls: 200_000 }));
  }
  const first = nodes[0];
  if (!first) throw new Error('no fake node');
  const info: FakeInfo = {
    urls: nodes.map((n) => n.url),
    nodeIds: nodes.map((n) => n.state.nodeId),
    validators: validators.length,
    l1Validators: Object.values(world.subnets ?? {}).reduce((n, s) => n + s.validators.filter((v) => 'validationId' in v).length, 0),
    peers: world.peers?.length ?? 0,
    allValidatorsBytes: await bodySize(`${first.url}/ext/bc/P`, rpc('platform.getCurrentValidators')),
    peersBytes: await bodySize(`${first.url}/ext/info`, rpc('info.peers')),
    healthBytes: await bodySize(`${first.url}/ext/health`),
    idleTimeoutMs: serversWithIdleTimeout >= nodes.length ? AVALANCHEGO_IDLE_TIMEOUT_MS : 5_000,
  };
  for (const n of nodes) n.clearCalls();
  return {
    info,
    handlers: {
      calls: (): CallCounts => {
        const byCall: Record<string, number> = {};
        let total = 0;
        for (const n of nodes) {
          for (const c of n.calls) {
            const k = callKey(c);
            byCall[k] = (byCall[k] ?? 0) + 1;
            total++;
          }
          n.clearCalls();
        }
        return { total, byCall };
      },
      /** The calls since the last `calls` or `bodies` by kind, one answer of each written to `dir` (see {@link recordBodies}). */
      async bodies(a: unknown): Promise<RecordedCalls> {
        const { dir } = a as { dir: string };
        mkdirSync(dir, { recursive: true });
        const calls = nodes.flatMap((n) => n.calls.map((c) => ({ c, url: n.url })));
        for (const n of nodes) n.clearCalls();
        return recordBodies(
          calls,
          (x) => callKey(x.c),
          (x) => requestOfCall(x.url, x.c),
          dir,
          `node${args.offset ?? 0}`,
        );
      },
    },
    close: async () => {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
