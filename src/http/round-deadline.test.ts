import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_EXTENSIONS, RoundDeadline, SATURATED_UTILIZATION, type UtilizationClock } from './round-deadline.js';
import { Poller } from '../scheduler.js';
import { StateStore } from '../state/store.js';
import { HttpTransport } from './transport.js';
import type { BaseContext, SourceDef } from '../sources/source.js';

/** A clock whose every window reads the next of `utilizations` (the last one repeats). */
function clockOf(...utilizations: number[]): UtilizationClock {
  let i = 0;
  return () => {
    const u = utilizations[Math.min(i++, utilizations.length - 1)] as number;
    return { since: () => u };
  };
}

describe('a round deadline (src/http/round-deadline.ts)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('cuts the round off at the timeout when the event loop had time to spare', () => {
    vi.useFakeTimers();
    const d = new RoundDeadline(1_000, clockOf(0.3));
    vi.advanceTimersByTime(999);
    expect(d.deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.deadline.signal.aborted).toBe(true);
    expect((d.deadline.signal.reason as Error).message).toBe('poll deadline exceeded');
    expect(d.extensions).toBe(0);
  });

  it('moves on by one timeout while the loop was saturated, at most twice, then cuts the round off', () => {
    vi.useFakeTimers();
    const start = Date.now();
    const d = new RoundDeadline(1_000, clockOf(SATURATED_UTILIZATION));
    expect(d.deadline.at).toBe(start + 1_000);
    vi.advanceTimersByTime(1_000);
    expect(d.deadline.signal.aborted).toBe(false);
    expect(d.extensions).toBe(1);
    // Every call of the round reads `at` (retries, the health report's share of the time left): it moves with the deadline.
    expect(d.deadline.at).toBe(start + 2_000);
    vi.advanceTimersByTime(1_000);
    expect(d.extensions).toBe(MAX_EXTENSIONS);
    expect(d.deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(999);
    expect(d.deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.deadline.signal.aborted).toBe(true);
  });

  it('judges each extension on its own window: a loop that frees up no longer holds the node off', () => {
    vi.useFakeTimers();
    const d = new RoundDeadline(1_000, clockOf(0.97, 0.5));
    vi.advanceTimersByTime(1_000);
    expect(d.extensions).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(d.deadline.signal.aborted).toBe(true);
    expect(d.extensions).toBe(1);
  });

  it('leaves no timer behind once cleared, and aborts at once with the reason it is given', () => {
    vi.useFakeTimers();
    const cleared = new RoundDeadline(1_000, clockOf(0));
    cleared.clear();
    vi.advanceTimersByTime(5_000);
    expect(cleared.deadline.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    const stopped = new RoundDeadline(1_000, clockOf(0));
    stopped.abort(new Error('exporter shutting down'));
    expect((stopped.deadline.signal.reason as Error).message).toBe('exporter shutting down');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a poll round whose answer waits on the exporter, not the node (the real event loop)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  /** A node that answers at once, or never. */
  async function node(answers: boolean): Promise<string> {
    server = createServer((_req, res) => {
      if (answers) res.end('ok');
    });
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  /** One round of a poller whose only source GETs `url`, with the loop blocked `blockMs` right after the request goes out. */
  async function roundOf(url: string, blockMs: number) {
    const transport = new HttpTransport();
    const store = new StateStore();
    const get: SourceDef<number, BaseContext> = {
      name: 'get',
      poll: async (ctx) => {
        const answer = transport.send({ url, method: 'GET', signal: ctx.deadline.signal });
        // Everything else the process has to do at that moment: the loop cannot read the answer.
        const end = Date.now() + blockMs;
        let spins = 0;
        while (Date.now() < end) spins++;
        return (await answer).status + Math.min(spins, 0);
      },
      collect: () => [],
    };
    const poller = new Poller<BaseContext>({
      name: 'n',
      intervalMs: 10_000,
      timeoutMs: 300,
      sources: [get],
      makeContext: (deadline, round) => ({ deadline, round }),
      store,
      onRound: () => {},
    });
    const t0 = Date.now();
    await poller.runRound();
    return { state: store.get('n', 'get'), store, ms: Date.now() - t0 };
  }

  it('an answer the loop was too busy to read in time is read, not counted as the node timing out', async () => {
    const { state, store } = await roundOf(await node(true), 600);
    expect(state.up).toBe(true);
    expect(state.value).toBe(200);
    expect(state.failures.timeout).toBe(0);
    expect(store.deadlineExtensions).toBeGreaterThanOrEqual(1);
  });

  it('a node that does not answer while the exporter idles still times out at the timeout', async () => {
    const { state, store, ms } = await roundOf(await node(false), 0);
    expect(state.up).toBe(false);
    expect(state.failures.timeout).toBe(1);
    expect(store.deadlineExtensions).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(300 * (1 + MAX_EXTENSIONS));
  });
});
