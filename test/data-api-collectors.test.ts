import { describe, expect, it } from 'vitest';
import { loadFixture } from './helpers/fixtures.js';
import { advanceProposer } from '../src/sources/data-api/node-blocks/proposer.js';
import { blockItem, type BlockItem } from '../src/sources/data-api/common/schemas.js';
import { dataApiBlocksSource } from '../src/sources/data-api/blocks/index.js';
import { dataApiNodeBlocksSource } from '../src/sources/data-api/node-blocks/index.js';
import { dataApiValidatorsSource, toValidation, validationItem, validationListItem } from '../src/sources/data-api/validators/index.js';
import type { DataApiValidation, DataApiValidatorsValue } from '../src/sources/data-api/validators/value.js';
import { collectDataApiStats } from '../src/sources/data-api/common/stats.js';
import { currentValidation } from '../src/sources/data-api/validators/collect.js';
import { uintString } from '../src/http/wire.js';
import type { Sample } from '../src/metrics/metric-defs.js';

const SELF = 'NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const LEGACY = '2SjTv8xi4MayzPvgmmhQXbw3ZMdDnEauNqbJUpkh3wPEHR15Kd';
const L = `network="mainnet",node_id="${SELF}",subnet="${PRIMARY}"`;
const N = `network="mainnet",node_id="${SELF}"`;

function line(s: Sample): string {
  const labels = Object.entries(s.labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return `${s.name}{${labels}} ${s.value}`;
}

/** The validations of a fixture response, through the source's item schema (optionally edited first). */
function validations(variant?: string, edit: (items: Record<string, unknown>[]) => Record<string, unknown>[] = (x) => x): DataApiValidation[] {
  const body = loadFixture('dataapi.validators.nodeId.json', variant).response.body as { validators: Record<string, unknown>[] };
  return edit(structuredClone(body.validators)).flatMap((v) => toValidation(validationItem.parse(v)) ?? []);
}

function value(vs: DataApiValidation[]): DataApiValidatorsValue {
  return { network: 'mainnet', nodes: [{ nodeId: SELF, validations: vs }] };
}

const statuses = (active: number, pending: number, completed: number, removed: number, subnet = PRIMARY) => [
  `avax_data_api_validator_status{network="mainnet",node_id="${SELF}",subnet="${subnet}",status="active"} ${active}`,
  `avax_data_api_validator_status{network="mainnet",node_id="${SELF}",subnet="${subnet}",status="pending"} ${pending}`,
  `avax_data_api_validator_status{network="mainnet",node_id="${SELF}",subnet="${subnet}",status="completed"} ${completed}`,
  `avax_data_api_validator_status{network="mainnet",node_id="${SELF}",subnet="${subnet}",status="removed"} ${removed}`,
];

const ACTIVE_LINES = [
  ...statuses(1, 0, 0, 0),
  `avax_data_api_validator_end_timestamp_seconds{${L}} 1782936000`,
  `avax_data_api_validator_stake_avax{${L}} 2000`,
  `avax_data_api_validator_uptime_ratio{${L}} 0.9987`,
  `avax_data_api_validator_delegators{${L}} 1`,
  `avax_data_api_validator_delegated_avax{${L}} 25`,
  `avax_data_api_validator_delegation_capacity_avax{${L}} 7975`,
  `avax_data_api_validator_potential_reward_avax{${L},kind="validation"} 117.431493426`,
  `avax_data_api_validator_potential_reward_avax{${L},kind="delegation"} 0.234862987`,
  `avax_data_api_validator_reachability_ratio{${N}} 1`,
  `avax_data_api_validator_benched_requests_ratio{${N},chain="P"} 0`,
  `avax_data_api_validator_benched_requests_ratio{${N},chain="X"} 0`,
  `avax_data_api_validator_benched_requests_ratio{${N},chain="C"} 0.004`,
  `avax_data_api_validator_version_info{${N},version="avalanchego/1.14.2"} 1`,
];

describe('Data API validators collector', () => {
  it('an active validation with every field the real service adds', () => {
    expect(dataApiValidatorsSource.collect(value(validations()), 'data_api').map(line)).toEqual(ACTIVE_LINES);
  });

  /** What the fixture's completed validation (rewarded 118.004212871 AVAX, no delegation fees) adds. */
  const COMPLETED_LINES = [
    `avax_data_api_validator_last_completed_end_timestamp_seconds{${L}} 1751400000`,
    `avax_data_api_validator_last_reward_avax{${L},kind="validation"} 118.004212871`,
    `avax_data_api_validator_last_reward_denied{${L}} 0`,
    `avax_data_api_validator_last_reward_avax{${L},kind="delegation"} 0`,
  ];

  it('an active validation and a newer pending renewal: the active one is current; a completed one only adds its outcome', () => {
    expect(dataApiValidatorsSource.collect(value(validations('all-statuses-paged')), 'data_api').map(line)).toEqual([
      ...ACTIVE_LINES.slice(0, 4),
      ...COMPLETED_LINES,
      ...ACTIVE_LINES.slice(4),
    ]);
  });

  it('pending only: status, end and stake', () => {
    const vs = validations('all-statuses-paged', (items) => items.filter((i) => i['validationStatus'] === 'pending'));
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual([
      ...statuses(0, 1, 0, 0),
      `avax_data_api_validator_end_timestamp_seconds{${L}} 1814472100`,
      `avax_data_api_validator_stake_avax{${L}} 2000`,
    ]);
  });

  it('completed only: the status and its outcome, nothing that describes a validation in progress', () => {
    const vs = validations('all-statuses-paged', (items) => items.filter((i) => i['validationStatus'] === 'completed'));
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual([...statuses(0, 0, 1, 0), ...COMPLETED_LINES]);
  });

  it('a denied reward (validationRewardAmount 0): denied 1; only the newest completed validation counts', () => {
    const vs = validations('all-statuses-paged', (items) => {
      const done = items.find((i) => i['validationStatus'] === 'completed') as Record<string, unknown>;
      const denied = {
        ...done,
        txHash: 'denied',
        startTimestamp: 1751400000,
        endTimestamp: 1782936000,
        rewards: { validationRewardAmount: '0', delegationRewardAmount: '0', rewardAddresses: [] },
      };
      return [denied, done];
    });
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual([
      ...statuses(0, 0, 1, 0),
      `avax_data_api_validator_last_completed_end_timestamp_seconds{${L}} 1782936000`,
      `avax_data_api_validator_last_reward_avax{${L},kind="validation"} 0`,
      `avax_data_api_validator_last_reward_denied{${L}} 1`,
      `avax_data_api_validator_last_reward_avax{${L},kind="delegation"} 0`,
    ]);
  });

  it('removed from a permissioned subnet: its status and removal time there; the primary network has no validation (all 0)', () => {
    expect(dataApiValidatorsSource.collect(value(validations('removed-permissioned-subnet-validator')), 'data_api').map(line)).toEqual([
      ...statuses(0, 0, 0, 0),
      ...statuses(0, 0, 0, 1, LEGACY),
      `avax_data_api_validator_remove_timestamp_seconds{network="mainnet",node_id="${SELF}",subnet="${LEGACY}"} 1760000000`,
    ]);
  });

  it('null or out-of-range optional fields drop only their own series; the validation and the page stay', () => {
    const vs = validations(undefined, (items) => [
      {
        ...items[0],
        uptimePerformance: null,
        avalancheGoVersion: null,
        delegationCapacity: '-25000000000',
        amountDelegated: 25000000000,
        delegatorCount: -1,
        potentialRewards: { validationRewardAmount: '117431493426', delegationRewardAmount: null },
        validatorHealth: {
          reachabilityPercent: 100.4,
          benchedPChainRequestsPercent: null,
          benchedXChainRequestsPercent: 'n/a',
          benchedCChainRequestsPercent: 0.4,
        },
      },
    ]);
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual([
      ...statuses(1, 0, 0, 0),
      `avax_data_api_validator_end_timestamp_seconds{${L}} 1782936000`,
      `avax_data_api_validator_stake_avax{${L}} 2000`,
      `avax_data_api_validator_potential_reward_avax{${L},kind="validation"} 117.431493426`,
      `avax_data_api_validator_benched_requests_ratio{${N},chain="C"} 0.004`,
    ]);
    // A whole object null or of another type is absent too.
    const bare = validations(undefined, (items) => [{ ...items[0], validatorHealth: null, potentialRewards: 'soon' }]);
    expect(bare[0]?.benchedRatio).toBeUndefined();
    expect(bare[0]?.potentialValidationReward).toBeUndefined();
    expect(bare[0]?.uptimeRatio).toBe(0.9987);
  });

  it('a block whose proposer is null or empty reads as "proposer not known", not as a broken page', () => {
    expect(blockItem.parse({ blockNumber: '5', blockTimestamp: 10, blockType: 'FutureStandardBlock', proposerDetails: { proposerNodeId: null } })).toEqual({
      blockNumber: 5n,
      blockTimestamp: 10,
      proposerDetails: { proposerNodeId: undefined },
    });
    expect(blockItem.parse({ blockNumber: '5', blockTimestamp: 10, proposerDetails: null }).proposerDetails).toBeUndefined();
    expect(blockItem.safeParse({ blockNumber: null, blockTimestamp: 10 }).success).toBe(false);
  });

  it('a required field stays required: a validation without a stake or an end is not made up', () => {
    const body = loadFixture('dataapi.validators.nodeId.json').response.body as { validators: Record<string, unknown>[] };
    expect(validationListItem.safeParse({ ...body.validators[0], endTimestamp: null }).success).toBe(false);
    expect(validationListItem.safeParse({ ...body.validators[0], amountStaked: -1 }).success).toBe(false);
    // An unknown status is dropped before anything else is looked at: a future status need not carry today's fields.
    expect(validationListItem.parse({ txHash: 'x', validationStatus: 'slashed' })).toBeUndefined();
  });

  it('no validations at all: every status 0 on the primary network', () => {
    expect(dataApiValidatorsSource.collect(value(validations('no-matches')), 'data_api').map(line)).toEqual(statuses(0, 0, 0, 0));
  });

  it('an active validation without the optional fields: status, end and stake only', () => {
    const optional = [
      'delegationFee',
      'blsCredentials',
      'amountDelegated',
      'avalancheGoVersion',
      'delegationCapacity',
      'uptimePerformance',
      'potentialRewards',
      'validatorHealth',
      'delegatorCount',
      'stakePercentage',
      'geolocation',
    ];
    const vs = validations(undefined, (items) => items.map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => !optional.includes(k)))));
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual([
      ...statuses(1, 0, 0, 0),
      `avax_data_api_validator_end_timestamp_seconds{${L}} 1782936000`,
      `avax_data_api_validator_stake_avax{${L}} 2000`,
    ]);
  });

  it('unknown fields are ignored, an unknown status is dropped', () => {
    const vs = validations(undefined, (items) => [
      { ...items[0], somethingNew: { nested: [1, 2] }, validatorHealth: { ...(items[0]?.['validatorHealth'] as object), benchedQChainRequestsPercent: 3 } },
      { ...items[0], txHash: 'x', validationStatus: 'slashed' },
    ]);
    expect(vs).toHaveLength(1);
    expect(dataApiValidatorsSource.collect(value(vs), 'data_api').map(line)).toEqual(ACTIVE_LINES);
  });

  it('the current validation: active wins, else the newest start', () => {
    const v = (status: DataApiValidation['status'], start: number): DataApiValidation => ({
      txHash: `${status}${start}`,
      subnetId: PRIMARY,
      status,
      startTimestamp: start,
      endTimestamp: start + 10,
      amountStaked: 1n,
    });
    expect(currentValidation([v('pending', 30), v('active', 20), v('completed', 10)])?.status).toBe('active');
    expect(currentValidation([v('completed', 10), v('pending', 30)])?.status).toBe('pending');
    expect(currentValidation([v('completed', 10), v('removed', 15)])?.status).toBe('removed');
    expect(currentValidation([])).toBeUndefined();
  });
});

describe('Data API blocks collectors', () => {
  const block = (height: number, ts: number, proposer?: string): BlockItem => ({
    blockNumber: BigInt(height),
    blockTimestamp: ts,
    proposerDetails: proposer ? { proposerNodeId: proposer } : undefined,
  });

  it('the first poll is the baseline: 0, with the newest proposed block', () => {
    const s = advanceProposer(undefined, SELF, 'P', [block(23797322, 1766080368, SELF)], 1766080400);
    expect(s).toEqual({ nodeId: SELF, chain: 'P', count: 0, last: { height: 23797322n, timestampSeconds: 1766080368 }, sinceSeconds: 1766080400 });
    expect(dataApiNodeBlocksSource.collect({ network: 'mainnet', proposers: [s] }, 'data_api').map(line)).toEqual([
      `avax_validator_proposed_blocks_total{network="mainnet",node_id="${SELF}",chain="P"} 0`,
      `avax_validator_last_proposed_block_height{network="mainnet",node_id="${SELF}",chain="P"} 23797322`,
      `avax_validator_last_proposed_block_timestamp_seconds{network="mainnet",node_id="${SELF}",chain="P"} 1766080368`,
    ]);
  });

  it('later polls count each new height once; old, repeated and foreign blocks are not counted', () => {
    const base = advanceProposer(undefined, SELF, 'P', [block(100, 1000, SELF)], 1001);
    const next = advanceProposer(
      base,
      SELF,
      'P',
      [block(103, 1030, SELF), block(101, 1010), block(101, 1010, SELF), block(102, 1020, 'NodeID-other'), block(100, 1000, SELF), block(90, 900, SELF)],
      1040,
    );
    expect(next).toMatchObject({ count: 2, last: { height: 103n, timestampSeconds: 1030 } });
    expect(advanceProposer(next, SELF, 'P', [block(103, 1030, SELF)], 1050)).toMatchObject({ count: 2, last: { height: 103n } });
  });

  it('a node that had proposed nothing: blocks after the first poll are new, older ones are not', () => {
    const base = advanceProposer(undefined, SELF, 'P', [], 1000);
    expect(dataApiNodeBlocksSource.collect({ network: 'fuji', proposers: [base] }, 'data_api').map(line)).toEqual([
      `avax_validator_proposed_blocks_total{network="fuji",node_id="${SELF}",chain="P"} 0`,
    ]);
    expect(advanceProposer(base, SELF, 'P', [block(7, 1005, SELF), block(5, 990, SELF)], 1010)).toMatchObject({ count: 1, last: { height: 7n } });
  });

  it('chain heads from the latest-blocks fixtures', () => {
    const heads = (file: string, variant?: string) => {
      const b = (loadFixture(file, variant).response.body as { blocks: { blockNumber: string; blockTimestamp: number }[] }).blocks[0];
      if (!b) throw new Error('no block');
      return { height: uintString.parse(b.blockNumber), timestampSeconds: b.blockTimestamp };
    };
    const v = {
      network: 'mainnet' as const,
      heads: [
        { chain: 'P' as const, ...heads('dataapi.blocks.json') },
        { chain: 'C' as const, ...heads('dataapi.blocks.json', 'c-chain') },
      ],
    };
    expect(dataApiBlocksSource.collect(v, 'data_api').map(line)).toEqual([
      'avax_data_api_chain_height{network="mainnet",chain="P"} 23797323',
      'avax_data_api_chain_block_timestamp_seconds{network="mainnet",chain="P"} 1766080370',
      'avax_data_api_chain_height{network="mainnet",chain="C"} 71234567',
      'avax_data_api_chain_block_timestamp_seconds{network="mainnet",chain="C"} 1787413231',
    ]);
  });

  it('the 429 counter', () => {
    expect(collectDataApiStats('fuji', { rateLimited: 3 }).map(line)).toEqual(['avax_data_api_rate_limited_total{network="fuji"} 3']);
  });
});
