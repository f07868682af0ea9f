import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full
 * collection before it collects again, in percent: 100 means twice the live
 * size. V8's own factor adapts between 1.1 and 4; for a daemon that keeps
 * ~25 MB live and turns over a mainnet-sized exposition every round, 4 lets
 * ~75 MB of dead rounds pile up. With 100, scenario B (a mainnet-sized round
 * back to back) ends at ~125 MB RSS instead of ~170 MB, for a full
 * collection every other round: +~20 ms of CPU per round there, nothing
 * worth measuring at a 15 s interval (docs/performance.md).
 */
export const HEAP_GROWING_PERCENT = 100;

const GIVEN = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's heap growing factor for this process, unless the operator chose
 * one (`node --heap-growing-percent=N`, which NODE_OPTIONS cannot carry).
 * The flag is only read by the collector's heuristics after each full
 * collection, so setting it at run time takes effect from the next one.
 * Returns the flag set, or undefined when the operator's stands.
 */
export function tuneHeap(execArgv: readonly string[] = process.execArgv): string | undefined {
  if (execArgv.some((a) => GIVEN.test(a))) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlagsFromString(flag);
  return flag;
}
