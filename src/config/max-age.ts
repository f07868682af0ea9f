/**
 * How long a source's value (and so its series) stays served after its last
 * success: the one rule the configuration's defaults, the store's expiry, the
 * exposition's `avax_source_max_age_seconds` and `/probe`'s answer all follow.
 *
 * - By default a node's sources keep their value for 3 poll intervals
 *   (`poll.max_age`); a poller slower than the node rounds (the Data API) keeps
 *   its own for at least 3 of its own intervals.
 * - A source asked less often than every round (its `minIntervalMs` hook:
 *   info.peers) is stretched by that interval, so it does not expire between
 *   two of its calls; but only while its node keeps answering: once the
 *   node's rounds fail, every value goes with the max age counted from the
 *   node's last good round (store.ts).
 */

/** Series outlive their source's last success by this many of its poll intervals, by default. */
const INTERVALS_KEPT = 3;

/** The default `poll.max_age` for a poll interval. */
export function defaultMaxAgeMs(intervalMs: number): number {
  return INTERVALS_KEPT * intervalMs;
}

/** The max age of a poller with its own, longer interval (the Data API's): the poll max age, at least 3 of its intervals. */
export function slowPollerMaxAgeMs(pollMaxAgeMs: number, intervalMs: number): number {
  return Math.max(pollMaxAgeMs, INTERVALS_KEPT * intervalMs);
}

/** The max ages in force: the poll's, the pollers' own (by node label) and the stretch of sources asked less often (by source name). */
export interface MaxAges {
  maxAgeMs: number;
  maxAgeByNode?: ReadonlyMap<string, number> | undefined;
  extraMaxAgeBySource?: ReadonlyMap<string, number> | undefined;
}

/** The max age of a node's (or poller's) values, before any stretch of a source's own. */
export function nodeMaxAgeMs(ages: MaxAges, node: string): number {
  return ages.maxAgeByNode?.get(node) ?? ages.maxAgeMs;
}

/** The max age of one source of one node: its node's, stretched by the source's least interval. */
export function sourceMaxAgeMs(ages: MaxAges, node: string, source: string): number {
  return nodeMaxAgeMs(ages, node) + (ages.extraMaxAgeBySource?.get(source) ?? 0);
}

/** Whether a value last fetched at `lastSuccessMs` is still served at `nowMs`. */
export function isFresh(lastSuccessMs: number | undefined, nowMs: number, maxAgeMs: number): boolean {
  return lastSuccessMs !== undefined && nowMs - lastSuccessMs <= maxAgeMs;
}
