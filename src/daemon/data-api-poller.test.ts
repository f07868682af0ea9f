/**
 * Which validator ids the Data API poller asks about (src/daemon/data-api-poller.ts watchedNodeIds):
 * each configured node's watch list or its own id, and, in probe or sharded mode, the ids the
 * /probe targets watch (the global --watch.node-id), since such an exporter may have no
 * configured node at all (issue 22, point 10).
 */
import { describe, expect, it } from 'vitest';
import { dataApiRoundMs, describeOverBudget, planRound, watchedNodeIds } from './data-api-poller.js';
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
    key: undefined,
  };

  it('lasts most of its interval, never less than the poll timeout', () => {
    expect(dataApiRoundMs(defaults)).toBe(54_000);
    expect(dataApiRoundMs({ intervalMs: 5_000, timeoutMs: 5_000 })).toBe(5_000);
  });

  it("counts every polled source's requests and the burst plus the rate over the round", () => {
    const plan = planRound(DATA_API_SOURCES, { nodeIds: 4, addresses: 2 }, { perMinute: 60, burst: 10, roundMs: dataApiRoundMs(defaults) });
    expect(Object.fromEntries(plan.bySource)).toEqual({
      data_api_validators: 4,
      data_api_l1_validators: 4,
      data_api_node_blocks: 12,
      data_api_blocks: 3,
      data_api_address_balances: 2,
    });
    expect(plan).toMatchObject({ need: 25, capacity: 64 });
  });

  it('fits the defaults up to twelve watched ids, and says what would fit a thirteenth', () => {
    const roundMs = dataApiRoundMs(defaults);
    const limit = { perMinute: 60, burst: 10, roundMs };
    expect(describeOverBudget(planRound(DATA_API_SOURCES, { nodeIds: 12, addresses: 0 }, limit), defaults, roundMs)).toBeUndefined();
    const over = describeOverBudget(planRound(DATA_API_SOURCES, { nodeIds: 13, addresses: 0 }, limit), defaults, roundMs);
    expect(over).toBe(
      'a Data API round needs at least 68 requests (data_api_validators 13, data_api_node_blocks 39, data_api_blocks 3, data_api_l1_validators 13; 13 watched node id(s)), ' +
        'but the rate limit of 60/min lets a round of 54s send 64: the requests past that are not sent and their sources fail as rate_limited every round. ' +
        'Set data_api.interval to at least 1m5s, or data_api.rate_limit to at least 65 (an API key raises what the service allows), or watch fewer node ids',
    );
  });

  it('names an interval and a limit that do fit', () => {
    const roundMs = dataApiRoundMs(defaults);
    const plan = planRound(DATA_API_SOURCES, { nodeIds: 100, addresses: 0 }, { perMinute: 60, burst: 10, roundMs });
    const over = describeOverBudget(plan, { ...defaults, key: 'k' }, roundMs) ?? '';
    expect(over).toContain('within what the service allows your key');
    const [, interval, minutes] = /interval to at least (\d+)m(\d+s)?/.exec(over) ?? [];
    const [, rate] = /rate_limit to at least (\d+)/.exec(over) ?? [];
    const atInterval = { ...defaults, intervalMs: Number(interval) * 60_000 + (minutes ? parseInt(minutes, 10) * 1000 : 0) };
    const fitsAt = (cfg: typeof defaults) =>
      describeOverBudget(
        planRound(DATA_API_SOURCES, { nodeIds: 100, addresses: 0 }, { perMinute: cfg.rateLimitPerMinute, burst: 10, roundMs: dataApiRoundMs(cfg) }),
        cfg,
        dataApiRoundMs(cfg),
      );
    expect(fitsAt(atInterval)).toBeUndefined();
    expect(fitsAt({ ...defaults, rateLimitPerMinute: Number(rate) })).toBeUndefined();
    expect(fitsAt({ ...defaults, rateLimitPerMinute: Number(rate) - 1 })).toBeDefined();
  });
});
