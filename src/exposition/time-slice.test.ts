import { describe, expect, it } from 'vitest';
import { TimeSlicer } from './time-slice.js';

/**
 * Busy-waits `ms / stepMs` steps of `stepMs` each, awaiting `slicer.check()` after each; returns how many times the
 * loop ran other work meanwhile. Counted in steps, not in wall time: on a shared machine the thread may lose its
 * CPU for most of a 30 ms window (CI once saw 4 yields where 15 steps give about 15), and a step that lost it only
 * lasts longer.
 */
async function workWhileCounting(slicer: TimeSlicer, ms: number, stepMs: number): Promise<number> {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    if (!counting) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  for (let step = 0; step < Math.round(ms / stepMs); step++) {
    const stepEnd = performance.now() + stepMs;
    while (performance.now() < stepEnd) {
      // busy: a step of formatting or compressing
    }
    await slicer.check();
  }
  counting = false;
  return turns;
}

describe('TimeSlicer', () => {
  it('does not yield while the slice its policy gives lasts', async () => {
    expect(await workWhileCounting(new TimeSlicer(() => 10_000), 30, 2)).toBe(0);
  });

  it('yields to the event loop each time its slice is used up', async () => {
    // 1 ms slices over 30 ms of 2 ms steps: a yield after nearly every step.
    expect(await workWhileCounting(new TimeSlicer(() => 1), 30, 2)).toBeGreaterThanOrEqual(5);
  });

  it('asks its policy for the length of each new slice, so a render that turns late gets longer ones', async () => {
    const asked: number[] = [];
    let sliceMs = 1;
    const slicer = new TimeSlicer(() => {
      asked.push(sliceMs);
      return sliceMs;
    });
    expect(await workWhileCounting(slicer, 10, 2)).toBeGreaterThanOrEqual(2);
    sliceMs = 10_000;
    const before = asked.length;
    // The next yield starts a slice of the new length: after it, no more yields.
    await workWhileCounting(slicer, 4, 2);
    const after = asked.length;
    expect(after - before).toBeLessThanOrEqual(1);
    expect(await workWhileCounting(slicer, 30, 2)).toBe(0);
  });
});
