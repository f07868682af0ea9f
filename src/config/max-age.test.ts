import { describe, expect, it } from 'vitest';
import { defaultMaxAgeMs, isFresh, nodeMaxAgeMs, slowPollerMaxAgeMs, sourceMaxAgeMs } from './max-age.js';
import { loadConfig } from './load.js';
import { StateStore } from '../state/store.js';

/** The series max-age rule, in its one place (src/config/max-age.ts), and the configuration and the store following it. */
describe('the series max-age rule', () => {
  it('3 poll intervals by default; a slower poller at least 3 of its own; a source asked less often stretched by its least interval', () => {
    expect(defaultMaxAgeMs(15_000)).toBe(45_000);
    expect(slowPollerMaxAgeMs(45_000, 60_000)).toBe(180_000);
    expect(slowPollerMaxAgeMs(600_000, 60_000)).toBe(600_000);
    const ages = { maxAgeMs: 45_000, maxAgeByNode: new Map([['data-api', 180_000]]), extraMaxAgeBySource: new Map([['peers', 60_000]]) };
    expect(nodeMaxAgeMs(ages, 'n1')).toBe(45_000);
    expect(nodeMaxAgeMs(ages, 'data-api')).toBe(180_000);
    expect(sourceMaxAgeMs(ages, 'n1', 'peers')).toBe(105_000);
    expect(sourceMaxAgeMs(ages, 'n1', 'health')).toBe(45_000);
    expect(isFresh(1_000, 46_000, 45_000)).toBe(true);
    expect(isFresh(1_000, 46_001, 45_000)).toBe(false);
    expect(isFresh(undefined, 0, 45_000)).toBe(false);
  });

  it('the configuration applies it: poll.max_age and the Data API max age', () => {
    const { config } = loadConfig(['--poll.interval=20s', '--data-api.interval=2m'], {});
    expect(config.poll.maxAgeMs).toBe(defaultMaxAgeMs(20_000));
    expect(config.dataApi.maxAgeMs).toBe(slowPollerMaxAgeMs(60_000, 120_000));
  });

  it('the store expires by it: a stretched source outlives the poll max age while its node answers', () => {
    const store = new StateStore();
    const peers = store.get('n1', 'peers');
    const health = store.get('n1', 'health');
    for (const s of [peers, health]) {
      s.value = 1;
      s.lastSuccessMs = 0;
    }
    store.recordNodeRound('n1', 50_000);
    store.expire(50_000, 45_000, undefined, new Map([['peers', 60_000]]));
    expect(health.value).toBeUndefined();
    expect(peers.value).toBe(1);
  });
});
