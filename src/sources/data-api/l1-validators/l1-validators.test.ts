import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { l1ValidatorItem, toL1Validation } from './index.js';
import { collectDataApiL1Validators, collectWatchedL1Config } from './collect.js';
import { blockItem } from '../common/schemas.js';
import { collectDataApiBlocks } from '../blocks/collect.js';
import { FAKE_OTHER_L1_SUBNET_ID, FAKE_OTHER_L1_VALIDATION_ID, FakeDataApi, makeFakeBlock, makeFakeL1Validator } from '../../../../test/fakes/fake-data-api.js';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { FIXTURE_IDS } from '../../../../test/fakes/fake-data.js';
import { demoDataApiState } from '../../../demo/data-api.js';
import { startDemoNode } from '../../../demo/node.js';
import { loadFixture } from '../../../../test/helpers/fixtures.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf } from '../../../../test/helpers/daemon.js';

const SELF = FIXTURE_IDS.nodeId;
const NET = { network: 'mainnet' };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** The reference answer's one item. */
function fixtureItem(): Record<string, unknown> {
  const item = (loadFixture('dataapi.l1Validators.json').response.body as { validators: Record<string, unknown>[] }).validators[0];
  if (!item) throw new Error('the reference answer lists no validator');
  return item;
}

describe('Data API l1Validators: reading an item', () => {
  it('reads the reference item: ids, weight, balance in nAVAX, active', () => {
    const v = toL1Validation(l1ValidatorItem.parse(fixtureItem()));
    expect(v).toEqual({
      validationId: '2wTscvX3JUsMbZHFRd9t8Ywz2q9j2BmETg8cTvgUHgawjbSvZX',
      nodeId: 'NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD',
      subnetId: '2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91',
      weight: 20,
      remainingBalanceNavax: 8780477952,
      creationTimestamp: 1734034648,
      active: true,
    });
  });

  it('inactive when the balance or the weight is 0 (the P-Chain rule)', () => {
    const base = fixtureItem();
    expect(toL1Validation(l1ValidatorItem.parse({ ...base, remainingBalance: 0 })).active).toBe(false);
    expect(toL1Validation(l1ValidatorItem.parse({ ...base, weight: 0 })).active).toBe(false);
  });

  it('accepts the numbers as decimal strings too (the node API form), and a null or absent creation time', () => {
    const base = fixtureItem();
    const v = toL1Validation(l1ValidatorItem.parse({ ...base, weight: '20', remainingBalance: '8780477952', creationTimestamp: null }));
    expect([v.weight, v.remainingBalanceNavax, v.creationTimestamp]).toEqual([20, 8780477952, undefined]);
    const { creationTimestamp: _drop, ...noTime } = base;
    expect(toL1Validation(l1ValidatorItem.parse(noTime)).creationTimestamp).toBeUndefined();
  });

  it('rejects an item without a balance, with a negative weight or with an empty validation id', () => {
    const base = fixtureItem();
    const { remainingBalance: _drop, ...noBalance } = base;
    expect(l1ValidatorItem.safeParse(noBalance).success).toBe(false);
    expect(l1ValidatorItem.safeParse({ ...base, weight: -1 }).success).toBe(false);
    expect(l1ValidatorItem.safeParse({ ...base, validationId: '' }).success).toBe(false);
  });
});

describe('Data API l1Validators: collecting', () => {
  it('one balance, weight and active series per validation, under network and without a node label', () => {
    const samples = collectDataApiL1Validators({
      network: 'fuji',
      nodes: [
        {
          nodeId: SELF,
          validations: [
            { validationId: 'v1', nodeId: SELF, subnetId: 's1', weight: 20, remainingBalanceNavax: 8780477952, active: true },
            { validationId: 'v0', nodeId: SELF, subnetId: 's0', weight: 20, remainingBalanceNavax: 0, active: false },
          ],
        },
        { nodeId: 'NodeID-none', validations: [] },
      ],
    });
    const L1 = { network: 'fuji', node_id: SELF, subnet: 's1', validation_id: 'v1' };
    const L0 = { network: 'fuji', node_id: SELF, subnet: 's0', validation_id: 'v0' };
    expect(samples).toEqual([
      { name: 'avax_data_api_l1_validator_active', labels: L1, value: 1 },
      { name: 'avax_data_api_l1_validator_weight', labels: L1, value: 20 },
      { name: 'avax_data_api_l1_validator_balance_avax', labels: L1, value: 8.780477952 },
      { name: 'avax_data_api_l1_validator_active', labels: L0, value: 0 },
      { name: 'avax_data_api_l1_validator_weight', labels: L0, value: 20 },
      { name: 'avax_data_api_l1_validator_balance_avax', labels: L0, value: 0 },
    ]);
  });

  it('the watched subnets and validation ids of every node, once each', () => {
    const w = { nodeIds: [], allValidators: false, maxValidators: 10 };
    expect(
      collectWatchedL1Config([
        { ...w, subnetIds: ['s1', 's2'] },
        { ...w, subnetIds: ['s2'], validationIds: ['v9'] },
        { ...w, subnetIds: [] },
      ]),
    ).toEqual([
      { name: 'avax_exporter_watched_subnet', labels: { subnet: 's1' }, value: 1 },
      { name: 'avax_exporter_watched_subnet', labels: { subnet: 's2' }, value: 1 },
      { name: 'avax_exporter_watched_validation', labels: { validation_id: 'v9' }, value: 1 },
    ]);
  });
});

describe('Data API blocks: the P-Chain L1 figures (activeL1Validators, l1ValidatorsAccruedFees)', () => {
  it('exports both from the reference P-Chain block, fees in AVAX', () => {
    const b = blockItem.parse((loadFixture('dataapi.blocks.json').response.body as { blocks: unknown[] }).blocks[0]);
    expect([b.activeL1Validators, b.l1ValidatorsAccruedFees]).toEqual([1203, 52371237109]);
    const samples = collectDataApiBlocks({
      network: 'mainnet',
      heads: [{ chain: 'P', height: b.blockNumber, timestampSeconds: b.blockTimestamp, activeL1Validators: 1203, l1ValidatorsAccruedFeesNavax: 52371237109 }],
    });
    expect(samples.find((s) => s.name === 'avax_data_api_active_l1_validators')).toEqual({
      name: 'avax_data_api_active_l1_validators',
      labels: NET,
      value: 1203,
    });
    expect(samples.find((s) => s.name === 'avax_data_api_l1_validators_accrued_fees_avax')?.value).toBe(52.371237109);
  });

  it('absent, null or malformed reads as unknown: no series, and the block is still read', () => {
    const c = makeFakeBlock('c-chain', 5n, 100);
    for (const extra of [{}, { activeL1Validators: null, l1ValidatorsAccruedFees: null }, { activeL1Validators: 'many', l1ValidatorsAccruedFees: -3 }]) {
      const b = blockItem.parse({ ...c, ...extra });
      expect([b.activeL1Validators, b.l1ValidatorsAccruedFees]).toEqual([undefined, undefined]);
      const samples = collectDataApiBlocks({ network: 'mainnet', heads: [{ chain: 'C', height: b.blockNumber, timestampSeconds: b.blockTimestamp }] });
      expect(samples.map((s) => s.name)).toEqual(['avax_data_api_chain_height', 'avax_data_api_chain_block_timestamp_seconds']);
    }
  });
});

describe('fake Data API l1Validators', () => {
  it('filters by nodeId, subnetId and l1ValidationId, lists inactive ones only when asked, pages, and answers blockHeight as a string', async () => {
    const api = await FakeDataApi.start({ maxPageSize: 1 });
    cleanup.push(() => api.stop());
    const get = async (q: string) => (await (await fetch(`${api.url}/v1/networks/mainnet/l1Validators?${q}`)).json()) as Record<string, unknown>;
    const ids = (r: Record<string, unknown>) => (r['validators'] as { validationId: string }[]).map((v) => v.validationId);
    const active = await get(`nodeId=${SELF}`);
    expect(ids(active)).toEqual([FIXTURE_IDS.l1ValidationId]);
    expect(active['blockHeight']).toBe('23797323');
    const all1 = await get(`nodeId=${SELF}&includeInactiveL1Validators=true`);
    expect(ids(all1)).toEqual([FIXTURE_IDS.l1ValidationId]);
    const all2 = await get(`nodeId=${SELF}&includeInactiveL1Validators=true&pageToken=${String(all1['nextPageToken'])}`);
    expect(ids(all2)).toEqual([FAKE_OTHER_L1_VALIDATION_ID]);
    expect(all2['nextPageToken']).toBeUndefined();
    expect(ids(await get(`subnetId=${FAKE_OTHER_L1_SUBNET_ID}&includeInactiveL1Validators=true`))).toEqual([FAKE_OTHER_L1_VALIDATION_ID]);
    expect(ids(await get(`l1ValidationId=${FIXTURE_IDS.l1ValidationId}`))).toEqual([FIXTURE_IDS.l1ValidationId]);
    const bad = await fetch(`${api.url}/v1/networks/mainnet/l1Validators?includeInactiveL1Validators=maybe`);
    expect(bad.status).toBe(400);
    expect(api.callsTo('l1Validators').length).toBe(6);
  });

  it('the item shape is the reference one', () => {
    const ref = fixtureItem();
    const made = makeFakeL1Validator(SELF, FIXTURE_IDS.l1SubnetId, FIXTURE_IDS.l1ValidationId, 8780477952);
    expect(Object.keys(made).sort()).toEqual(Object.keys(ref).sort());
    for (const k of ['weight', 'remainingBalance', 'creationTimestamp']) expect(typeof made[k]).toBe('number');
  });
});

function keyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-key-')), 'k');
  writeFileSync(file, 'k\n');
  return file;
}

describe('end to end: L1 validations as the Data API sees them', () => {
  it('serves every L1 validation of the watched node (active and inactive, across pages), the P-Chain L1 figures, and the watched subnets and validations from the configuration', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const api = await FakeDataApi.start({ maxPageSize: 1 });
    cleanup.push(() => api.stop());
    const { daemon } = await startTestDaemon({
      nodes: [
        {
          name: 'fake',
          url: node.url,
          watch: { subnet_ids: [FIXTURE_IDS.l1SubnetId], validation_ids: ['2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS'] },
        },
      ],
      data_api: { url: api.url, key_file: keyFile(), interval: '500ms', rate_limit: 6000 },
    });
    cleanup.push(() => daemon.stop());
    let text = '';
    await eventually(async () => {
      text = await scrape(daemon);
      return (
        valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_l1_validators' }) === 1 &&
        valueOf(text, 'avax_data_api_active_l1_validators', NET) !== undefined
      );
    }, 10_000);
    const A = { ...NET, node_id: SELF, subnet: FIXTURE_IDS.l1SubnetId, validation_id: FIXTURE_IDS.l1ValidationId };
    const I = { ...NET, node_id: SELF, subnet: FAKE_OTHER_L1_SUBNET_ID, validation_id: FAKE_OTHER_L1_VALIDATION_ID };
    expect(valueOf(text, 'avax_data_api_l1_validator_active', A)).toBe(1);
    expect(valueOf(text, 'avax_data_api_l1_validator_balance_avax', A)).toBe(8.780477952);
    expect(valueOf(text, 'avax_data_api_l1_validator_weight', A)).toBe(20);
    expect(valueOf(text, 'avax_data_api_l1_validator_active', I)).toBe(0);
    expect(valueOf(text, 'avax_data_api_l1_validator_balance_avax', I)).toBe(0);
    expect(seriesOf(text, 'avax_data_api_l1_validator_active').every((s) => !('node' in s.labels))).toBe(true);
    // Only the watched node id is asked about, with the inactive ones.
    const calls = api.callsTo('l1Validators');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.query['nodeId'] === SELF && c.query['includeInactiveL1Validators'] === 'true')).toBe(true);
    expect(seriesOf(text, 'avax_data_api_l1_validator_active').map((s) => s.labels['node_id'])).not.toContain(FIXTURE_IDS.l1InactiveNodeId);
    // The P-Chain block's L1 figures.
    expect(valueOf(text, 'avax_data_api_active_l1_validators', NET)).toBe(1203);
    expect(valueOf(text, 'avax_data_api_l1_validators_accrued_fees_avax', NET)).toBe(52.371237109);
    expect(seriesOf(text, 'avax_data_api_active_l1_validators')).toHaveLength(1);
    // The exporter's own series, from the configuration.
    expect(valueOf(text, 'avax_exporter_watched_subnet', { subnet: FIXTURE_IDS.l1SubnetId })).toBe(1);
    expect(valueOf(text, 'avax_exporter_watched_validation', { validation_id: '2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS' })).toBe(1);
  });

  it('a malformed l1Validators answer fails that source only, as invalid_response', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const api = await FakeDataApi.start();
    cleanup.push(() => api.stop());
    api.setFault('l1Validators', { kind: 'body', body: JSON.stringify({ validators: [{ nodeId: SELF }], blockHeight: '1' }) });
    const { daemon } = await startTestDaemon({
      nodes: [{ name: 'fake', url: node.url }],
      data_api: { url: api.url, key_file: keyFile(), interval: '500ms', rate_limit: 6000 },
    });
    cleanup.push(() => daemon.stop());
    let text = '';
    await eventually(async () => {
      text = await scrape(daemon);
      return (
        valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_blocks' }) === 1 &&
        valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_l1_validators' }) === 0
      );
    }, 10_000);
    expect(
      valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source: 'data_api_l1_validators', reason: 'invalid_response' }),
    ).toBeGreaterThanOrEqual(1);
    expect(seriesOf(text, 'avax_data_api_l1_validator_active')).toEqual([]);
    expect(valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_validators' })).toBe(1);
  });
});

describe('demo Data API', () => {
  it('lists the demo node L1 validations: its active one from the node state and an inactive one', async () => {
    const demo = await startDemoNode();
    cleanup.push(() => demo.stop());
    const s = demoDataApiState(demo.node.state, 1_800_000_000);
    const mine = (s.l1Validators ?? []).filter((v) => v.nodeId === demo.node.state.nodeId);
    expect(mine.some((v) => v.remainingBalance > 0 && v.weight > 0)).toBe(true);
    expect(mine.some((v) => v.remainingBalance === 0)).toBe(true);
  });
});
