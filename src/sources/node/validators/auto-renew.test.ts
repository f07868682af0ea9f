import { describe, expect, it } from 'vitest';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { defaultFakeState, FIXTURE_IDS } from '../../../../test/fakes/fake-data.js';
import { autoRenewing } from '../../../../test/fakes/real-modes.js';
import { PRIMARY_NETWORK_ID, toRecord, validatorsResult, validatorsSource } from './index.js';
import { readValidatorEntry } from './validator-entry.js';
import { fixtureResult } from '../../../../test/helpers/fixtures.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from '../../../../test/helpers/daemon.js';

const ID = 'NodeID-Gd42CeDxis5Xx6aXYWa4H3KeDpEuXmb7i';

describe('auto-renewing validations (nextPeriod, autoCompoundRewardShares)', () => {
  it('reads the fixture the same way by the fast reader and by the schema, and exports renewal, next period and restaked share', () => {
    const raw = (fixtureResult('node.platform.getCurrentValidators.primary.json', 'auto-renewed-validator-master-only') as { validators: unknown[] })
      .validators[0];
    const record = toRecord(validatorsResult.parse({ validators: [raw] }).validators[0] as never);
    expect(readValidatorEntry(raw)).toEqual(record);
    expect(record.nextPeriod).toBe(1_209_600);
    expect(record.autoCompoundRewardShares).toBe(500_000);
    const samples = validatorsSource.collect({ subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: [record], watched: [ID], omitted: 0 }] }, 'n');
    const get = (name: string) => samples.find((s) => s.name === name)?.value;
    expect(get('avax_validator_renews')).toBe(1);
    expect(get('avax_validator_next_period_seconds')).toBe(1_209_600);
    expect(get('avax_validator_auto_compound_reward_ratio')).toBe(0.5);
    // endTime stays the end of the current cycle.
    expect(get('avax_validator_end_timestamp_seconds')).toBe(1_788_209_600);
  });

  it('a validation that is not auto-renewed: renews 0 and neither of the auto-renew series', () => {
    const raw = (fixtureResult('node.platform.getCurrentValidators.primary.json') as { validators: unknown[] }).validators[0];
    const record = toRecord(validatorsResult.parse({ validators: [raw] }).validators[0] as never);
    expect(record.nextPeriod).toBeUndefined();
    const samples = validatorsSource.collect({ subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: [record], watched: [], omitted: 0 }] }, 'n');
    expect(samples.find((s) => s.name === 'avax_validator_renews')?.value).toBe(0);
    expect(samples.filter((s) => s.name === 'avax_validator_next_period_seconds' || s.name === 'avax_validator_auto_compound_reward_ratio')).toHaveLength(0);
  });

  const { daemonFor } = perTestResources();
  it('against the fake node: one validation rolls over, one auto-renewed validation stops at the end of its cycle', async () => {
    const state = defaultFakeState();
    const other = state.primaryValidators.find((v) => v.nodeId !== state.nodeId);
    if (!other) throw new Error('the fixture world has a second validator');
    autoRenewing(state, FIXTURE_IDS.nodeId, 1_209_600, 250_000);
    autoRenewing(state, other.nodeId, 0, 0);
    const node = await FakeNode.start({ state });
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url, watch: { node_ids: [FIXTURE_IDS.nodeId, other.nodeId] } }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      const self = { node: 'n', node_id: FIXTURE_IDS.nodeId, subnet: PRIMARY_NETWORK_ID };
      const stops = { node: 'n', node_id: other.nodeId, subnet: PRIMARY_NETWORK_ID };
      expect(valueOf(text, 'avax_validator_renews', self)).toBe(1);
      expect(valueOf(text, 'avax_validator_next_period_seconds', self)).toBe(1_209_600);
      expect(valueOf(text, 'avax_validator_auto_compound_reward_ratio', self)).toBe(0.25);
      expect(valueOf(text, 'avax_validator_renews', stops)).toBe(0);
      expect(valueOf(text, 'avax_validator_next_period_seconds', stops)).toBe(0);
      expect(seriesOf(text, 'avax_validator_end_timestamp_seconds', self)).toHaveLength(1);
    } finally {
      await node.stop();
    }
  });
});
