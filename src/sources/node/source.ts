/**
 * The node family: sources polled once per round on each AvalancheGo node,
 * through the round's JSON-RPC client and GET helper. The hooks only a node
 * source has (the identity source asked first, the facts it teaches the
 * others, whether a node has anything to ask) are on {@link NodeSourceDef}.
 */
import type { NodeConfig } from '../../config/load.js';
import type { JsonRpcClient } from '../../http/json-rpc.js';
import type { HttpResponse } from '../../http/transport.js';
import type { BaseContext, SourceDef } from '../source.js';
import type { NetworkShared } from './network-shared.js';

/** Facts about a node learned by earlier polls, shared with later ones. */
export interface KnownNodeFacts {
  /** The node's own id (from info.getNodeID). */
  nodeId?: string;
  /** The network id seen on the first successful poll; a change is a failure. */
  networkId?: number;
  /** The network's name (mainnet, fuji, ...). */
  networkName?: string;
  /**
   * The node's own version (`avalanchego/1.14.2`, from info.getNodeVersion),
   * refreshed with the rest of the identity; the peers source compares it
   * with the version most connected stake runs.
   */
  version?: string;
  /**
   * Activation (Unix seconds) of the upgrade that raises the reward uptime
   * requirement (REWARD_UPTIME_UPGRADE, from info.upgrades); undefined while
   * it is not scheduled.
   */
  rewardUptimeUpgradeTime?: number;
  /** Activation times (Unix seconds) of the upgrades the node's network defines (info.upgrades): the upgrade times a peer may report. */
  upgradeTimes?: readonly number[];
}

/** Everything a node source may use during one poll. I/O only goes through these. */
export interface PollContext extends BaseContext {
  readonly node: NodeConfig;
  readonly rpc: JsonRpcClient;
  /** GET a path of the node (health endpoints); any status is returned. */
  readonly get: (path: string) => Promise<HttpResponse>;
  readonly known: KnownNodeFacts;
  /** Network-wide data fetched once for every node of the network (absent: each node fetches its own). */
  readonly network?: NetworkShared;
}

/** A node source: the generic shape plus the hooks only a node poller calls. */
export interface NodeSourceDef<T> extends SourceDef<T, PollContext> {
  /**
   * Whether this source has anything to ask of a node with this configuration
   * (default: yes). A source with nothing to ask is not polled at all, rather
   * than reporting "up" for a node it never talked to.
   */
  appliesTo?(node: NodeConfig): boolean;
  /**
   * The identity source: asked first in every round. A node that fails it
   * because it cannot be reached or is on another network fails the whole
   * round (every other source down, nothing asked). One per catalog.
   */
  readonly identity?: boolean;
  /**
   * What a successful value teaches the poller about the node, for the
   * sources polled after it (the identity source runs first, so its facts
   * serve the rest of the same round). Pure.
   */
  learn?(value: T): Partial<KnownNodeFacts>;
  /**
   * The JSON-RPC methods it may call on the node, every one a read. The
   * exporter only ever reads from a node: test/security/secrets.test.ts
   * fails on a call no source of the catalog declares, and on a declared
   * method whose name is not a read's.
   */
  readonly rpcMethods?: readonly string[];
}

/** Helper that keeps the value type of a node source's definition. */
export function defineNodeSource<T>(def: NodeSourceDef<T>): NodeSourceDef<T> {
  return def;
}

/** Rounds between refreshes of data that rarely changes (version, upgrades, chain lists). */
export const SLOW_REFRESH_ROUNDS = 20;
