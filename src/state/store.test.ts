import { describe, expect, it } from 'vitest';
import { SampleAssembler } from '../exposition/assemble.js';
import { ExpositionRenderer } from '../exposition/render.js';
import type { Sample } from '../metrics/metric-defs.js';
import type { AnySource } from '../sources/source.js';
import { StateStore } from './store.js';

const ok = (value: unknown, startedMs: number) => ({ ok: true as const, value, startedMs, durationMs: 5 });

describe('StateStore.record', () => {
  it('keeps the last value object when a poll returns an equal one, and takes a different one', () => {
    const store = new StateStore();
    const first = { checks: [{ name: 'network', passing: true, failingSince: undefined }], healthy: true, heights: new Map([['P', 10]]) };
    store.record('n1', 'health', ok(first, 1_000));
    // Equal, a new object (as every poll parses one): the first stays, and the poll still counts.
    store.record('n1', 'health', ok(structuredClone(first), 16_000));
    const s = store.get('n1', 'health');
    expect(s.value).toBe(first);
    expect(s.lastSuccessMs).toBe(16_005);
    expect(s.polls).toBe(2);
    // Different anywhere (here a Map entry deep inside): the new object.
    const changed = { ...structuredClone(first), heights: new Map([['P', 11]]) };
    store.record('n1', 'health', ok(changed, 31_000));
    expect(store.get('n1', 'health').value).toBe(changed);
    // NaN equals NaN, -0 does not equal 0 (as Object.is): a value is replaced only when it differs.
    const nan = { v: NaN };
    store.record('n1', 'x', ok(nan, 1));
    store.record('n1', 'x', ok({ v: NaN }, 2));
    expect(store.get('n1', 'x').value).toBe(nan);
    const negZero = { v: -0 };
    store.record('n1', 'x', ok(negZero, 3));
    expect(store.get('n1', 'x').value).toBe(negZero);
  });

  it('so an unchanged source is not collected again for the next exposition', async () => {
    const store = new StateStore();
    let collected = 0;
    const source = {
      name: 'health',
      collect: (v: { healthy: boolean }, target: string): Sample[] => {
        collected++;
        return [{ name: 'avax_node_healthy', labels: { node: target }, value: v.healthy ? 1 : 0 }];
      },
    } as unknown as AnySource;
    const assembler = new SampleAssembler();
    // The groups are collected when the renderer first asks for their samples: each exposition is assembled and rendered.
    const renderer = new ExpositionRenderer();
    const groupsAt = async (nowMs: number) => {
      const groups = assembler.assemble({
        states: store.all(),
        sources: new Map([['health', source]]),
        nowMs,
        build: { version: 'v', revision: 'r', nodejs: 'n' },
        ready: true,
        maxAgeMs: 60_000,
      });
      await renderer.renderGroups(groups);
      return groups;
    };
    store.record('n1', 'health', ok({ healthy: true }, 1_000));
    const before = (await groupsAt(1_010))[1];
    store.record('n1', 'health', ok({ healthy: true }, 16_000));
    expect((await groupsAt(16_010))[1]).toBe(before);
    expect(collected).toBe(1);
    store.record('n1', 'health', ok({ healthy: false }, 31_000));
    expect((await groupsAt(31_010))[1]).not.toBe(before);
    expect(collected).toBe(2);
  });
});
