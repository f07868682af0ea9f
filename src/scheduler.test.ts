import { afterEach, describe, expect, it, vi } from 'vitest';
import { Poller } from './scheduler.js';
import { StateStore } from './state/store.js';
import type { BaseContext, SourceDef } from './sources/source.js';

const INTERVAL = 15_000;
const MINUTE = 60_000;

/** A poller of two sources, one asked every round and one at most once a minute, whose rounds the test runs by hand on a fake clock. */
function pollerWith(phase: number) {
  const asked: number[] = [];
  let round = 0;
  const every: SourceDef<number, BaseContext> = { name: 'every', poll: () => Promise.resolve(1), collect: () => [] };
  const slow: SourceDef<number, BaseContext> = {
    name: 'slow',
    poll: () => {
      asked.push(round);
      return Promise.resolve(1);
    },
    collect: () => [],
  };
  const poller = new Poller<BaseContext>({
    name: 'n',
    intervalMs: INTERVAL,
    timeoutMs: 1_000,
    jitter: 0,
    sources: [every, slow],
    makeContext: (deadline, r) => ({ deadline, round: r }),
    store: new StateStore(),
    onRound: () => {},
    minIntervalMs: new Map([['slow', MINUTE]]),
  });
  // Started far in the future and stopped at once: the phase is set, the rounds are the test's.
  poller.start(3_600_000, phase);
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
});
