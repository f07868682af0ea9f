import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full
 * collection before it collects again, in percent: 50 means one and a half
 * times the live size. V8's own factor adapts between 1.1 and 4; for a daemon
 * that keeps ~25 MB live and turns over a mainnet-sized exposition every
 * round, 4 lets ~75 MB of dead rounds pile up (scenario B, a mainnet-sized
 * round back to back: ~170 MB RSS; ~125 MB at 100). 50 rather than 100 since
 * young objects are no longer pretenured ({@link PRETENURING_FLAG}): less
 * garbage reaches the old generation, so its more frequent full collections
 * cost little. Measured with pretenuring off, 100 → 50: scenario F at 1,000
 * nodes RSS median 320 → 290 MB (growth per node 242 → 212 KB) for 7.19 →
 * 7.65 ms of CPU per node round; scenario B peak 145 → 131 MB, 1.01x → 1.14x
 * its floor (two runs each); the sidecar unchanged (docs/resource-use.md).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * V8's allocation-site pretenuring off: V8 watches which allocation sites'
 * objects survive young-generation collections and, past a survival rate,
 * allocates that site's objects in the old generation from then on. The
 * decision is not taken back: V8's src/heap/pretenuring-handler.cc moves a
 * site only out of "undecided" or "maybe tenure", and only a full collection
 * that finds under 10 % of the old generation alive resets the sites
 * (src/heap/heap.cc, EvaluateOldSpaceLocalPretenuring); a fleet keeps most of
 * it. The exporter's busiest moment is its start (a fleet's first rounds all
 * at once, the event loop saturated), when the objects of an answer being
 * read (info.peers entries, a health report's objects) do live long: their
 * sites were tenured then, although in the steady state the same objects die
 * as soon as the answer is read (81 % of mainnet info.peers answers at 1,000
 * nodes were read within one 5 ms slice). At 1,000 nodes that was half of all
 * bytes promoted (a sampling heap profile over 30 s in the steady state:
 * 528 → 274 MB promoted without it; the peer entries alone 97 → 11 MB) and
 * 11 % of the CPU per node round (scenario F, two runs each: 7.95 / 7.76 →
 * 6.95 / 6.92 ms).
 */
export const PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/** A V8 flag the daemon sets unless the operator's command line already gives it, in any spelling (`-`/`_`, `--no-` or not). */
interface Tuning {
  flag: string;
  given: RegExp;
}

const TUNINGS: readonly Tuning[] = [
  { flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}`, given: /^--heap[-_]growing[-_]percent(=|$)/ },
  { flag: PRETENURING_FLAG, given: /^--(no[-_])?allocation[-_]site[-_]pretenuring$/ },
];

/**
 * Sets this process's V8 heap tuning: the growing factor
 * ({@link HEAP_GROWING_PERCENT}) and no allocation-site pretenuring
 * ({@link PRETENURING_FLAG}), each unless the operator chose it
 * (`node --heap-growing-percent=N`, `node --allocation-site-pretenuring`;
 * NODE_OPTIONS cannot carry either). The growing factor is only read by the
 * collector's heuristics after each full collection, and pretenuring
 * decisions are only made at collections, so setting both at run time, before
 * the daemon starts, takes effect for all it does. Returns the flags set.
 */
export function tuneHeap(execArgv: readonly string[] = process.execArgv): string[] {
  const set: string[] = [];
  for (const t of TUNINGS) {
    if (execArgv.some((a) => t.given.test(a))) continue;
    setFlagsFromString(t.flag);
    set.push(t.flag);
  }
  return set;
}
