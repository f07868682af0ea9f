import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Longest run of rendering or compressing between two yields to the event loop. */
const SLICE_MS = 5;

/** Steps between two looks at the clock (a look costs more than a step of formatting). */
const STEPS_PER_LOOK = 64;

/**
 * Splits long work (a render, a gzip) into slices of SLICE_MS with a yield to
 * the event loop between them, so scrapes and polls are never held up for
 * long, by time rather than by count: on a loop saturated by a fleet's
 * polls, every yield waits for all that is queued, and a render that
 * yielded every few hundred samples took seconds to finish.
 */
export class TimeSlicer {
  #until = performance.now() + SLICE_MS;
  #steps = 0;

  /** After a small step (a sample): yields when the slice is used up, looking at the clock every few steps. */
  async step(): Promise<void> {
    if (++this.#steps < STEPS_PER_LOOK) return;
    this.#steps = 0;
    await this.check();
  }

  /** After a larger step (a segment compressed): yields when the slice is used up. */
  async check(): Promise<void> {
    if (performance.now() < this.#until) return;
    await yieldToLoop();
    this.#until = performance.now() + SLICE_MS;
  }
}
