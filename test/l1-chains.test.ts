import { describe, expect, it } from 'vitest';
import type { FakeL1Uptime } from './fakes/fake-node.js';
import { defaultFakeState, FIXTURE_IDS } from './fakes/fake-data.js';
import { addL1Chain, aliasChain, bootstrappingChain, inactiveL1Validator } from './fakes/real-modes.js';
import { capL1Uptimes, type L1UptimeRecord } from '../src/sources/node/l1-uptime/index.js';
import { callsInOneRound, perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp, withFakeNode } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const L1 = FIXTURE_IDS.l1SubnetId;
const CHAIN = FIXTURE_IDS.l1ChainId;

function uptime(nodeId: string, validationId: string, weight: number, uptimePercentage = 99.5): FakeL1Uptime {
  return {
    validationId,
    nodeId,
    weight,
    startTimestamp: 1734034648,
    isActive: true,
    isL1Validator: true,
    isConnected: true,
    uptimePercentage,
    uptimeSeconds: 1000,
  };
}

describe('L1 chains as real nodes report them', () => {
  const { daemonFor } = perTestResources();
  const withNode = withFakeNode;

  it('an aliased chain (--chain-aliases-file) is found by its alias, reported under its id, and its health check read by its alias', async () => {
    const state = aliasChain(defaultFakeState(), CHAIN, 'dexchain');
    await withNode(state, async (node) => {
      // The fake: the check is named by the alias, the API answers under both names, getBlockchainID resolves it.
      const report = (await (await fetch(`${node.url}/ext/health?tag=${L1}`)).json()) as { checks: Record<string, unknown> };
      expect(Object.keys(report.checks)).toContain('dexchain');
      expect(Object.keys(report.checks)).not.toContain(CHAIN);
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: CHAIN })).toBe(1);
      expect(valueOf(text, 'avax_l1_validator_uptime_ratio', { node: 'n', chain: CHAIN, node_id: FIXTURE_IDS.nodeId })).toBeCloseTo(0.9998, 6);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: CHAIN, state: 'ok' })).toBe(1);
      // All bootstrapped per the health report, which names the chain by its alias: no info.isBootstrapped per chain.
      const count = await callsInOneRound(node, daemon);
      expect(count('info.isBootstrapped')).toBe(0);
    });
  });

  it('a non-chain name in the tagged report that the node cannot resolve is left out, not a failure', async () => {
    const state = defaultFakeState();
    // A tagged check the node does not know as a chain alias (getBlockchainID errors).
    state.health['oddcheck'] = { message: {}, timestamp: '2026-08-22T15:40:31Z', duration: 1 };
    state.healthTags[L1] = [...(state.healthTags[L1] ?? []), 'oddcheck'];
    await withNode(state, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(
        seriesOf(text, 'avax_node_bootstrapped', { node: 'n' })
          .map((s) => s.labels['chain'])
          .sort(),
      ).toEqual(['C', CHAIN, 'P', 'X'].sort());
    });
  });

  it('one chain still bootstrapping (503) is marked so; the other chain of the L1 keeps its data and the source stays up', async () => {
    const state = defaultFakeState();
    const second = addL1Chain(state, L1, 'second', [uptime(FIXTURE_IDS.nodeId, FIXTURE_IDS.l1ValidationId, 20, 97)]);
    bootstrappingChain(state, CHAIN);
    await withNode(state, async (node) => {
      expect(
        (
          await fetch(`${node.url}/ext/bc/${CHAIN}/validators`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"validators.getCurrentValidators","params":{}}',
          })
        ).status,
      ).toBe(503);
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'l1_uptime' })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: CHAIN, state: 'bootstrapping' })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: CHAIN, state: 'ok' })).toBe(0);
      expect(seriesOf(text, 'avax_l1_validator_uptime_ratio', { node: 'n', chain: CHAIN })).toHaveLength(0);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: second, state: 'ok' })).toBe(1);
      expect(valueOf(text, 'avax_l1_validator_uptime_ratio', { node: 'n', chain: second, node_id: FIXTURE_IDS.nodeId })).toBeCloseTo(0.97, 6);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: CHAIN })).toBe(0);
      expect(valueOf(text, 'avax_node_bootstrapped', { node: 'n', chain: second })).toBe(1);
    });
  });

  it('one chain failing otherwise is marked failed, the others stay; every chain failing fails the source', async () => {
    const state = defaultFakeState();
    const second = addL1Chain(state, L1, 'second', [uptime(FIXTURE_IDS.nodeId, FIXTURE_IDS.l1ValidationId, 20, 97)]);
    await withNode(state, async (node) => {
      node.setFault(`POST /ext/bc/${CHAIN}/validators`, { kind: 'body', body: '{"jsonrpc":"2.0","result":{"validators":"nope"},"id":1}' });
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      let text = await scrape(daemon);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: CHAIN, state: 'failed' })).toBe(1);
      expect(valueOf(text, 'avax_l1_chain_state', { node: 'n', chain: second, state: 'ok' })).toBe(1);
      node.setFault(`POST /ext/bc/${second}/validators`, { kind: 'body', body: '{"jsonrpc":"2.0","result":{"validators":"nope"},"id":1}' });
      await testHandle(daemon).waitForRounds(2);
      text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'l1_uptime' })).toBe(0);
      expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'n', source: 'l1_uptime', reason: 'invalid_response' })).toBeGreaterThan(0);
    });
  });

  it('an inactive L1 validator (balance 0, isActive false) is exported as not active, by the P-Chain and by the L1', async () => {
    const state = inactiveL1Validator(defaultFakeState(), FIXTURE_IDS.l1ValidationId);
    await withNode(state, async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      const labels = { node: 'n', node_id: FIXTURE_IDS.nodeId, subnet: L1 };
      expect(valueOf(text, 'avax_validator_active', labels)).toBe(0);
      expect(valueOf(text, 'avax_l1_validator_balance_avax', labels)).toBe(0);
      expect(seriesOf(text, 'avax_l1_validator_balance_runway_seconds', labels)).toHaveLength(0);
      expect(valueOf(text, 'avax_l1_validator_active', { ...labels, chain: CHAIN })).toBe(0);
      // An active one next to it stays active (the fixture's inactive validator is the other way round).
      expect(valueOf(text, 'avax_validator_active', { node: 'n', node_id: FIXTURE_IDS.nodeId, subnet: '11111111111111111111111111111111LpoYY' })).toBe(1);
    });
  });

  it('the fixture world: the active L1 validator is active, the one with balance 0 is not', async () => {
    await withNode(defaultFakeState(), async (node) => {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { subnet_ids: [L1] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_validator_active', { node: 'n', node_id: FIXTURE_IDS.nodeId, subnet: L1 })).toBe(1);
      expect(valueOf(text, 'avax_validator_active', { node: 'n', node_id: FIXTURE_IDS.l1InactiveNodeId, subnet: L1 })).toBe(0);
      expect(valueOf(text, 'avax_l1_validator_active', { node: 'n', node_id: FIXTURE_IDS.l1InactiveNodeId, chain: CHAIN })).toBe(0);
    });
  });
});

describe('the L1 series cap keeps a stable choice', () => {
  const rec = (nodeId: string, weight: number | undefined, validationId = `v-${nodeId}`): L1UptimeRecord => ({
    nodeId,
    validationId,
    uptimeRatio: 1,
    connected: true,
    active: true,
    weight,
  });
  it('heaviest first, then by node id and validation id, whatever the input order', () => {
    const records = [rec('NodeID-C', 5), rec('NodeID-A', 5), rec('NodeID-B', 9), rec('NodeID-D', undefined), rec('NodeID-A', 5, 'v-0')];
    const expected = ['NodeID-B', 'NodeID-A', 'NodeID-A'];
    for (let i = 0; i < 20; i++) {
      const shuffled = [...records].sort(() => Math.random() - 0.5);
      const { validators, omitted } = capL1Uptimes(shuffled, 3);
      expect(validators.map((v) => v.nodeId)).toEqual(expected);
      expect(validators.map((v) => v.validationId)).toEqual(['v-NodeID-B', 'v-0', 'v-NodeID-A']);
      expect(omitted).toBe(2);
    }
    expect(capL1Uptimes(records, 10)).toEqual({ validators: records, omitted: 0 });
  });
});
