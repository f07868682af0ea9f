import { describe, expect, it } from 'vitest';
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import { samplesOf, type Sample, type SampleGroup } from '../../../metrics/metric-defs.js';
import { collectValidatorGroups, collectValidators } from './collect.js';
import type { ValidatorRecord, ValidatorsValue } from './value.js';

const L1 = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';

function record(nodeId: string, over: Partial<ValidatorRecord> = {}): ValidatorRecord {
  return {
    nodeId,
    weight: 2_000_000_000_000n,
    startTime: 1_700_000_000,
    endTime: 1_800_000_000,
    validationId: undefined,
    balance: undefined,
    potentialReward: 5_000_000_000n,
    delegationFeeRatio: 0.02,
    uptimeRatio: 0.99,
    connected: true,
    delegatorCount: 3,
    delegatorWeight: 1_000_000_000n,
    nextPeriod: undefined,
    autoCompoundRewardShares: undefined,
    ...over,
  };
}

const primary = [record('NodeID-A'), record('NodeID-B', { connected: false }), record('NodeID-A', { weight: 1n })];
const l1 = [
  record('NodeID-L', { endTime: undefined, uptimeRatio: undefined, validationId: 'v1', balance: 1_000_000_000n }),
  record('NodeID-A', { endTime: undefined, uptimeRatio: undefined }),
];

function value(observedAt: number, subnets = [primary, l1]): ValidatorsValue {
  return {
    subnets: [
      { subnetId: PRIMARY_NETWORK_ID, validators: subnets[0] as ValidatorRecord[], watched: ['NodeID-A', 'NodeID-Gone'], omitted: 0 },
      { subnetId: L1, validators: subnets[1] as ValidatorRecord[], watched: ['NodeID-Gone'], omitted: 2 },
    ],
    observedAt,
    feePriceNavaxPerSecond: 512,
    operatorWatched: { ids: ['NodeID-B'], ownIdByDefault: false },
    validations: [],
  };
}

describe('collectValidatorGroups', () => {
  it('is collectValidators split: the groups one after the other are the same samples, each metric’s series in the same order', () => {
    const v = value(1_750_000_000);
    const groups = collectValidatorGroups(v, 'n1');
    const flat = collectValidators(v, 'n1');
    // Every sample once; the budgets, moved into a group of their own at the end, are the only ones out of place.
    const joined = groups.flatMap((g) => [...samplesOf(g)]);
    expect(joined).toHaveLength(flat.length);
    expect(new Set(joined)).toEqual(new Set(flat));
    const isBudget = (s: Sample): boolean => s.name === 'avax_validator_downtime_budget_seconds';
    expect(joined.filter((s) => !isBudget(s))).toEqual(flat.filter((s) => !isBudget(s)));
    expect(joined.filter(isBudget)).toEqual(flat.filter(isBudget));
    expect(samplesOf(groups.at(-1) ?? []).every(isBudget)).toBe(true);
    // Per metric, the order is what the exposition writes: the same as the flat list's.
    const byMetric = (list: readonly Sample[]): string[] =>
      [...list].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)).map((s) => JSON.stringify(s));
    expect(byMetric(joined)).toEqual(byMetric(flat));
  });

  it('gives an unchanged entry’s series as the same group in the next round, and a changed one’s anew', () => {
    const groups1 = collectValidatorGroups(value(1_750_000_000), 'n1');
    const changed = record('NodeID-B', { connected: true });
    const groups2 = collectValidatorGroups(value(1_750_000_060, [[primary[0] as ValidatorRecord, changed, primary[2] as ValidatorRecord], l1]), 'n1');
    const entryOf = (groups: readonly SampleGroup[], nodeId: string, subnet: string): SampleGroup | undefined =>
      groups.find((g) => {
        const s = samplesOf(g);
        return s[0]?.name === 'avax_validator_active' && s[0].labels.node_id === nodeId && s[0].labels.subnet === subnet && s.length > 1;
      });
    expect(entryOf(groups2, 'NodeID-A', PRIMARY_NETWORK_ID)).toBe(entryOf(groups1, 'NodeID-A', PRIMARY_NETWORK_ID));
    expect(entryOf(groups2, 'NodeID-L', L1)).toBe(entryOf(groups1, 'NodeID-L', L1));
    expect(entryOf(groups2, 'NodeID-B', PRIMARY_NETWORK_ID)).not.toBe(entryOf(groups1, 'NodeID-B', PRIMARY_NETWORK_ID));
    // The budgets move with the clock: a new group each round.
    expect(groups2.at(-1)).not.toBe(groups1.at(-1));
    expect(samplesOf(groups2.at(-1) ?? [])[0]?.value).not.toBe(samplesOf(groups1.at(-1) ?? [])[0]?.value);
  });
});
