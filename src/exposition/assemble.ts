import { FAILURE_REASONS } from '../http/errors.js';
import type { AnySource } from '../sources/source.js';
import type { SourceState } from '../state/store.js';
import { samplesOf, type MadeSamples, type Sample, type SampleGroup } from '../metrics/metric-defs.js';
import { isFresh, sourceMaxAgeMs, type MaxAges } from '../config/max-age.js';

/**
 * Inputs of one exposition: the state, the collectors, the time it is for and
 * the max ages in force (config/max-age.ts: the poll's, the pollers' own by
 * poller name, the stretch of sources polled less often by source name).
 */
export interface AssembleInput extends MaxAges {
  states: readonly SourceState[];
  /** Collector of each source, by source name. */
  sources: ReadonlyMap<string, AnySource>;
  nowMs: number;
  build: { version: string; revision: string; nodejs: string };
  ready: boolean;
  /** Samples that belong to no source value, such as the Data API client's 429 counter. */
  extra?: readonly Sample[];
}

/**
 * Turns the state into samples: each fresh source value through its
 * collector, plus the exporter's own series. A value older than the max age
 * yields nothing, so no stale number ever looks current.
 */
export function assembleSamples(input: AssembleInput): Sample[] {
  const out: Sample[] = [];
  // A loop, not push(...spread): a 20,000-validator set is more samples than a call's argument limit.
  for (const g of new SampleAssembler().assemble(input)) for (const s of samplesOf(g)) out.push(s);
  return out;
}

/**
 * Assembles the state into groups of samples (the exporter's own series, then
 * per source state its collected samples, one group or its collector's
 * groups, then the pollers' self-metrics), in the order
 * assembleSamples lists them. A value's groups are kept while the state
 * holds that same value, and the same group objects are returned for it:
 * source values are immutable (a poll returns a new value or the previous one
 * untouched), so an unchanged value needs neither collecting nor, in the
 * renderer, formatting again. The groups keep what their samples are made
 * from (the value, a snapshot of a poller's counters), not the samples: the
 * renderer asks for them once and keeps their lines.
 */
export class SampleAssembler {
  /** Collected samples by value; an entry goes with its value. */
  #collected = new WeakMap<object, { def: AnySource; target: string; groups: readonly SampleGroup[] }>();
  /**
   * Each poller's own series as of its states' last polls, by poller name (a
   * removed node's entry is replaced or left small): those every poll
   * changes, and those only a failure or a new max age changes (two thirds
   * of them: a failure counter per source and reason), in groups of their
   * own so that the renderer keeps the second's formatted and compressed
   * lines from round to round.
   */
  #owned = new Map<
    string,
    { states: readonly SourceState[]; polls: number[]; failures: number[]; maxAges: readonly number[]; polled: MadeSamples; steady: MadeSamples }
  >();

  /** The groups of samples of the state at `input.nowMs`. */
  assemble(input: AssembleInput): SampleGroup[] {
    const groups: SampleGroup[] = [
      [
        { name: 'avax_exporter_build_info', labels: input.build, value: 1 },
        { name: 'avax_exporter_ready', labels: {}, value: input.ready ? 1 : 0 },
        ...(input.extra ?? []),
      ],
    ];
    // The states' own series go last, two groups per poller: their series share the `node` label, which tells the renderer no other group can repeat them.
    const byNode = new Map<string, { states: SourceState[]; maxAges: number[] }>();
    for (const s of input.states) {
      const def = input.sources.get(s.source);
      const maxAgeMs = sourceMaxAgeMs(input, s.node, s.source);
      const fresh = s.value !== undefined && isFresh(s.lastSuccessMs, input.nowMs, maxAgeMs);
      if (def && fresh) for (const g of this.#collect(def, s.value, s.node)) groups.push(g);
      let own = byNode.get(s.node);
      if (!own) byNode.set(s.node, (own = { states: [], maxAges: [] }));
      own.states.push(s);
      own.maxAges.push(maxAgeMs);
    }
    for (const [node, own] of byNode) {
      const { polled, steady } = this.#own(node, own.states, own.maxAges);
      groups.push(polled, steady);
    }
    return groups;
  }

  /**
   * A poller's states' own series: each of the two groups the same object
   * while none of its series changed (every poll counts in `polls`, every
   * failure in `failures`) and the states and their max ages hold. The
   * states change in place, so each group makes its samples from a snapshot
   * of them taken now.
   */
  #own(node: string, states: readonly SourceState[], maxAges: readonly number[]): { polled: MadeSamples; steady: MadeSamples } {
    const hit = this.#owned.get(node);
    const same = hit !== undefined && hit.states.length === states.length && states.every((s, i) => hit.states[i] === s && hit.maxAges[i] === maxAges[i]);
    if (same && states.every((s, i) => hit.polls[i] === s.polls)) return hit;
    const failures = states.map(failureCount);
    const polled = polledGroup(states);
    const steady = same && failures.every((f, i) => hit.failures[i] === f) ? hit.steady : steadyGroup(states, maxAges);
    const entry = { states, polls: states.map((s) => s.polls), failures, maxAges, polled, steady };
    this.#owned.set(node, entry);
    return entry;
  }

  /** A value's groups of samples: collectGroups' when the source has it, else collect's list as one group. */
  #collect(def: AnySource, value: unknown, target: string): readonly SampleGroup[] {
    if (typeof value !== 'object' || value === null) return def.collectGroups ? def.collectGroups(value, target) : [def.collect(value, target)];
    const hit = this.#collected.get(value);
    if (hit && hit.def === def && hit.target === target) return hit.groups;
    // collect is pure and the value immutable: the group can make the same samples again whenever a renderer asks.
    const groups = def.collectGroups ? def.collectGroups(value, target) : [{ make: () => def.collect(value, target) }];
    this.#collected.set(value, { def, target, groups });
    return groups;
  }
}

/** Failed polls of a state, all reasons together: what changes its failure counters. */
function failureCount(s: SourceState): number {
  let n = 0;
  for (const reason of FAILURE_REASONS) n += s.failures[reason];
  return n;
}

/** What a poll changes of a source state's own series, as of a moment. */
interface PolledSnapshot {
  node: string;
  source: string;
  up: boolean | undefined;
  lastSuccessMs: number | undefined;
  lastDurationSeconds: number | undefined;
  polls: number;
}

/** The exporter's series about some source states that a poll changes (up, last success, duration, polls), as they are now. */
function polledGroup(states: readonly SourceState[]): MadeSamples {
  const snapshots: PolledSnapshot[] = states.map((s) => ({
    node: s.node,
    source: s.source,
    up: s.up,
    lastSuccessMs: s.lastSuccessMs,
    lastDurationSeconds: s.lastDurationSeconds,
    polls: s.polls,
  }));
  return {
    make: () => {
      const own: Sample[] = [];
      for (const s of snapshots) polledSamples(s, own);
      return own;
    },
  };
}

/** The exporter's series about one source state that a poll changes: up, last success, duration, polls. */
function polledSamples(s: PolledSnapshot, own: Sample[]): void {
  const labels = { node: s.node, source: s.source };
  if (s.up !== undefined) own.push({ name: 'avax_source_up', labels, value: s.up ? 1 : 0 });
  if (s.lastSuccessMs !== undefined) own.push({ name: 'avax_source_last_success_timestamp_seconds', labels, value: s.lastSuccessMs / 1000 });
  if (s.lastDurationSeconds !== undefined) own.push({ name: 'avax_source_poll_duration_seconds', labels, value: s.lastDurationSeconds });
  own.push({ name: 'avax_source_polls_total', labels, value: s.polls });
}

/** The exporter's series about some source states that only a failure or a new max age changes, as they are now. */
function steadyGroup(states: readonly SourceState[], maxAges: readonly number[]): MadeSamples {
  const snapshots = states.map((s) => ({ node: s.node, source: s.source, failures: FAILURE_REASONS.map((reason) => s.failures[reason]) }));
  return {
    make: () => {
      const own: Sample[] = [];
      snapshots.forEach((s, i) => steadySamples(s.node, s.source, maxAges[i] as number, s.failures, own));
      return own;
    },
  };
}

/** The exporter's series about one source state that only a failure or a new max age changes: max age and failures by reason (in FAILURE_REASONS' order). */
function steadySamples(node: string, source: string, maxAgeMs: number, failures: readonly number[], own: Sample[]): void {
  const labels = { node, source };
  own.push({ name: 'avax_source_max_age_seconds', labels, value: maxAgeMs / 1000 });
  FAILURE_REASONS.forEach((reason, i) => {
    // A literal, not a spread: V8 gives every object a spread makes in hot code a hidden class of its own (23 KB per polled node).
    own.push({ name: 'avax_source_poll_failures_total', labels: { node, source, reason }, value: failures[i] as number });
  });
}
