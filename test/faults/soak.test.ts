import { describe, expect, it } from 'vitest';
import { runSoak } from '../tools/soak-run.js';

describe('soak (short)', () => {
  it('2,000 poll cycles with churn: series count flat, no listener or handle growth, no failed round', async () => {
    const r = await runSoak({ cycles: 2_000, validators: 50, intervalMs: 1 });
    expect(r.failedRounds).toBe(0);
    // Churn swaps validators but keeps the set's size: the exported series must not grow.
    expect(r.end.series).toBe(r.start.series);
    expect(r.end.listeners).toBe(r.start.listeners);
    expect(r.end.activeResources).toBeLessThanOrEqual(r.start.activeResources + 2);
  }, 180_000);
});
