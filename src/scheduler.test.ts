import { afterEach, describe, expect, it, vi } from 'vitest';
import { Poller, SPREAD_STEP, START_SPACING_MS, startSpread, type PollerHandle } from './scheduler.js';
import { StateStore } from './state/store.js';
import type { BaseContext, SourceDef } from './sources/source.js';

const INTERVAL = 15_000;
const MINUTE = 60_000;

/** A source that calls `onAsk` each time it is asked. */
function recording(name: string, onAsk: () => void): SourceDef<number, BaseContext> {
  return {
    name,
    poll: () => {
      onAsk();
      return Promise.resolve(1);
    },
    collect: () => [],
  };
}

/** A poller at INTERVAL, without jitter, of `sources`. */
function pollerOf(sources: SourceDef<number, BaseContext>[], minIntervalMs?: ReadonlyMap<string, number>): Poller<BaseContext> {
  return new Poller<BaseContext>({
    name: 'n',
    intervalMs: INTERVAL,
    timeoutMs: 1_000,
    jitter: 0,
    sources,
    makeContext: (deadline, r) => ({ deadline, round: r }),
    store: new StateStore(),
    onRound: () => {},
    ...(minIntervalMs ? { minIntervalMs } : {}),
  });
}

/** A poller of two sources, one asked every round and one at most once a minute, whose rounds the test runs by hand on a fake clock. */
function pollerWith(phase: number, settle = false) {
  const asked: number[] = [];
  let round = 0;
  const every = recording('every', () => {});
  const slow = recording('slow', () => asked.push(round));
  const poller = pollerOf([every, slow], new Map([['slow', MINUTE]]));
  // Started (when the first round is) far in the future and stopped at once: the phase is set, the rounds are the test's.
  vi.setSystemTime(new Date(1_800_000_000_000));
  poller.start(3_600_000, phase, settle);
  void poller.stop();
  const runRounds = async (n: number) => {
    for (let i = 0; i < n; i++) {
      vi.setSystemTime(new Date(1_800_000_000_000 + round * INTERVAL));
      await poller.runRound();
      round++;
    }
  };
  return { asked, runRounds };
}

describe('a source asked less often than every round', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is asked in the first round, then once a minute (every fourth 15 s round) with no phase', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const p = pollerWith(0);
    await p.runRounds(13);
    expect(p.asked).toEqual([0, 4, 8, 12]);
  });

  it('with a phase, is asked once sooner after the first round, then once a minute from there', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const half = pollerWith(0.5);
    await half.runRounds(13);
    expect(half.asked).toEqual([0, 2, 6, 10]);
    const late = pollerWith(0.75);
    await late.runRounds(13);
    expect(late.asked).toEqual([0, 1, 5, 9]);
  });

  it('in a fleet that settles, is first asked at its phase of its interval, not in the first round, then once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // The first of the fleet asks at once; the others' first asks come spread over the minute, not all in its first seconds.
    const first = pollerWith(0, true);
    await first.runRounds(13);
    expect(first.asked).toEqual([0, 4, 8, 12]);
    const half = pollerWith(0.5, true);
    await half.runRounds(13);
    expect(half.asked).toEqual([2, 6, 10]);
    const late = pollerWith(0.75, true);
    await late.runRounds(13);
    expect(late.asked).toEqual([3, 7, 11]);
  });
});

describe('a poller started with a phase', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The start times of a poller's rounds over `rounds` intervals, started after `delayMs` with `phase` (and `settle`), on a fake clock. */
  async function roundStarts(delayMs: number, phase: number, rounds: number, settle = true): Promise<number[]> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const t0 = Date.now();
    const starts: number[] = [];
    const poller = pollerOf([recording('every', () => starts.push(Date.now() - t0))]);
    poller.start(delayMs, phase, settle);
    await vi.advanceTimersByTimeAsync(delayMs + (rounds - 1) * INTERVAL + 10 * INTERVAL * SPREAD_STEP + 1);
    await poller.stop();
    return starts.slice(0, rounds);
  }

  /** The gaps between consecutive starts. */
  const gapsOf = (starts: readonly number[]) => starts.slice(1).map((t, i) => t - (starts[i] as number));

  it('settling, moves its rounds to that point of the interval in one step when it can', async () => {
    // The 900th of 1,000 pollers: its first round 6.75 s in (half an interval's spread), its place 13.5 s in.
    const starts = await roundStarts(6_750, 0.9, 6);
    expect(SPREAD_STEP * INTERVAL).toBe(7_500);
    expect(starts[0]).toBe(6_750);
    expect(gapsOf(starts)).toEqual([INTERVAL + 6_750, ...Array<number>(4).fill(INTERVAL)]);
    expect((starts.at(-1) as number) % INTERVAL).toBe(13_500);
  });

  it('settling, moves by at most SPREAD_STEP of the interval per round', async () => {
    // Started at once, its place 13.5 s in: a whole step (7.5 s), then the 6 s left.
    const starts = await roundStarts(0, 0.9, 7);
    expect(gapsOf(starts)).toEqual([INTERVAL + 7_500, INTERVAL + 6_000, ...Array<number>(4).fill(INTERVAL)]);
    expect((starts.at(-1) as number) % INTERVAL).toBe(13_500);
  });

  it('keeps its interval when the first round is in its place already, or when not settling', async () => {
    expect(await roundStarts(0, 0, 6)).toEqual([0, 1, 2, 3, 4, 5].map((i) => i * INTERVAL));
    expect(await roundStarts(250, 0.5, 6, false)).toEqual([0, 1, 2, 3, 4, 5].map((i) => 250 + i * INTERVAL));
  });
});

describe('startSpread', () => {
  /** How startSpread starts n pollers at INTERVAL: each one's arguments. */
  function startsOf(n: number): { delayMs: number; phase: number; settle: boolean }[] {
    const calls: { delayMs: number; phase: number; settle: boolean }[] = [];
    const pollers: PollerHandle[] = Array.from({ length: n }, (_, i) => ({
      name: `n${i}`,
      completedRounds: 0,
      start: (delayMs = 0, phase = 0, settle = false) => void calls.push({ delayMs, phase, settle }),
      stop: () => Promise.resolve(),
    }));
    startSpread(pollers, INTERVAL);
    return calls;
  }

  it('starts a small fleet START_SPACING_MS apart and leaves its rounds there', () => {
    const calls = startsOf(50);
    expect(calls.map((c) => c.delayMs)).toEqual(calls.map((_, i) => i * START_SPACING_MS));
    expect(calls.map((c) => c.phase)).toEqual(calls.map((_, i) => i / 50));
    expect(calls.every((c) => !c.settle)).toBe(true);
    expect(startsOf(1)).toEqual([{ delayMs: 0, phase: 0, settle: false }]);
  });

  it('starts a fleet that fills half the interval within that half, then settles it over the whole interval', () => {
    const calls = startsOf(1_000);
    expect(Math.max(...calls.map((c) => c.delayMs))).toBe(INTERVAL / 2);
    expect(calls.map((c) => c.phase)).toEqual(calls.map((_, i) => i / 1_000));
    expect(calls.every((c) => c.settle)).toBe(true);
  });
});
