import { describe, expect, it } from 'vitest';
import { fixtureResult, loadFixture } from './helpers/fixtures.js';
import { healthBodySchema, healthSource, healthValueFrom, type HealthAnswer } from '../src/sources/node/health/index.js';
import { infoSource, parseUpgrades, upgradesResult } from '../src/sources/node/info/index.js';
import { peersResult, peersSource, peersValueFrom } from '../src/sources/node/peers/index.js';
import { uptimeResult, uptimeSource } from '../src/sources/node/uptime/index.js';
import { PRIMARY_NETWORK_ID, capValidators, toRecord, validatorsResult, validatorsSource, type ValidatorsValue } from '../src/sources/node/validators/index.js';
import { pChainSource, cChainSource } from '../src/sources/node/chain-height/index.js';
import { bootstrappedSource } from '../src/sources/node/bootstrapped/index.js';
import { REWARD_UPTIME_UPGRADE, rewardUptimeUpgradeTime } from '../src/sources/node/info/index.js';
import { validatorFeeStateResult } from '../src/sources/node/validators/index.js';
import { l1UptimeResult, l1UptimeSource, toL1UptimeRecord } from '../src/sources/node/l1-uptime/index.js';
import { nearestRank } from '../src/domain/rules.js';
import type { Sample } from '../src/metrics/metric-defs.js';

const NODE = 'n1';
const SELF = 'NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD';
const L1 = '2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91';
const FIXTURE_DISCONNECTED = 'NodeID-PtGRyk3H8tq5BYupng51dfnFXpwJMRvjp';

function answer(file: string, variant?: string): HealthAnswer {
  const ex = loadFixture(file, variant);
  return { ok: ex.response.status === 200, body: healthBodySchema.parse(ex.response.body) };
}

function line(s: Sample): string {
  const labels = Object.entries(s.labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return `${s.name}{${labels}} ${s.value}`;
}

describe('info.upgrades from a newer node', () => {
  it('a new field of another kind (object, list, boolean, null) is ignored, the schedule still read', () => {
    const raw = {
      ...(fixtureResult('node.info.upgrades.json') as Record<string, unknown>),
      futureEpochConfig: { durationNs: 1 },
      someList: [1, 2],
      flag: true,
      nothing: null,
      oddTime: { at: 1 },
    };
    const parsed = upgradesResult.safeParse(raw);
    expect(parsed.success).toBe(true);
    const upgrades = parseUpgrades(parsed.success ? parsed.data : {});
    expect(upgrades.map((u) => u.name)).toContain('granite');
    expect(upgrades.map((u) => u.name)).not.toContain('odd');
    expect(upgrades).toEqual(parseUpgrades(upgradesResult.parse(fixtureResult('node.info.upgrades.json'))));
  });
});

describe('health collector', () => {
  it('healthy node: every check passing, no failing-since series', () => {
    const v = healthValueFrom(answer('node.health.GET.json'), answer('node.health.GET.json', 'readiness'), answer('node.health.GET.json', 'liveness'));
    const lines = healthSource.collect(v, NODE).map(line);
    expect(lines.slice(0, 4)).toEqual([
      'avax_node_healthy{node="n1"} 1',
      'avax_node_ready{node="n1"} 1',
      'avax_node_live{node="n1"} 1',
      'avax_node_partial_sync{node="n1"} 0',
    ]);
    const checks = ['C', 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'];
    // The futureupgrade details follow the checks (test/future-upgrade.test.ts reads them).
    const upgrade = lines.findIndex((l) => l.startsWith('avax_node_future_upgrade_'));
    expect(lines.slice(4, upgrade)).toEqual(
      checks.flatMap((c) => [
        `avax_node_health_check_passing{node="n1",check="${c}"} 1`,
        `avax_node_health_check_contiguous_failures{node="n1",check="${c}"} 0`,
      ]),
    );
  });

  it('bootstrapping node (503): failing checks with counts and first failure, "not yet run" has no real start', () => {
    const v = healthValueFrom(
      answer('node.health.GET.json', 'unhealthy-bootstrapping-503'),
      answer('node.health.GET.json', 'readiness'),
      answer('node.health.GET.json', 'liveness'),
    );
    const lines = healthSource.collect(v, NODE).map(line);
    expect(lines).toContain('avax_node_healthy{node="n1"} 0');
    expect(lines).toContain('avax_node_health_check_passing{node="n1",check="bootstrapped"} 0');
    expect(lines).toContain('avax_node_health_check_contiguous_failures{node="n1",check="bootstrapped"} 41');
    expect(lines).toContain(
      `avax_node_health_check_failing_since_timestamp_seconds{node="n1",check="bootstrapped"} ${Date.parse('2026-08-22T15:20:01.004417523Z') / 1000}`,
    );
    expect(lines).toContain('avax_node_health_check_passing{node="n1",check="X"} 0');
    expect(lines.filter((l) => l.includes('failing_since') && l.includes('check="X"'))).toEqual([]);
    expect(lines).toContain('avax_node_health_check_passing{node="n1",check="P"} 1');
  });

  it('tag-filtered L1 failure keys the check by blockchain id', () => {
    const v = healthValueFrom(
      answer('node.health.GET.json', 'tag-filtered-L1-unhealthy-503'),
      answer('node.health.GET.json', 'readiness'),
      answer('node.health.GET.json', 'liveness'),
    );
    const lines = healthSource.collect(v, NODE).map(line);
    expect(lines).toContain('avax_node_health_check_contiguous_failures{node="n1",check="E6u8tgmrdLbw7Q35UpAccW88XC5nAKbiKADbqZ8ZXhbMEd6vk"} 7');
  });
});

describe('info collector', () => {
  it('exports identity and only scheduled upgrades', () => {
    const upgrades = parseUpgrades(upgradesResult.parse(fixtureResult('node.info.upgrades.json')));
    const samples = infoSource.collect(
      { nodeId: SELF, version: 'avalanchego/1.14.2', databaseVersion: 'v1.4.5', gitCommit: 'abc', networkId: 1, networkName: 'mainnet', upgrades },
      NODE,
    );
    const lines = samples.map(line);
    expect(lines[0]).toBe(
      `avax_node_info{node="n1",node_id="${SELF}",version="avalanchego/1.14.2",network="mainnet",database_version="v1.4.5",git_commit="abc"} 1`,
    );
    expect(lines[1]).toBe('avax_node_network_id{node="n1"} 1');
    expect(lines).toContain(`avax_node_upgrade_timestamp_seconds{node="n1",upgrade="granite"} ${Date.parse('2025-11-19T16:00:00Z') / 1000}`);
    expect(lines).toContain(`avax_node_upgrade_timestamp_seconds{node="n1",upgrade="apricotPhase1"} ${Date.parse('2021-03-31T14:00:00Z') / 1000}`);
    expect(lines.some((l) => l.includes('helicon'))).toBe(false); // 9999-12-01: unscheduled
    expect(lines.some((l) => l.includes('apricotPhase4MinPChainHeight') || l.includes('graniteEpoch'))).toBe(false);
    expect(samples.filter((s) => s.name === 'avax_node_upgrade_timestamp_seconds')).toHaveLength(14);
  });
});

describe('peers collector', () => {
  it('counts peers per version and benched peers per chain', () => {
    const v = peersValueFrom(peersResult.parse(fixtureResult('node.info.peers.json')));
    expect(peersSource.collect(v, NODE).map(line)).toEqual([
      'avax_node_peers{node="n1"} 3',
      'avax_node_peers_by_version{node="n1",version="avalanchego/1.14.2"} 2',
      'avax_node_peers_by_version{node="n1",version="avalanchego/1.14.1"} 1',
      // Every peer reports Granite's activation (1763568000) as its latest upgrade time.
      'avax_node_peers_by_upgrade_time{node="n1",upgrade_time="1763568000"} 3',
      'avax_node_peers_benched{node="n1",chain="C"} 1',
      // observedUptime "99", "75", "0": nearest-rank quantiles over the three peers.
      'avax_node_peers_observed_uptime_ratio{node="n1",peer_quantile="0.1"} 0',
      'avax_node_peers_observed_uptime_ratio{node="n1",peer_quantile="0.5"} 0.75',
      'avax_node_peers_observed_uptime_ratio{node="n1",peer_quantile="0.9"} 0.99',
    ]);
  });
  it('no peers: zero and nothing else', () => {
    const v = peersValueFrom(peersResult.parse(fixtureResult('node.info.peers.json', 'no-peers')));
    expect(peersSource.collect(v, NODE).map(line)).toEqual(['avax_node_peers{node="n1"} 0']);
  });
});

describe('uptime collector', () => {
  it('percent strings become ratios', () => {
    const r = uptimeResult.parse(fixtureResult('node.info.uptime.json'));
    const lines = uptimeSource
      .collect({ isValidator: true, rewardingStakeRatio: r.rewardingStakePercentage, weightedAverageRatio: r.weightedAveragePercentage }, NODE)
      .map(line);
    expect(lines).toEqual([
      'avax_node_is_validator{node="n1"} 1',
      'avax_node_uptime_rewarding_stake_ratio{node="n1"} 1',
      'avax_node_uptime_weighted_average_ratio{node="n1"} 0.997214',
    ]);
  });
  it('a non-validator has only is_validator 0', () => {
    expect(uptimeSource.collect({ isValidator: false }, NODE).map(line)).toEqual(['avax_node_is_validator{node="n1"} 0']);
  });
  it('rejects percentages that are not percentages', () => {
    // A JSON number 0..100 is the specification's float64 form and is accepted (test/lenient-numbers.test.ts);
    // one outside the range is not.
    for (const bad of ['NaN', '', '-1.0000', '100.0001', '1e2', 100.5, -0.5]) {
      expect(uptimeResult.safeParse({ rewardingStakePercentage: bad, weightedAveragePercentage: '1.0000' }).success).toBe(false);
    }
  });
});

describe('validators collector', () => {
  const primary = (variant?: string) =>
    validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.primary.json', variant)).validators.map(toRecord);

  it('a watched primary validator (single nodeIDs variant)', () => {
    const v: ValidatorsValue = { subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: primary(), watched: [SELF], omitted: 0 }] };
    const L = `node="n1",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"`;
    expect(validatorsSource.collect(v, NODE).map(line)).toEqual([
      `avax_validator_active{${L}} 1`,
      `avax_validator_weight{${L}} 2000000000000`,
      `avax_validator_start_timestamp_seconds{${L}} 1751400000`,
      `avax_validator_end_timestamp_seconds{${L}} 1782936000`,
      `avax_validator_uptime_ratio{${L}} 0.998712`,
      `avax_validator_connected{${L}} 1`,
      `avax_validator_potential_reward_avax{${L}} 117.431493426`,
      `avax_validator_delegator_weight_avax{${L}} 25`,
      `avax_validator_delegators{${L}} 1`,
      `avax_validator_delegation_fee_ratio{${L}} 0.02`,
      `avax_validator_renews{${L}} 0`,
      `avax_validator_reward_uptime_threshold_ratio{${L}} 0.8`,
      `avax_exporter_validators_omitted{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0`,
    ]);
  });

  it('all validators: a disconnected one with 0 uptime; a watched id that is absent gets active 0', () => {
    const absent = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
    const v: ValidatorsValue = {
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: primary('all-validators-no-delegators-field'), watched: [absent], omitted: 0 }],
    };
    const lines = validatorsSource.collect(v, NODE).map(line);
    const L = `node="n1",node_id="NodeID-PtGRyk3H8tq5BYupng51dfnFXpwJMRvjp",subnet="${PRIMARY_NETWORK_ID}"`;
    expect(lines).toContain(`avax_validator_connected{${L}} 0`);
    expect(lines).toContain(`avax_validator_uptime_ratio{${L}} 0`);
    expect(lines).toContain(`avax_validator_delegators{${L}} 0`);
    expect(lines.at(-1)).toBe(`avax_validator_active{node="n1",node_id="${absent}",subnet="${PRIMARY_NETWORK_ID}"} 0`);
    expect(lines.filter((l) => l.startsWith('avax_validator_active{') && l.endsWith(' 1'))).toHaveLength(2);
  });

  it('auto-renewed validator (extra keys ignored) and legacy permissioned subnet staker (bare fields)', () => {
    const renewed = primary('auto-renewed-validator-master-only');
    expect(renewed[0]?.uptimeRatio).toBe(1);
    const legacy = validatorsResult
      .parse(fixtureResult('node.platform.getCurrentValidators.primary.json', 'legacy-permissioned-subnet'))
      .validators.map(toRecord);
    const lines = validatorsSource.collect({ subnets: [{ subnetId: 'legacy', validators: legacy, watched: [], omitted: 0 }] }, NODE).map(line);
    const L = `node="n1",node_id="${SELF}",subnet="legacy"`;
    expect(lines).toEqual([
      `avax_validator_active{${L}} 1`,
      `avax_validator_weight{${L}} 20`,
      `avax_validator_start_timestamp_seconds{${L}} 1740000000`,
      `avax_validator_end_timestamp_seconds{${L}} 1800000000`,
      `avax_exporter_validators_omitted{node="n1",subnet="legacy"} 0`,
    ]);
  });

  it('L1 validators: balance with validation id, no end time, uptime or delegations', () => {
    const l1 = validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.l1.json')).validators.map(toRecord);
    const lines = validatorsSource.collect({ subnets: [{ subnetId: L1, validators: l1, watched: [], omitted: 0 }] }, NODE).map(line);
    const L = `node="n1",node_id="${SELF}",subnet="${L1}"`;
    expect(lines.slice(0, 4)).toEqual([
      `avax_validator_active{${L}} 1`,
      `avax_validator_weight{${L}} 20`,
      `avax_validator_start_timestamp_seconds{${L}} 1734034648`,
      `avax_l1_validator_balance_avax{${L},validation_id="2wTscvX3JUsMbZHFRd9t8Ywz2q9j2BmETg8cTvgUHgawjbSvZX"} 8.780477952`,
    ]);
    expect(lines).toContain(
      `avax_l1_validator_balance_avax{node="n1",node_id="NodeID-JBJCCt8J7Ww5MWPxYdrepWDs9xa1y42mq",subnet="${L1}",validation_id="H7Fjzmi4BY6PA9QaNF9GnuMDojjzZ3mcSu5k1z3R4pD6Exj7c"} 0`,
    );
    expect(lines.some((l) => /end_timestamp|uptime|delegat|connected/.test(l))).toBe(false);
  });

  it('caps the exported set: watched validators first, then the heaviest; the rest are counted', () => {
    const all = primary('all-validators-no-delegators-field');
    const capped = capValidators(PRIMARY_NETWORK_ID, all, [FIXTURE_DISCONNECTED], 1);
    expect(capped.validators.map((v) => v.nodeId)).toEqual([FIXTURE_DISCONNECTED]);
    expect(capped.omitted).toBe(1);
    const heaviest = capValidators(PRIMARY_NETWORK_ID, all, [], 1);
    expect(heaviest.validators.map((v) => v.nodeId)).toEqual([FIXTURE_DISCONNECTED]); // 3,000 AVAX beats 2,000
    const lines = validatorsSource.collect({ subnets: [capValidators(PRIMARY_NETWORK_ID, all, [SELF], 1)] }, NODE).map(line);
    expect(lines).toContain(`avax_exporter_validators_omitted{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`);
    expect(lines.filter((l) => l.startsWith('avax_validator_active'))).toEqual([
      `avax_validator_active{node="n1",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"} 1`,
    ]);
    expect(capValidators(PRIMARY_NETWORK_ID, all, [], 5).omitted).toBe(0);
  });

  it('rejects numbers that are not uint64 decimal strings', () => {
    const base = { nodeID: SELF, weight: '1', startTime: '1' };
    for (const weight of ['NaN', '', '-5', '1'.repeat(40), 5, '18446744073709551616']) {
      expect(validatorsResult.safeParse({ validators: [{ ...base, weight }] }).success).toBe(false);
    }
    expect(validatorsResult.safeParse({ validators: [{ ...base, weight: '18446744073709551615' }] }).success).toBe(true);
  });
});

describe('height and bootstrap collectors', () => {
  it('heights', () => {
    expect(pChainSource.collect({ chain: 'P', height: 23797323n }, NODE).map(line)).toEqual(['avax_chain_height{node="n1",chain="P"} 23797323']);
    expect(cChainSource.collect({ chain: 'C', height: 0x43ef8a7n }, NODE).map(line)).toEqual(['avax_chain_height{node="n1",chain="C"} 71235751']);
  });
  it('bootstrapped per chain', () => {
    const lines = bootstrappedSource
      .collect(
        {
          chains: [
            { chain: 'P', bootstrapped: true },
            { chain: 'C', bootstrapped: false },
          ],
          subnetChains: {},
        },
        NODE,
      )
      .map(line);
    expect(lines).toEqual(['avax_node_bootstrapped{node="n1",chain="P"} 1', 'avax_node_bootstrapped{node="n1",chain="C"} 0']);
  });
});

describe('reward uptime threshold and downtime budget', () => {
  const primary = () => validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.primary.json')).validators.map(toRecord);
  const L = `node="n1",node_id="${SELF}",subnet="${PRIMARY_NETWORK_ID}"`;
  // The fixture validator: start 1751400000, end 1782936000 (365 days), uptime 99.8712 %.
  const MID = 1767168000; // half-way through the period
  const pick = (lines: string[]) => lines.filter((l) => /reward_uptime_threshold|downtime_budget/.test(l));

  it('the mainnet schedule leaves helicon unscheduled: 0.8, and the budget at the poll time', () => {
    const upgrades = parseUpgrades(upgradesResult.parse(fixtureResult('node.info.upgrades.json')));
    expect(REWARD_UPTIME_UPGRADE).toBe('helicon');
    expect(rewardUptimeUpgradeTime(upgrades)).toBeUndefined();
    const v: ValidatorsValue = { subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: primary(), watched: [SELF], omitted: 0 }], observedAt: MID };
    // (1 - 0.8) x 31536000 allowed, (1 - 0.998712) x 15768000 used so far.
    expect(pick(validatorsSource.collect(v, NODE).map(line))).toEqual([
      `avax_validator_reward_uptime_threshold_ratio{${L}} 0.8`,
      `avax_validator_downtime_budget_seconds{${L}} 6286890.815999999`,
    ]);
  });

  it('a validation that starts once the upgrade is active needs 0.9; one that started before keeps 0.8', () => {
    const after: ValidatorsValue = {
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: primary(), watched: [SELF], omitted: 0 }],
      observedAt: MID,
      rewardUptimeUpgradeTime: 1751400000,
    };
    expect(pick(validatorsSource.collect(after, NODE).map(line))).toEqual([
      `avax_validator_reward_uptime_threshold_ratio{${L}} 0.9`,
      `avax_validator_downtime_budget_seconds{${L}} 3133290.8159999996`,
    ]);
    const before = { ...after, rewardUptimeUpgradeTime: 1751400001 };
    expect(pick(validatorsSource.collect(before, NODE).map(line))[0]).toBe(`avax_validator_reward_uptime_threshold_ratio{${L}} 0.8`);
  });

  it('the elapsed time stops at the end of the period; a lost reward is negative; no end time, no budget', () => {
    const late: ValidatorsValue = {
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: primary(), watched: [SELF], omitted: 0 }],
      observedAt: 1782936000 + 999,
    };
    expect(pick(validatorsSource.collect(late, NODE).map(line))[1]).toBe(`avax_validator_downtime_budget_seconds{${L}} 6266581.631999999`);
    const down = primary().map((r) => ({ ...r, uptimeRatio: 0.5 }));
    const lost: ValidatorsValue = { subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: down, watched: [SELF], omitted: 0 }], observedAt: MID };
    expect(pick(validatorsSource.collect(lost, NODE).map(line))[1]).toBe(
      `avax_validator_downtime_budget_seconds{${L}} ${0.19999999999999996 * 31536000 - 0.5 * 15768000}`,
    );
    const l1 = validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.l1.json')).validators.map(toRecord);
    const lines = validatorsSource.collect({ subnets: [{ subnetId: L1, validators: l1, watched: [], omitted: 0 }], observedAt: MID }, NODE).map(line);
    expect(pick(lines)).toEqual([]);
  });
});

describe('L1 fee price and balance runway', () => {
  it('runway = balance / price from the fee state fixture; none for the inactive validator', () => {
    const fee = validatorFeeStateResult.parse(fixtureResult('node.platform.getValidatorFeeState.json'));
    expect(fee.price).toBe(512);
    const l1 = validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.l1.json')).validators.map(toRecord);
    const lines = validatorsSource
      .collect({ subnets: [{ subnetId: L1, validators: l1, watched: [], omitted: 0 }], feePriceNavaxPerSecond: fee.price }, NODE)
      .map(line);
    expect(lines[0]).toBe('avax_l1_validator_fee_price_avax_per_second{node="n1"} 5.12e-7');
    const runway = lines.filter((l) => l.startsWith('avax_l1_validator_balance_runway_seconds'));
    // 8780477952 nAVAX / 512 nAVAX per second.
    expect(runway).toEqual([
      `avax_l1_validator_balance_runway_seconds{node="n1",node_id="${SELF}",subnet="${L1}",validation_id="2wTscvX3JUsMbZHFRd9t8Ywz2q9j2BmETg8cTvgUHgawjbSvZX"} 17149371`,
    ]);
  });
  it('without a fee state there is neither price nor runway', () => {
    const l1 = validatorsResult.parse(fixtureResult('node.platform.getCurrentValidators.l1.json')).validators.map(toRecord);
    const lines = validatorsSource.collect({ subnets: [{ subnetId: L1, validators: l1, watched: [], omitted: 0 }] }, NODE).map(line);
    expect(lines.some((l) => /fee_price|runway/.test(l))).toBe(false);
  });
  it('rejects a price sent as a string', () => {
    expect(validatorFeeStateResult.safeParse({ excess: 1, price: '512', timestamp: '2026-08-22T15:40:29Z' }).success).toBe(false);
  });
});

describe('L1 uptime collector', () => {
  const CHAIN = 'E6u8tgmrdLbw7Q35UpAccW88XC5nAKbiKADbqZ8ZXhbMEd6vk';
  it('plain-number percentages become ratios, per chain', () => {
    const r = l1UptimeResult.parse(fixtureResult('node.subnetevm.validators.getCurrentValidators.json'));
    const validators = (r.validators ?? []).map(toL1UptimeRecord);
    const lines = l1UptimeSource
      .collect({ chains: [{ subnetId: L1, chain: CHAIN, state: 'ok', validators, omitted: 0 }], subnetChains: { [L1]: [{ id: CHAIN, check: CHAIN }] } }, NODE)
      .map(line);
    const A = `node="n1",node_id="${SELF}",subnet="${L1}",chain="${CHAIN}"`;
    const B = `node="n1",node_id="NodeID-JBJCCt8J7Ww5MWPxYdrepWDs9xa1y42mq",subnet="${L1}",chain="${CHAIN}"`;
    const C = `node="n1",subnet="${L1}",chain="${CHAIN}"`;
    expect(lines).toEqual([
      `avax_l1_chain_state{${C},state="ok"} 1`,
      `avax_l1_chain_state{${C},state="bootstrapping"} 0`,
      `avax_l1_chain_state{${C},state="failed"} 0`,
      `avax_exporter_l1_validators_omitted{${C}} 0`,
      `avax_l1_validator_uptime_ratio{${A}} 0.9998`,
      `avax_l1_validator_connected{${A}} 1`,
      `avax_l1_validator_active{${A}} 1`,
      `avax_l1_validator_uptime_ratio{${B}} 0.612`,
      `avax_l1_validator_connected{${B}} 0`,
      // The fixture's second validator is inactive (its balance ran out).
      `avax_l1_validator_active{${B}} 0`,
    ]);
  });
  it('rejects percentages sent as strings or out of range', () => {
    const base = { validationID: 'v', nodeID: SELF, isConnected: true };
    for (const uptimePercentage of ['99.98', 100.5, -1]) expect(l1UptimeResult.safeParse({ validators: [{ ...base, uptimePercentage }] }).success).toBe(false);
  });
  it('nearest-rank quantiles', () => {
    expect([0.1, 0.5, 0.9, 1].map((q) => nearestRank([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1], q))).toEqual([0.1, 0.5, 0.9, 1]);
    expect(nearestRank([0.5], 0.1)).toBe(0.5);
  });
});
