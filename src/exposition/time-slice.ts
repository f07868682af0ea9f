import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Longest run of rendering or compressing between two yields to the event loop. */
export const SLICE_MS = 5;

/**
 * The run between two yields of a render that is late (see
 * {@link SlicePolicy}): on a loop saturated by a fleet's polls, each yield
 * waits for a whole turn of their callbacks, so a render of 5 ms slices took
 * 20 times its CPU to finish, and a node's change waited seconds to be served.
 */
export const LATE_SLICE_MS = 20;

/** Steps between two looks at the clock (a look costs more than a step of formatting). */
const STEPS_PER_LOOK = 64;

/** The length of the next slice, ms, asked at the start of each one: lets a render that is late take longer runs. */
export type SlicePolicy = () => number;

/**
 * Splits long work (a render, a gzip) into slices with a yield to the event
 * loop between them, so scrapes and polls are never held up for long, by
 * time rather than by count: on a loop saturated by a fleet's polls, every
 * yield waits for all that is queued, and a render that yielded every few
 * hundred samples took seconds to finish.
 */
export class TimeSlicer {
  readonly #sliceMs: SlicePolicy;
  #until: number;
  #steps = 0;

  /** @param sliceMs the length of each slice (SLICE_MS unless a caller says otherwise). */
  constructor(sliceMs: SlicePolicy = () => SLICE_MS) {
    this.#sliceMs = sliceMs;
    this.#until = performance.now() + sliceMs();
  }

  /**
   * After a small step (a sample): a promise to await when the slice is used
   * up, else undefined, looking at the clock every few steps. Undefined rather
   * than a resolved promise: awaiting one per sample made a promise and a
   * microtask per series of every render (with segmentsOf's async helpers,
   * about 11 MB of garbage per render of a 1,000-node fleet).
   */
  step(): Promise<void> | undefined {
    if (++this.#steps < STEPS_PER_LOOK) return undefined;
    this.#steps = 0;
    return this.check();
  }

  /** After a larger step (a segment compressed): a promise to await when the slice is used up, else undefined (see {@link step}). */
  check(): Promise<void> | undefined {
    if (performance.now() < this.#until) return undefined;
    return this.#pause();
  }

  async #pause(): Promise<void> {
    await yieldToLoop();
    this.#until = performance.now() + this.#sliceMs();
  }
}
