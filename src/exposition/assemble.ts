import { FAILURE_REASONS } from '../http/errors.js';
import type { SourceDef } from '../sources/source.js';
import type { SourceState } from '../state/store.js';
import type { Sample } from './metric-defs.js';

/** Inputs of one exposition: the state, the collectors, and the time it is for. */
export interface AssembleInput {
  states: readonly SourceState[];
  /** Collector of each source, by source name. */
  sources: ReadonlyMap<string, SourceDef<unknown>>;
  nowMs: number;
  maxAgeMs: number;
  /** Max age of the pollers that have their own (the Data API polls less often than nodes), by poller name. */
  maxAgeByNode?: ReadonlyMap<string, number>;
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
  const out: Sample[] = [
    { name: 'avax_exporter_build_info', labels: input.build, value: 1 },
    { name: 'avax_exporter_ready', labels: {}, value: input.ready ? 1 : 0 },
  ];
  out.push(...(input.extra ?? []));
  for (const s of input.states) {
    const labels = { node: s.node, source: s.source };
    const def = input.sources.get(s.source);
    const maxAgeMs = input.maxAgeByNode?.get(s.node) ?? input.maxAgeMs;
    const fresh = s.value !== undefined && s.lastSuccessMs !== undefined && input.nowMs - s.lastSuccessMs <= maxAgeMs;
    if (def && fresh) {
      // A loop, not push(...spread): a 20,000-validator set is more samples than a call's argument limit.
      for (const sample of def.collect(s.value, s.node)) out.push(sample);
    }
    if (s.up !== undefined) out.push({ name: 'avax_source_up', labels, value: s.up ? 1 : 0 });
    if (s.lastSuccessMs !== undefined) out.push({ name: 'avax_source_last_success_timestamp_seconds', labels, value: s.lastSuccessMs / 1000 });
    if (s.lastDurationSeconds !== undefined) out.push({ name: 'avax_source_poll_duration_seconds', labels, value: s.lastDurationSeconds });
    out.push({ name: 'avax_source_max_age_seconds', labels, value: maxAgeMs / 1000 });
    out.push({ name: 'avax_source_polls_total', labels, value: s.polls });
    for (const reason of FAILURE_REASONS) {
      out.push({ name: 'avax_source_poll_failures_total', labels: { ...labels, reason }, value: s.failures[reason] });
    }
  }
  return out;
}
