import type { NodeConfig } from '../config/load.js';
import type { Deadline, JsonRpcClient } from '../http/json-rpc.js';
import type { HttpResponse } from '../http/transport.js';
import type { Sample } from '../exposition/metric-defs.js';
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
}

/** Everything a source may use during one poll. I/O only goes through these. */
export interface PollContext extends BaseContext {
  readonly node: NodeConfig;
  readonly rpc: JsonRpcClient;
  /** GET a path of the node (health endpoints); any status is returned. */
  readonly get: (path: string) => Promise<HttpResponse>;
  readonly known: KnownNodeFacts;
  /** Network-wide data fetched once for every node of the network (absent: each node fetches its own). */
  readonly network?: NetworkShared;
}

/**
 * A source: one kind of upstream data for a node. `poll` does the I/O and
 * returns a validated, typed value (or throws an UpstreamError); `collect` is
 * the pure collector that turns that value into samples.
 */
export interface SourceDef<T, C = PollContext> {
  /** The `source` label value. */
  readonly name: string;
  /**
   * Polls the target. `previous` is the last successful value, for data
   * refreshed less often. Values are immutable: return a new value or
   * `previous` untouched, never a mutated `previous` (the exposition keeps
   * each value's collected and formatted series by identity, so an edit in
   * place would leave the old numbers served).
   */
  poll(ctx: C, previous: T | undefined): Promise<T>;
  /** Pure: value in, samples out; `target` is the poller's name (the `node` label of node sources). */
  collect(value: T, target: string): Sample[];
  /**
   * Whether this source has anything to ask of a node with this configuration
   * (default: yes). A source with nothing to ask is not polled at all, rather
   * than reporting "up" for a node it never talked to.
   */
  appliesTo?(node: NodeConfig): boolean;
}

/** Helper that keeps the value type of a source definition. */
export function defineSource<T, C = PollContext>(def: SourceDef<T, C>): SourceDef<T, C> {
  return def;
}

/** The deadline part every poll context has. */
export interface BaseContext {
  readonly deadline: Deadline;
  /** 0 for the first round of this poller, then increasing. */
  readonly round: number;
}

/** Rounds between refreshes of data that rarely changes (version, upgrades, chain lists). */
export const SLOW_REFRESH_ROUNDS = 20;
