import { setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { FAKE_DENIED_NODE_ID, FakeDataApi, type FakeDataApiOptions } from './fakes/fake-data-api.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import { DataApiClient } from '../src/data-api/client.js';
import type { DataApiContext } from '../src/sources/data-api/source.js';
import { dataApiBlocksSource } from '../src/sources/data-api/blocks/index.js';
import { dataApiValidatorsSource } from '../src/sources/data-api/validators/index.js';
import { HttpTransport } from '../src/http/transport.js';
import { PRIMARY_NETWORK_ID } from '../src/sources/node/validators/index.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp } from './helpers/daemon.js';

/**
 * Issue 14 points 8 and 9 against the fake Data API: the real service's
 * quirks (null and out-of-range optional fields, enum values this exporter
 * does not know) cost only the fields concerned; a completed validation's
 * reward, granted or denied, and a removed one's time are exported.
 */

const SELF = FIXTURE_IDS.nodeId;
const DENIED = FAKE_DENIED_NODE_ID;
const V = { network: 'mainnet', node_id: SELF, subnet: PRIMARY_NETWORK_ID };
const N = { network: 'mainnet', node_id: SELF };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function fakeDataApi(opts: FakeDataApiOptions = {}): Promise<FakeDataApi> {
  const api = await FakeDataApi.start(opts);
  cleanup.push(() => api.stop());
  return api;
}

function sourceContext(api: FakeDataApi, nodeIds: string[]): DataApiContext {
  const transport = new HttpTransport();
  cleanup.push(() => transport.close());
  const signal = AbortSignal.timeout(5_000);
  setMaxListeners(0, signal);
  return {
    client: new DataApiClient({ transport, baseUrl: api.url, ratePerMinute: 6000 }),
    network: 'mainnet',
    nodeIds,
    maxPages: 10,
    deadline: { signal, at: Date.now() + 5_000 },
    round: 0,
  };
}

describe('the fake Data API in its real-service mode (quirks)', () => {
  it('serves null and out-of-range optional fields, an unknown status and an unknown block type', async () => {
    const api = await fakeDataApi({ quirks: true });
    const list = api.state.validations[SELF] ?? [];
    expect(list[0]?.validationStatus).toBe('suspended');
    const active = list.find((v) => v.validationStatus === 'active');
    expect(active).toMatchObject({
      uptimePerformance: null,
      avalancheGoVersion: null,
      delegationCapacity: '-25000000000',
      validatorHealth: { reachabilityPercent: 100.4, benchedPChainRequestsPercent: null },
    });
    expect(api.state.blocks['p-chain'][0]?.blockType).toBe('FutureStandardBlock');
    // The default mode is untouched.
    const plain = await fakeDataApi();
    expect(plain.state.validations[SELF]?.find((v) => v.validationStatus === 'active')?.['uptimePerformance']).toBe(99.87);
  });

  it('the validators source keeps every validation, drops the unknown status and only the bad fields', async () => {
    const api = await fakeDataApi({ quirks: true });
    const v = await dataApiValidatorsSource.poll(sourceContext(api, [SELF]), undefined);
    const vs = v.nodes[0]?.validations ?? [];
    expect(vs.map((x) => x.status)).toEqual(['pending', 'active', 'removed', 'completed']);
    const active = vs.find((x) => x.status === 'active');
    expect(active).toMatchObject({
      amountStaked: 2000000000000n,
      amountDelegated: 25000000000n,
      delegatorCount: 1,
      potentialValidationReward: 117431493426n,
      benchedRatio: { X: 0, C: 0.004 },
    });
    for (const field of ['uptimeRatio', 'version', 'delegationCapacity', 'reachabilityRatio', 'potentialDelegationReward'] as const)
      expect(active?.[field], field).toBeUndefined();
    const blocks = await dataApiBlocksSource.poll(sourceContext(api, []), undefined);
    expect(blocks.heads.map((h) => h.chain)).toEqual(['P', 'X', 'C']);
  });

  it('end to end: every Data API source up; the node keeps its other series, the bad fields have none', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const api = await fakeDataApi({ quirks: true });
    const t = await startTestDaemon({ nodes: [{ name: 'fake', url: node.url }], data_api: { url: api.url, interval: '500ms', rate_limit: 6000 } });
    cleanup.push(() => t.daemon.stop());
    await waitUntilAllUp(t.daemon);
    let text = '';
    await eventually(async () => {
      text = await scrape(t.daemon);
      return ['data_api_validators', 'data_api_blocks'].every((source) => valueOf(text, 'avax_source_up', { node: 'data_api', source }) === 1);
    }, 10_000);
    expect(valueOf(text, 'avax_data_api_validator_status', { ...V, status: 'active' })).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_stake_avax', V)).toBe(2000);
    expect(valueOf(text, 'avax_data_api_validator_delegated_avax', V)).toBe(25);
    expect(valueOf(text, 'avax_data_api_validator_benched_requests_ratio', { ...N, chain: 'C' })).toBe(0.004);
    expect(seriesOf(text, 'avax_data_api_validator_uptime_ratio')).toEqual([]);
    expect(seriesOf(text, 'avax_data_api_validator_version_info')).toEqual([]);
    expect(seriesOf(text, 'avax_data_api_validator_delegation_capacity_avax')).toEqual([]);
    expect(seriesOf(text, 'avax_data_api_validator_reachability_ratio')).toEqual([]);
    expect(seriesOf(text, 'avax_data_api_validator_benched_requests_ratio', { chain: 'P' })).toEqual([]);
    expect(seriesOf(text, 'avax_data_api_validator_potential_reward_avax', { kind: 'delegation' })).toEqual([]);
    // The unknown status is no `status` label value.
    expect(seriesOf(text, 'avax_data_api_validator_status', { status: 'suspended' })).toEqual([]);
  });
});

describe('completed validations: the reward granted or denied; removed ones: when', () => {
  it('the source reads rewards of completed validations and the removal time of removed ones', async () => {
    const api = await fakeDataApi();
    const v = await dataApiValidatorsSource.poll(sourceContext(api, [SELF, DENIED]), undefined);
    const self = v.nodes.find((n) => n.nodeId === SELF)?.validations ?? [];
    expect(self.find((x) => x.status === 'completed')).toMatchObject({ validationReward: 118004212871n, delegationReward: 0n });
    expect(self.find((x) => x.status === 'removed')).toMatchObject({ removeTimestamp: 1760000000 });
    expect(v.nodes.find((n) => n.nodeId === DENIED)?.validations).toMatchObject([{ status: 'completed', validationReward: 0n }]);
  });

  it('end to end: a granted reward, a denied one, and a removal time, each on its validator', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const api = await fakeDataApi();
    const t = await startTestDaemon({
      nodes: [{ name: 'fake', url: node.url, watch: { node_ids: [SELF, DENIED] } }],
      data_api: { url: api.url, interval: '500ms', rate_limit: 6000 },
    });
    cleanup.push(() => t.daemon.stop());
    await waitUntilAllUp(t.daemon);
    let text = '';
    await eventually(async () => {
      text = await scrape(t.daemon);
      return valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_validators' }) === 1;
    }, 10_000);
    const D = { network: 'mainnet', node_id: DENIED, subnet: PRIMARY_NETWORK_ID };
    expect(valueOf(text, 'avax_data_api_validator_last_reward_denied', V)).toBe(0);
    expect(valueOf(text, 'avax_data_api_validator_last_reward_avax', { ...V, kind: 'validation' })).toBe(118.004212871);
    expect(valueOf(text, 'avax_data_api_validator_last_completed_end_timestamp_seconds', V)).toBe(1751400000);
    expect(valueOf(text, 'avax_data_api_validator_last_reward_denied', D)).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_last_reward_avax', { ...D, kind: 'validation' })).toBe(0);
    expect(valueOf(text, 'avax_data_api_validator_last_completed_end_timestamp_seconds', D)).toBe(1783036000);
    // The denied validator has nothing current: its statuses say completed.
    expect(valueOf(text, 'avax_data_api_validator_status', { ...D, status: 'completed' })).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_remove_timestamp_seconds', { network: 'mainnet', node_id: SELF, subnet: FIXTURE_IDS.legacySubnetId })).toBe(
      1760000000,
    );
  });
});
