import type { NodeConfig } from '../config/load.js';
import type { Deadline, JsonRpcClient } from '../http/json-rpc.js';
import type { HttpResponse } from '../http/transport.js';
import type { MetricDef, Sample } from '../metrics/metric-defs.js';
import type { StatusKit } from '../status/status-kit.js';
import type { ValueChange } from '../state/store.js';

export type { ValueChange } from '../state/store.js';
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
  /**
   * The identity source: asked first in every round. A node that fails it
   * because it cannot be reached or is on another network fails the whole
   * round (every other source down, nothing asked). One per registry.
   */
  readonly identity?: boolean;
  /**
   * What a successful value teaches the poller about the node, for the
   * sources polled after it (the identity source runs first, so its facts
   * serve the rest of the same round). Pure.
   */
  learn?(value: T): Partial<KnownNodeFacts>;
  /**
   * The changes between two successive values worth one log line each
   * (`previous` undefined: the first value). Pure.
   */
  changes?(previous: T | undefined, next: T): ValueChange[];
  /**
   * Least time between two successful polls (default: every round). A source
   * that is not due sits the round out and its last value stands; its max age
   * is stretched by as much.
   */
  minIntervalMs?(poll: PollTiming): number;
  /** Its part of the status page (the landing page's status view). */
  readonly status?: StatusSection<T>;
  /**
   * Metric definitions of a source that is not part of the product's
   * contract (src/metrics/metric-defs.ts defines every product metric):
   * a source added by a test or a fork declares its metrics here.
   */
  readonly metrics?: Readonly<Record<string, MetricDef>>;
}

/** The poll settings a source's interval may depend on. */
export interface PollTiming {
  intervalMs: number;
  /** `--poll.peers-interval`. */
  peersIntervalMs: number;
}

/**
 * A source's part of the status page. Everything upstream-derived goes
 * through the kit's escaping helpers.
 */
export interface StatusSection<T> {
  /** Position on the page: lower first. */
  readonly order: number;
  /** Badges shown with the node's name (each judged into the node's level). */
  badges?(value: T, kit: StatusKit, view: StatusView): string[];
  /** An HTML section of the node's part of the page ('' for none). */
  section?(value: T, kit: StatusKit, view: StatusView): string;
}

/** What a status section may read besides its own value. */
export interface StatusView {
  readonly nowMs: number;
  /** Another source's current value on the same node (its definition, not its name, says which). */
  valueOf<U>(def: SourceDef<U, never>): U | undefined;
  /** Another source's value on any node (the first that has one). */
  anyValueOf<U>(def: SourceDef<U, never>): U | undefined;
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
