/**
 * The daemon's V8 heap tuning: set at run time (NODE_OPTIONS cannot carry
 * the flags), the growing factor must actually change how often the collector
 * runs a full collection, pretenuring off must keep young objects young after
 * a start that kept them long, and neither may override an operator's own
 * choice. Each case runs in a child process, since V8 flags are process-wide,
 * with the runtime environment the image and the systemd unit ship (its
 * 2 x 8 MB young generation: with Node 24's larger default, the churn's
 * garbage would die young and never reach the old generation the growing
 * factor is about).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, PRETENURING_FLAG } from './heap-tuning.js';
import { DAEMON_RUNTIME_ENV } from '../../test/tools/bench/runtime-env.js';

/**
 * Keeps ~20 MB live and replaces all of it 60 times, each generation
 * surviving long enough to reach the old generation: the garbage that poll
 * rounds leave. Prints what tuneHeap returned and the full collections seen.
 */
const CHURN = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { tuneHeap } from './src/runtime/heap-tuning.ts';
const set = process.env.TUNE === '1' ? tuneHeap() : 'not called';
let major = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++; }).observe({ entryTypes: ['gc'] });
const live = new Array(20000);
for (let r = 0; r < 60; r++) {
  for (let i = 0; i < live.length; i++) live[i] = { s: String(r).repeat(1000) + i, a: [i, r] };
  await new Promise((res) => setImmediate(res));
}
await new Promise((res) => setTimeout(res, 50));
console.log(JSON.stringify({ set, major }));
`;

/**
 * The start of a fleet, then its steady state: objects of one allocation
 * site first live across many young-generation collections (the answers of a
 * saturated start, read slowly), then one more is made (the same answer read
 * in one go in the steady state). Prints what tuneHeap returned and how many
 * of 1,000 such objects V8 put in the young generation: none once it has
 * decided to pretenure the site. V8's own test hook (%InYoungGeneration,
 * behind --allow-natives-syntax) says where each object is, exactly.
 */
const PRETENURE = `
import { tuneHeap } from './src/runtime/heap-tuning.ts';
const set = process.env.TUNE === '1' ? tuneHeap() : 'not called';
const entry = (i, r) => ({ i, r, id: 'NodeID-' + (i & 7) });
const turn = () => new Promise((res) => setImmediate(res));
const kept = new Array(300_000);
for (let n = 0; n < 4_000_000; n++) { kept[n % kept.length] = entry(n, 1); if (n % 100_000 === 0) await turn(); }
kept.fill(undefined);
let young = 0;
for (let n = 0; n < 1000; n++) if (%InYoungGeneration(entry(n, 2))) young++;
console.log(JSON.stringify({ set, young }));
`;

/**
 * The node flags of a PRETENURE run: V8's test hooks, and the young generation
 * held at the runtime environment's maximum (8 MB) from the start. V8 decides
 * to pretenure only at a young-generation collection while that generation is
 * at its largest (pretenuring-handler.cc, maximum_size_scavenge); on a loaded
 * machine it sometimes had not grown to its largest and no site was tenured
 * (CI on Node 24; by hand with both cores busy, 2 runs in 8 on Node 24, and
 * none in 16 on Node 20 and 24 with the size held).
 */
const PRETENURE_FLAGS = ['--allow-natives-syntax', '--min-semi-space-size=8'];

function run<T>(script: string, tune: boolean, nodeFlags: string[] = []): T {
  const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...DAEMON_RUNTIME_ENV, TUNE: tune ? '1' : '0' },
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as T;
}

function churn(tune: boolean, nodeFlags: string[] = []): { set: string[] | string; major: number } {
  return run(CHURN, tune, nodeFlags);
}

describe('tuneHeap', () => {
  it('makes V8 collect dead rounds sooner: more full collections for the same garbage', { timeout: 60_000 }, () => {
    const untuned = churn(false);
    const tuned = churn(true);
    expect(tuned.set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, PRETENURING_FLAG]);
    expect(untuned.major).toBeGreaterThan(0);
    // Measured 8-9 vs 21 on Node 20, 5-7 vs 16 on Node 24: one and a half times the live size instead of up to four times.
    expect(tuned.major).toBeGreaterThanOrEqual(untuned.major + 3);
  });

  it("leaves an operator's --heap-growing-percent alone, in either spelling", { timeout: 60_000 }, () => {
    expect(churn(true, ['--heap-growing-percent=300']).set).toEqual([PRETENURING_FLAG]);
    expect(churn(true, ['--heap_growing_percent=300']).set).toEqual([PRETENURING_FLAG]);
  });

  it('keeps objects that die young in the young generation, even after a start when they lived long', { timeout: 60_000 }, () => {
    const untuned = run<{ set: string; young: number }>(PRETENURE, false, PRETENURE_FLAGS);
    const tuned = run<{ set: string[]; young: number }>(PRETENURE, true, PRETENURE_FLAGS);
    // V8 tenured the site during the first phase: every later object of it went straight to the old generation.
    expect(untuned.young).toBe(0);
    expect(tuned.set).toContain(PRETENURING_FLAG);
    expect(tuned.young).toBe(1000);
  });

  it("leaves an operator's choice of pretenuring alone, in any spelling", { timeout: 60_000 }, () => {
    const growing = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
    expect(run<{ set: string[]; young: number }>(PRETENURE, true, [...PRETENURE_FLAGS, '--allocation-site-pretenuring'])).toEqual({
      set: [growing],
      young: 0,
    });
    expect(run<{ set: string[]; young: number }>(PRETENURE, true, [...PRETENURE_FLAGS, '--no_allocation_site_pretenuring'])).toEqual({
      set: [growing],
      young: 1000,
    });
  });
});
