/**
 * Which validator ids the Data API poller asks about (src/daemon/data-api-poller.ts watchedNodeIds):
 * each configured node's watch list or its own id, and, in probe or sharded mode, the ids the
 * /probe targets watch (the global --watch.node-id), since such an exporter may have no
 * configured node at all (issue 22, point 10).
 */
import { describe, expect, it } from 'vitest';
import { dataApiRoundMs, describeStretch, planRound, watchedNodeIds } from './data-api-poller.js';
import { DATA_API_SOURCES } from '../sources/catalog.js';
import { DEFAULT_DATA_API_INTERVAL_MS, DEFAULT_DATA_API_RATE_LIMIT, DEFAULT_POLL_TIMEOUT_MS } from '../config/defaults.js';
import type { NodeConfig } from '../config/load.js';

const node = (name: string, nodeIds: string[]): NodeConfig => ({
  name,
  url: `http://${name}:9650`,
  headers: {},
  secretHeaders: [],
  watch: { nodeIds, allValidators: false, subnetIds: [], maxValidators: 100 },
});

describe('the ids the Data API is asked about', () => {
  it("asks about each node's watched ids, or its own id on the Data API's network", () => {
    const nodes = [
      { node: node('a', ['NodeID-X']), known: { nodeId: 'NodeID-A', networkId: 1 }, completedRounds: 1 },
      { node: node('b', []), known: { nodeId: 'NodeID-B', networkId: 1 }, completedRounds: 1 },
      { node: node('c', []), known: { nodeId: 'NodeID-C', networkId: 5 }, completedRounds: 1 },
    ];
    expect(watchedNodeIds(nodes, 'mainnet').sort()).toEqual(['NodeID-B', 'NodeID-X']);
  });

  it('with no configured node (probe or sharded mode), asks about the ids the probe targets watch', () => {
    expect(watchedNodeIds([], 'mainnet')).toEqual([]);
    expect(watchedNodeIds([], 'mainnet', ['NodeID-P', 'NodeID-Q']).sort()).toEqual(['NodeID-P', 'NodeID-Q']);
    const nodes = [{ node: node('a', ['NodeID-P']), known: {}, completedRounds: 1 }];
    expect(watchedNodeIds(nodes, 'fuji', ['NodeID-P'])).toEqual(['NodeID-P']);
  });
});

describe("a Data API round's requests against the rate limit", () => {
  const defaults = {
    rateLimitPerMinute: DEFAULT_DATA_API_RATE_LIMIT,
    intervalMs: DEFAULT_DATA_API_INTERVAL_MS,
    timeoutMs: DEFAULT_POLL_TIMEOUT_MS,
    maxAgeMs: 3 * DEFAULT_DATA_API_INTERVAL_MS,
    key: undefined,
  };
  const limitOf = (c: typeof defaults) => ({ perMinute: c.rateLimitPerMinute, intervalMs: c.intervalMs, timeoutMs: c.timeoutMs });
  const ids = (nodeIds: number) => ({ nodeIds, addresses: 0 });

  it('lasts most of its interval, never less than the poll timeout', () => {
    expect(dataApiRoundMs(defaults)).toBe(54_000);
    expect(dataApiRoundMs({ intervalMs: 5_000, timeoutMs: 5_000 })).toBe(5_000);
  });

  it("counts every polled source's requests against the rate over 90 % of the interval", () => {
    const plan = planRound(DATA_API_SOURCES, { nodeIds: 4, addresses: 2 }, limitOf(defaults));
    expect(Object.fromEntries(plan.bySource)).toEqual({
      data_api_validators: 4,
      data_api_l1_validators: 4,
      data_api_node_blocks: 12,
      data_api_blocks: 3,
      data_api_address_balances: 2,
    });
    expect(plan).toMatchObject({ need: 25, capacity: 54, intervalMs: 60_000, roundMs: 54_000 });
  });

  it('keeps the configured interval up to ten watched ids at the defaults, and spreads the rounds from the eleventh', () => {
    const ten = planRound(DATA_API_SOURCES, ids(10), limitOf(defaults));
    expect(ten).toMatchObject({ need: 53, intervalMs: 60_000 });
    expect(describeStretch(ten, defaults)).toBeUndefined();
    const eleven = planRound(DATA_API_SOURCES, ids(11), limitOf(defaults));
    // 58 requests at one a second within 90 % of the interval: 64.4 s, in whole seconds.
    expect(eleven).toMatchObject({ need: 58, capacity: 54, intervalMs: 65_000, roundMs: 58_500 });
    expect(describeStretch(eleven, defaults)).toBe(
      'a Data API round needs at least 58 requests (data_api_blocks 3, data_api_validators 11, data_api_node_blocks 33, data_api_l1_validators 11; 11 watched node id(s)), ' +
        'more than the 54 the rate limit of 60/min lets a round every 1m send: the Data API is polled every 1m5s instead, and its series are kept for 3m15s. ' +
        'For a round every 1m, set data_api.rate_limit to at least 65 (an API key raises what the service allows), or watch fewer node ids',
    );
  });

  it("a fleet's ids: the round that fits, and a limit that gives the configured interval back", () => {
    for (const n of [13, 50, 300, 1000]) {
      const plan = planRound(DATA_API_SOURCES, ids(n), limitOf(defaults));
      // The interval found fits the round, and a second less would not.
      expect(Math.floor((60 * plan.roundMs) / 60_000), `${n} ids`).toBeGreaterThanOrEqual(plan.need);
      expect(Math.floor((60 * dataApiRoundMs({ intervalMs: plan.intervalMs - 1000, timeoutMs: defaults.timeoutMs })) / 60_000), `${n} ids`).toBeLessThan(
        plan.need,
      );
      const said = describeStretch(plan, { ...defaults, key: 'k' }) ?? '';
      expect(said).toContain('within what the service allows your key');
      const rate = Number(/rate_limit to at least (\d+)/.exec(said)?.[1]);
      expect(planRound(DATA_API_SOURCES, ids(n), limitOf({ ...defaults, rateLimitPerMinute: rate })).intervalMs, `${n} ids at ${rate}/min`).toBe(60_000);
      expect(planRound(DATA_API_SOURCES, ids(n), limitOf({ ...defaults, rateLimitPerMinute: rate - 1 })).intervalMs).toBeGreaterThan(60_000);
    }
    // 300 nodes, each watching its own id: 1,503 requests, a round every 27m50s at the default limit.
    expect(planRound(DATA_API_SOURCES, ids(300), limitOf(defaults)).intervalMs).toBe(1_670_000);
  });
});
