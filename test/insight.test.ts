import { describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import { PRIMARY_NETWORK_ID } from '../src/sources/node/validators/index.js';
import { scrape, seriesOf, perTestResources, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const SELF = FIXTURE_IDS.nodeId;
const L1 = FIXTURE_IDS.l1SubnetId;
const CHAIN = FIXTURE_IDS.l1ChainId;
const PERIOD = 1_000_000;

const { fakeNode, daemonFor } = perTestResources();

/** Gives the node's own primary validation a known period and uptime. */
function setSelf(node: FakeNode, startTime: number, uptimePercent: number): void {
  const self = node.state.primaryValidators.find((v) => v.nodeId === SELF);
  if (!self) throw new Error('fixture world has no self validator');
  self.startTime = startTime;
  self.endTime = startTime + PERIOD;
  self.uptime = uptimePercent;
}

describe('will this validator be rewarded?', () => {
  it('exports the uptime requirement from the upgrade schedule and the downtime budget at the poll time', async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const start = t0 - 1000;
    // a: helicon unscheduled (9999-12-01, as on mainnet today): 80 %, full uptime so the budget is all of the allowance.
    const a = await fakeNode();
    setSelf(a, start, 100);
    // b: helicon active before the validation started: 90 %; 90 % uptime over the ~1000 s elapsed.
    const b = await fakeNode();
    setSelf(b, start, 90);
    b.state.upgrades.heliconTime = new Date((start - 60) * 1000).toISOString().replace('.000Z', 'Z');
    // c: helicon scheduled after the validation started: still 80 %.
    const c = await fakeNode();
    setSelf(c, start, 100);
    c.state.upgrades.heliconTime = new Date((start + 60) * 1000).toISOString().replace('.000Z', 'Z');

    const { daemon } = await daemonFor({
      nodes: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
        { name: 'c', url: c.url },
      ],
    });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    const t1 = Math.floor(Date.now() / 1000);
    const v = (node: string) => ({ node, node_id: SELF, subnet: PRIMARY_NETWORK_ID });

    expect(valueOf(text, 'avax_node_upgrade_timestamp_seconds', { node: 'b', upgrade: 'helicon' })).toBe(start - 60);
    expect(seriesOf(text, 'avax_node_upgrade_timestamp_seconds', { node: 'a', upgrade: 'helicon' })).toEqual([]);
    expect(valueOf(text, 'avax_validator_reward_uptime_threshold_ratio', v('a'))).toBe(0.8);
    expect(valueOf(text, 'avax_validator_reward_uptime_threshold_ratio', v('b'))).toBe(0.9);
    expect(valueOf(text, 'avax_validator_reward_uptime_threshold_ratio', v('c'))).toBe(0.8);

    // a, c: (1 - 0.8) x 1,000,000 allowed, nothing used.
    expect(valueOf(text, 'avax_validator_downtime_budget_seconds', v('a'))).toBeCloseTo(200_000, 6);
    expect(valueOf(text, 'avax_validator_downtime_budget_seconds', v('c'))).toBeCloseTo(200_000, 6);
    // b: (1 - 0.9) x 1,000,000 allowed, (1 - 0.9) x (now - start) used, now being the poll time.
    const budgetB = valueOf(text, 'avax_validator_downtime_budget_seconds', v('b')) ?? NaN;
    expect(budgetB).toBeGreaterThanOrEqual(0.1 * PERIOD - 0.1 * (t1 - start) - 1e-6);
    expect(budgetB).toBeLessThanOrEqual(0.1 * PERIOD - 0.1 * (t0 - start) + 1e-6);
    // Only primary-network validators with an end time have a budget.
    expect(seriesOf(text, 'avax_validator_downtime_budget_seconds')).toHaveLength(3);
  });

  it('a lost reward is a negative budget', async () => {
    const node = await fakeNode();
    const start = Math.floor(Date.now() / 1000) - PERIOD / 2;
    setSelf(node, start, 50); // 250,000 s down already; 200,000 s allowed
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await waitUntilAllUp(daemon);
    const budget = valueOf(await scrape(daemon), 'avax_validator_downtime_budget_seconds', { node: 'fake', node_id: SELF }) ?? NaN;
    expect(budget).toBeLessThan(-49_990);
    expect(budget).toBeGreaterThan(-50_010);
  });
});

describe('L1 validators: uptime from the L1 chain, balance runway', () => {
  it('exports the L1 uptime per chain, the fee price and the runway, and follows a price change', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { subnet_ids: [L1] } }] });
    await waitUntilAllUp(daemon);
    const l1 = (id: string) => ({ node: 'fake', node_id: id, subnet: L1, chain: CHAIN });
    const runwayLabels = { node: 'fake', node_id: SELF, subnet: L1, validation_id: FIXTURE_IDS.l1ValidationId };
    const balance = node.state.subnets[L1]?.validators.find((v) => 'validationId' in v && v.validationId === FIXTURE_IDS.l1ValidationId);
    if (!balance || !('balance' in balance)) throw new Error('fixture world has no L1 validation for the node');

    const before = await scrape(daemon);
    expect(valueOf(before, 'avax_source_up', { node: 'fake', source: 'l1_uptime' })).toBe(1);
    expect(valueOf(before, 'avax_l1_validator_uptime_ratio', l1(SELF))).toBe(0.9998);
    expect(valueOf(before, 'avax_l1_validator_connected', l1(SELF))).toBe(1);
    expect(valueOf(before, 'avax_l1_validator_uptime_ratio', l1(FIXTURE_IDS.l1InactiveNodeId))).toBe(0.612);
    expect(valueOf(before, 'avax_l1_validator_connected', l1(FIXTURE_IDS.l1InactiveNodeId))).toBe(0);
    expect(valueOf(before, 'avax_l1_validator_fee_price_avax_per_second', { node: 'fake' })).toBe(512 / 1e9);
    expect(valueOf(before, 'avax_l1_validator_balance_runway_seconds', runwayLabels)).toBe(Number(balance.balance) / 512);
    // The inactive validator (balance 0) pays nothing and has no runway.
    expect(seriesOf(before, 'avax_l1_validator_balance_runway_seconds')).toHaveLength(1);

    node.state.validatorFeeState.price = 2048;
    const entry = node.state.l1Uptimes[CHAIN]?.[0];
    if (!entry) throw new Error('fixture world has no L1 uptime entry');
    entry.uptimePercentage = 42.5;
    entry.isConnected = false;
    await testHandle(daemon).waitForRounds(2);
    const after = await scrape(daemon);
    expect(valueOf(after, 'avax_l1_validator_fee_price_avax_per_second', { node: 'fake' })).toBe(2048 / 1e9);
    expect(valueOf(after, 'avax_l1_validator_balance_runway_seconds', runwayLabels)).toBe(Number(balance.balance) / 2048);
    expect(valueOf(after, 'avax_l1_validator_uptime_ratio', l1(SELF))).toBe(0.425);
    expect(valueOf(after, 'avax_l1_validator_connected', l1(SELF))).toBe(0);
  });

  it('a chain without the validators API (404) is skipped, not a failure; without watched subnets nothing is asked', async () => {
    const node = await fakeNode();
    delete node.state.l1Uptimes[CHAIN];
    const { daemon } = await daemonFor({
      nodes: [
        { name: 'fake', url: node.url, watch: { subnet_ids: [L1] } },
        { name: 'plain', url: node.url },
      ],
    });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'l1_uptime' })).toBe(1);
    // A node that watches no subnet is not asked at all: no l1_uptime series, not even avax_source_up.
    expect(seriesOf(text, 'avax_source_up', { node: 'plain', source: 'l1_uptime' })).toEqual([]);
    expect(seriesOf(text, 'avax_l1_validator_uptime_ratio')).toEqual([]);
    // The fee price is asked only by the node that watches subnets.
    expect(valueOf(text, 'avax_l1_validator_fee_price_avax_per_second', { node: 'fake' })).toBe(512 / 1e9);
    expect(seriesOf(text, 'avax_l1_validator_fee_price_avax_per_second', { node: 'plain' })).toEqual([]);
  });
});

describe('L1 validations watched by id (platform.getL1Validator)', () => {
  const GONE = '2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS';

  it('exports balance and runway of a watched validation without watching its L1, and says which ids are not found', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { validation_ids: [FIXTURE_IDS.l1ValidationId, GONE] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    const labels = { node: 'fake', node_id: SELF, subnet: L1, validation_id: FIXTURE_IDS.l1ValidationId };
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(1);
    expect(valueOf(text, 'avax_l1_validator_balance_avax', labels)).toBe(8.780477952);
    // The fee price is asked because a validation is watched, so the runway is there too.
    expect(valueOf(text, 'avax_l1_validator_balance_runway_seconds', labels)).toBe(8780477952 / 512);
    expect(valueOf(text, 'avax_validator_weight', { node: 'fake', node_id: SELF, subnet: L1 })).toBe(20);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: FIXTURE_IDS.l1ValidationId })).toBe(1);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: GONE })).toBe(0);
    // Only the watched validation of that L1, not its whole set.
    expect(seriesOf(text, 'avax_l1_validator_balance_avax')).toHaveLength(1);
    const lookups = node.calls.filter((c) => c.rpcMethod === 'platform.getL1Validator').map((c) => (c.params as { validationID?: string }).validationID);
    expect(new Set(lookups)).toEqual(new Set([FIXTURE_IDS.l1ValidationId, GONE]));
  });

  it('a validation of a watched L1 is exported once; an error answer about it blinds only the lookup, not the L1 set', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { subnet_ids: [L1], validation_ids: [FIXTURE_IDS.l1ValidationId] } }] });
    await waitUntilAllUp(daemon);
    let text = await scrape(daemon);
    expect(seriesOf(text, 'avax_l1_validator_balance_avax', { validation_id: FIXTURE_IDS.l1ValidationId })).toHaveLength(1);
    expect(seriesOf(text, 'avax_l1_validator_balance_avax')).toHaveLength(2); // the L1's two validators
    node.setFault('platform.getL1Validator', { kind: 'rpc-error', code: -32000, message: 'database closed' });
    await testHandle(daemon).waitForRounds(2);
    text = await scrape(daemon);
    // An answer about the id (see watched-ids.test.ts): that lookup is unknown; the L1's own set still lists the validation.
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(1);
    expect(valueOf(text, 'avax_l1_validation_lookup_success', { node: 'fake', validation_id: FIXTURE_IDS.l1ValidationId })).toBe(0);
    expect(seriesOf(text, 'avax_l1_validation_found', { validation_id: FIXTURE_IDS.l1ValidationId })).toEqual([]);
    expect(seriesOf(text, 'avax_l1_validator_balance_avax')).toHaveLength(2);
    // The node not answering at all is another matter: the whole source fails.
    node.setFault('platform.getL1Validator', { kind: 'status', status: 502 });
    await testHandle(daemon).waitForRounds(2);
    text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(0);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'fake', source: 'validators', reason: 'http_status' })).toBeGreaterThan(0);
  });
});

describe('uptime as the peers see the node', () => {
  it("exports nearest-rank quantiles of the connected peers' observed uptime", async () => {
    const node = await fakeNode();
    const template = node.state.peers[0];
    if (!template) throw new Error('fixture world has no peers');
    node.state.peers = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((u, i) => ({ ...template, nodeId: `${template.nodeId}${i}`, observedUptime: u }));
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_node_peers_observed_uptime_ratio', { node: 'fake', peer_quantile: '0.1' })).toBe(0.1);
    expect(valueOf(text, 'avax_node_peers_observed_uptime_ratio', { node: 'fake', peer_quantile: '0.5' })).toBe(0.5);
    expect(valueOf(text, 'avax_node_peers_observed_uptime_ratio', { node: 'fake', peer_quantile: '0.9' })).toBe(0.9);
    node.state.peers = [];
    await testHandle(daemon).waitForRounds(2);
    expect(seriesOf(await scrape(daemon), 'avax_node_peers_observed_uptime_ratio')).toEqual([]);
  });
});
