/**
 * The shape every source has, node or Data API: `poll` does the I/O and
 * returns a validated, typed value (or throws an UpstreamError); `collect` is
 * the pure collector that turns that value into samples; the other hooks are
 * how the rest of the exporter works with it. The hooks that make sense for
 * one family only live on that family's type: src/sources/node/source.ts
 * (`NodeSourceDef`: identity, learn, appliesTo(node)) and
 * src/sources/data-api/source.ts (`DataApiSourceDef`: appliesTo(config)).
 * src/sources/catalog.ts lists them.
 */
import type { Deadline } from '../http/json-rpc.js';
import type { MetricDef, Sample, SampleGroup } from '../metrics/metric-defs.js';
import type { StatusKit } from '../status/status-kit.js';
import type { ValueChange } from '../state/store.js';

export type { ValueChange } from '../state/store.js';

/** The deadline part every poll context has. */
export interface BaseContext {
  readonly deadline: Deadline;
  /** 0 for the first round of this poller, then increasing. */
  readonly round: number;
}

/**
 * A source: one kind of upstream data, polled with the context `C` its family
 * gives (a node's JSON-RPC client, or the Data API's).
 */
export interface SourceDef<T, C = BaseContext> {
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
   * Optional, pure: `collect`'s samples split into groups which, one after
   * the other, are exactly `collect`'s list. A group returned again as the
   * same object (an unchanged entry of a large value, such as one validator
   * of a mainnet set) is not formatted or encoded again by the exposition;
   * so a group must never be edited once returned. A group that makes its
   * samples when asked (MadeSamples) lets them go once formatted.
   */
  collectGroups?(value: T, target: string): readonly SampleGroup[];
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

/**
 * A source of any family and any value type, seen from its read side (name,
 * collect, changes, minIntervalMs, status, metrics): what the state store,
 * the exposition and the status page work with. Every `SourceDef<T, C>` is
 * one, without a cast (its poll context is never asked for here).
 */
export type AnySource = SourceDef<unknown, never>;

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
