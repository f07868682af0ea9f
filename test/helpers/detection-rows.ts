/**
 * The rows of the detection matrix: which deployment, which incident, which
 * alerts must be raised and which must never be. Data only: the live test
 * (test/detection-matrix.test.ts) builds and checks each row, and the
 * generator of docs/detection.md (test/tools/detection-doc.ts) prints the same
 * table with the time each incident takes to detect at the shipped durations.
 */

/** The live test divides every time duration of the rules by this (15m becomes 15s); see test/helpers/scale-rules.ts. */
export const FACTOR = 60;
/** Shortest range a scaled range selector gets in the live test: a few 1 s scrapes, so rate() and changes() have samples. */
export const MIN_RANGE_MS = 4_000;
/**
 * How the live test's exporters poll their nodes (its Data API sections poll at the same interval).
 *
 * Rounds every 2 s, and a poll may take its whole interval. Forty exporters, their fake nodes and the live test share
 * one process: at 1 s rounds it was busy nine tenths of the time on a slow 2-core machine, a round now and then
 * outlasted its timeout, and AvaxSourceDown went pending in rows that must stay silent (a red CI run); at 2 s it
 * passes with the other core taken by a busy loop. The max age stays 10 s: a stall of that process past five
 * seconds (seen once in CI) left every row's data stale at once. Rows that wait for series to go take 5 s longer.
 */
export const LIVE_POLL = { interval: '2s', timeout: '2s', max_age: '10s' };

export type Severity = 'critical' | 'warning' | 'info';

/** An alert by name, and severity when the rule has more than one. */
export interface AlertRef {
  alertname: string;
  severity?: Severity;
}

/** How the exporter first sees an incident (what the time to detect adds before `for:`). */
export type Evidence =
  /** The next poll shows it (a value the node reports). */
  | 'poll'
  /** The exporter's next Data API poll shows it (once the Data API lists it). */
  | 'data-api-poll'
  /** A poll fails: the poll timeout after the round starts. */
  | 'failed-poll'
  /** Something stops changing: the rule's longest range selector must pass without a change. */
  | 'range';

/** An alert a row must raise. */
export interface Raised extends AlertRef {
  /** Must reach `firing` (not only pending) in the live test. */
  firing?: boolean;
  /** How the exporter sees the incident; for the time to detect. */
  evidence: Evidence;
}

/** One deployment of the matrix. */
export interface MatrixRow {
  /** The `cluster` label of its scrape target, and its name. */
  cluster: string;
  /** What is deployed (Markdown). */
  deployment: string;
  /** The incident, or undefined for a healthy setup that must stay quiet. */
  incident?: string;
  /** Alerts that must be raised (pending or firing) during the observation window. */
  raised: Raised[];
  /** Alerts that must never be raised, pending included (a name alone: any severity). */
  never: AlertRef[];
  /** No alert of these severities at all, except the ones in `raised`. */
  silent: Severity[];
}

const QUIET: Severity[] = ['critical', 'warning'];

/** The matrix (issue 15, point 8). */
export const MATRIX: MatrixRow[] = [
  {
    cluster: 'healthy-validator',
    deployment: 'A primary-network validator, default watch (its own id), every check passing, P and C moving, X quiet',
    raised: [],
    never: [],
    silent: QUIET,
  },
  {
    cluster: 'offline-for-hours',
    deployment:
      'The validator restarted after 25 of its 100 days offline (`restartedAfterOutage`: its own view ~100 %, connected; info.uptime 75 %), and a second node watching it by id that saw the outage (`observedOutage`)',
    incident: 'The network saw the validator offline: 75 % uptime, under the 80 % reward requirement, 48 days of downtime budget left',
    raised: [{ alertname: 'AvaxValidatorUptimeLow', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [
      { alertname: 'AvaxValidatorNotConnected' },
      { alertname: 'AvaxValidatorRewardLost' },
      { alertname: 'AvaxValidatorDowntimeBudgetLow' },
      { alertname: 'AvaxNodeDown' },
    ],
    silent: [],
  },
  {
    cluster: 'node-unreachable',
    deployment: 'A healthy validator; its health check `network` starts failing, then the node stops answering altogether',
    incident: 'The node reports itself unhealthy, then cannot be polled at all (its series go after the max age)',
    raised: [
      { alertname: 'AvaxNodeUnhealthy', severity: 'critical', firing: true, evidence: 'poll' },
      { alertname: 'AvaxNodeDown', severity: 'critical', firing: true, evidence: 'failed-poll' },
      { alertname: 'AvaxSourceDown', severity: 'warning', firing: true, evidence: 'failed-poll' },
    ],
    never: [
      { alertname: 'AvaxValidatorLeftSet' },
      { alertname: 'AvaxValidatorUptimeLow' },
      { alertname: 'AvaxValidatorNotConnected' },
      { alertname: 'AvaxExporterAbsent' },
    ],
    silent: [],
  },
  {
    cluster: 'rpc-node',
    deployment: 'An RPC node: not a validator (info.uptime says so, its id is not in the set), default watch',
    raised: [],
    never: [{ alertname: 'AvaxValidatorLeftSet' }, { alertname: 'AvaxValidatorUptimeLow' }, { alertname: 'AvaxValidatorNotConnected' }],
    silent: QUIET,
  },
  {
    cluster: 'all-validators',
    deployment:
      'A healthy validator with `--watch.all-validators`; among the strangers one at 55 % uptime, one disconnected at 0 %, one ending in 2 days without renewal, one whose downtime budget is gone',
    raised: [],
    never: [],
    silent: QUIET,
  },
  {
    cluster: 'renewing-near-end',
    deployment: 'A validator 3 days before the end of its cycle, auto-renewing (`autoRenewing`: next period 14 days)',
    raised: [],
    never: [{ alertname: 'AvaxValidationEndingSoon' }],
    silent: QUIET,
  },
  {
    cluster: 'ending-without-renewal',
    deployment: 'A validator 3 days before the end of its validation, which does not renew',
    incident: 'The validation ends in 3 days and nothing renews it',
    raised: [{ alertname: 'AvaxValidationEndingSoon', severity: 'warning', evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidationEndingSoon', severity: 'critical' }],
    silent: QUIET,
  },
  {
    cluster: 'p-chain-only',
    deployment: 'A P-Chain-only node (`partialSyncMode`: `--partial-sync-primary-network`, an L1 validator, not a primary-network one)',
    raised: [],
    never: [{ alertname: 'AvaxSourceDown' }, { alertname: 'AvaxNodeNotBootstrapped' }, { alertname: 'AvaxNodeHealthCheckFailing' }],
    silent: QUIET,
  },
  {
    cluster: 'acp267-at-86',
    deployment: 'A validation started 30 days ago, after the Helicon upgrade (ACP-267: 90 % requirement), that the network sees at 86 %',
    incident: '86 % uptime under a 90 % requirement (fine under the old fixed 80 %)',
    raised: [{ alertname: 'AvaxValidatorUptimeLow', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidatorRewardLost' }],
    silent: QUIET,
  },
  {
    cluster: 'one-bad-observer',
    deployment:
      'Two nodes (not validators) watching one validator by id, no Data API: one badly connected sees it at 60 % and disconnected, the other at 99.5 % and connected',
    raised: [],
    never: [{ alertname: 'AvaxValidatorUptimeLow' }, { alertname: 'AvaxValidatorNotConnected' }],
    silent: QUIET,
  },
  {
    cluster: 'quiet-chain',
    deployment: 'A healthy validator whose X-Chain height does not move; no Data API, no other node',
    raised: [],
    never: [{ alertname: 'AvaxChainHeightStalled' }],
    silent: QUIET,
  },
  {
    cluster: 'stalled-chain',
    deployment: 'Two nodes on one network: the C-Chain moves on one and is stuck on the other (the control of the quiet chain)',
    incident: "One node's C-Chain stopped while the other node shows it moving",
    raised: [{ alertname: 'AvaxChainHeightStalled', severity: 'warning', evidence: 'range' }],
    never: [],
    silent: QUIET,
  },
  {
    cluster: 'validation-ended',
    deployment: 'A validator, default watch; its validation ends without a renewal (it leaves the set; info.uptime: not a validator)',
    incident: 'The validator was validating and stopped: no longer in the current set',
    raised: [{ alertname: 'AvaxValidatorLeftSet', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidatorUptimeLow' }, { alertname: 'AvaxValidatorNotConnected' }],
    silent: QUIET,
  },
  {
    cluster: 'reward-denied',
    deployment:
      'A validator restaked 2 days ago, with the Data API: its previous validation is completed with a validation reward of 0 (the network judged its uptime too low)',
    incident: 'The last validation earned no reward (Data API)',
    raised: [{ alertname: 'AvaxValidatorRewardDenied', severity: 'warning', evidence: 'data-api-poll' }],
    never: [],
    silent: QUIET,
  },
  {
    cluster: 'healthy-proposer',
    deployment:
      'A validator with the Data API: the C-Chain moves (a block a second at the Data API) and the validator proposes its share of the blocks (`proposedOn`)',
    raised: [],
    never: [{ alertname: 'AvaxValidatorProposerDrought' }],
    silent: QUIET,
  },
  {
    cluster: 'proposer-drought',
    deployment:
      'A validator with the Data API: the C-Chain moves (a block a second at the Data API), proposed by others only; its last C-Chain block is months old',
    incident: 'The validator proposes no C-Chain block for far longer than its stake share predicts (Data API node blocks)',
    raised: [{ alertname: 'AvaxValidatorProposerDrought', severity: 'warning', firing: true, evidence: 'data-api-poll' }],
    never: [],
    silent: QUIET,
  },
  {
    cluster: 'l1-validator-runs-dry',
    deployment: "A validator that also validates an L1 (`--watch.subnet-id`); its L1 validation's fee balance runs out (`inactiveL1Validator`)",
    incident: 'The P-Chain deactivated our L1 validator (balance 0); it is still in the set',
    raised: [{ alertname: 'AvaxL1ValidatorInactive', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidatorLeftSet' }],
    silent: QUIET,
  },
  {
    cluster: 'public-ip-changed',
    deployment: 'A healthy validator; its public address changes while it runs (`ipChangedMode`: the dynamic IP updater resolved a new one)',
    incident: 'info.getNodeIP answers a new address: peers must re-learn it',
    raised: [{ alertname: 'AvaxNodePublicIpChanged', severity: 'warning', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxNodeDown' }, { alertname: 'AvaxL1PluginVersionMismatch' }],
    silent: QUIET,
  },
  {
    cluster: 'l1-plugin-versions',
    deployment:
      'Two nodes watching the fixture L1 (`--watch.subnet-id`), each running its chain: one on Subnet-EVM v0.7.3, the other on v0.7.4 (`pluginVmMode`)',
    incident: 'Two nodes of one L1 on different Subnet-EVM versions',
    raised: [{ alertname: 'AvaxL1PluginVersionMismatch', severity: 'warning', evidence: 'poll' }],
    never: [{ alertname: 'AvaxNodePublicIpChanged' }],
    silent: QUIET,
  },
  {
    cluster: 'l1-unwatched',
    deployment:
      'A primary-network validator (default watch, no `--watch.subnet-id`) with the Data API, which lists an active L1 validation of its node id (the fixture L1)',
    incident: 'The watched node validates an L1 nobody configured the exporter to watch (Data API)',
    raised: [{ alertname: 'AvaxL1ValidationUnwatched', severity: 'warning', evidence: 'data-api-poll' }],
    never: [{ alertname: 'AvaxL1ValidatorRunwayLow' }],
    silent: QUIET,
  },
  {
    cluster: 'l1-watched-data-api',
    deployment:
      'The control of the unwatched L1: the same validator and Data API, with `--watch.subnet-id` for that L1 (and an inactive validation of another L1 in the Data API list)',
    raised: [],
    never: [{ alertname: 'AvaxL1ValidationUnwatched' }, { alertname: 'AvaxL1ValidatorRunwayLow' }],
    silent: QUIET,
  },
  {
    cluster: 'l1-runway-node-bootstrapping',
    deployment:
      "A validator watching its L1 (`--watch.subnet-id`) with the Data API; the node reports a runway of months, the Data API a balance of 0.125 AVAX (under 3 days at the node's fee price)",
    incident:
      "The node's P-Chain API answers 503 (bootstrapping): its runway and fee price go; the runway alert pages from the Data API's balance over the last fee price on record",
    raised: [{ alertname: 'AvaxL1ValidatorRunwayLow', severity: 'critical', firing: true, evidence: 'failed-poll' }],
    never: [{ alertname: 'AvaxL1ValidationUnwatched' }],
    silent: [],
  },
  {
    cluster: 'l1-chain-not-validating',
    deployment:
      'A validator that also validates an L1 (`--watch.subnet-id`), its L1 chain Validating; restarted without the L1 in `--track-subnets` (`untrackedSubnet`)',
    incident: "Our L1 validator's chain reads Created (platform.getBlockchainStatus): still in the set, paying its fee, validating nothing",
    raised: [{ alertname: 'AvaxL1ValidatorChainNotValidating', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxL1ValidatorInactive' }, { alertname: 'AvaxValidatorLeftSet' }],
    // The bootstrapped source keeps the chain it cached (refreshed every 20 rounds) and the node no
    // longer knows it: AvaxSourceDown{source="bootstrapped"} (a warning) may rise until the refresh.
    silent: ['critical'],
  },
  {
    cluster: 'l1-stranger-runs-dry',
    deployment:
      "A healthy validator watching an L1 with `--watch.all-validators`: another operator's L1 validator runs out of balance (`inactiveL1Validator`), and the fixture's inactive one stays inactive",
    raised: [],
    never: [],
    silent: QUIET,
  },
  // The node's vitals from its own health report (issue 25).
  {
    cluster: 'disk-filling',
    deployment:
      "A healthy validator whose 1 TB database volume has 20 % available and fills at a pace that reaches AvalancheGo's 3 % shutdown share in 10 hours (`diskSpaceMode`)",
    incident: 'The disk fills: AvalancheGo still reports itself healthy (over 10 %) and would shut itself down in 10 hours',
    raised: [
      { alertname: 'AvaxNodeDiskFillingUp', severity: 'critical', firing: true, evidence: 'poll' },
      { alertname: 'AvaxNodeDiskFillingUp', severity: 'warning', evidence: 'poll' },
    ],
    never: [{ alertname: 'AvaxNodeDiskSpaceLow' }, { alertname: 'AvaxNodeUnhealthy' }],
    silent: QUIET,
  },
  {
    cluster: 'disk-steady-15',
    deployment: "A healthy validator whose database volume stays at 15 % available (under neither of AvalancheGo's thresholds, going nowhere)",
    raised: [],
    never: [{ alertname: 'AvaxNodeDiskFillingUp' }, { alertname: 'AvaxNodeDiskSpaceLow' }],
    silent: QUIET,
  },
  {
    cluster: 'consensus-stuck',
    deployment:
      'Two nodes on one network: a validator with a C-Chain block processing for 5 minutes and more (`processingMode`: its C check fails as AvalancheGo fails it), and a second node on which the C-Chain moves',
    incident: "A block stuck in the validator's C-Chain consensus while the chain moves on the other node",
    raised: [
      { alertname: 'AvaxNodeConsensusStuck', severity: 'warning', evidence: 'poll' },
      { alertname: 'AvaxNodeUnhealthy', severity: 'critical', evidence: 'poll' },
      { alertname: 'AvaxNodeHealthCheckFailing', severity: 'warning', evidence: 'poll' },
      { alertname: 'AvaxChainHeightStalled', severity: 'warning', evidence: 'range' },
    ],
    never: [{ alertname: 'AvaxNodeNetworkSilent' }],
    silent: QUIET,
  },
  {
    cluster: 'network-silent',
    deployment:
      'A validator that has received no message for 2½ minutes and counting (`networkActivityMode`: its network check fails as AvalancheGo fails it); it still sends',
    incident: 'The node receives nothing from the network for minutes',
    raised: [
      { alertname: 'AvaxNodeNetworkSilent', severity: 'warning', evidence: 'poll' },
      { alertname: 'AvaxNodeUnhealthy', severity: 'critical', evidence: 'poll' },
      { alertname: 'AvaxNodeHealthCheckFailing', severity: 'warning', evidence: 'poll' },
    ],
    never: [{ alertname: 'AvaxNodeDown' }, { alertname: 'AvaxNodeSendFailRateHigh' }],
    silent: QUIET,
  },
  // Issue 22 (points 1, 3, 4, 7, 8, 9): conditions every mainnet operator meets.
  {
    cluster: 'unreachable-stake',
    deployment:
      'A validator under the 90 % rule (started after Helicon) whose node cannot reach 12 % of the stake (their outage, a partition); every connected validator sees it at 99–100 %. info.uptime is computed as AvalancheGo does (`uptime: computed`): about 88 %',
    incident: 'The node is badly connected: 88 % of the stake; its reward is not at risk',
    raised: [{ alertname: 'AvaxNodeLowConnectedStake', severity: 'warning', evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidatorUptimeLow' }, { alertname: 'AvaxValidatorRewardLost' }, { alertname: 'AvaxValidatorDowntimeBudgetLow' }],
    silent: QUIET,
  },
  {
    cluster: 'l1-validation-removed',
    deployment:
      'A validator that also validates an L1 (`--watch.subnet-id`); its validator manager removes its L1 validation (`removedL1Validation`: weight 0)',
    incident: 'The L1 validation is gone from the set: not inactive, simply not listed',
    raised: [{ alertname: 'AvaxValidatorLeftSet', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxL1ValidatorInactive' }],
    // The node no longer validates the L1, so its chain reads Syncing from the round the set drops
    // it; a round whose validators poll is late can show both for a moment (pending, never firing).
    silent: ['warning'],
  },
  {
    cluster: 'poa-validator-expired',
    deployment: 'A validator that also validates a permissioned (PoA) subnet (`poaSubnet`, `--watch.subnet-id`); its subnet validation reaches its end time',
    incident: 'The P-Chain removes the expired PoA validator from the subnet set (`pChainClock`)',
    raised: [{ alertname: 'AvaxValidatorLeftSet', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxValidatorUptimeLow' }],
    silent: QUIET,
  },
  {
    cluster: 'renewing-under-requirement',
    deployment:
      'A validator auto-renewing (`autoRenewing`: next period 14 days), 11 days into a 14-day cycle, that the connected stake sees at 60 % (requirement 80 %)',
    incident: 'At the end of its cycle the P-Chain removes the validation instead of renewing it (ACP-236 abort path)',
    raised: [
      { alertname: 'AvaxValidationEndingSoon', severity: 'warning', evidence: 'poll' },
      { alertname: 'AvaxValidatorRewardLost', severity: 'warning', evidence: 'poll' },
    ],
    never: [{ alertname: 'AvaxValidatorRewardLost', severity: 'info' }],
    silent: ['critical'],
  },
  {
    cluster: 'restaked-hours-ago',
    deployment:
      'A validator with the Data API, re-staked 3 hours ago with 0.02 % of the stake; its last C-Chain block belongs to its previous validation, months ago; the C-Chain moves (a block a second), proposed by others',
    raised: [],
    never: [{ alertname: 'AvaxValidatorProposerDrought' }],
    silent: QUIET,
  },
  {
    cluster: 'dead-validator-watched',
    deployment: 'A validator, and a second node watching it by id (`--watch.node-id`); the validator node dies',
    incident:
      'The validator cannot be polled, and the second node sees it disconnected: AvaxNodeDown (with its node id) and AvaxValidatorNotConnected both fire; the shipped Alertmanager inhibits the second: one page',
    raised: [
      { alertname: 'AvaxNodeDown', severity: 'critical', firing: true, evidence: 'failed-poll' },
      { alertname: 'AvaxValidatorNotConnected', severity: 'critical', firing: true, evidence: 'poll' },
    ],
    never: [{ alertname: 'AvaxValidatorLeftSet' }],
    silent: [],
  },
  {
    cluster: 'single-node-p-chain-down',
    deployment:
      'A single-node operator: one validator, default watch, with the Data API; the network (its peers, the Data API) sees it at 75 % after an outage (80 % requirement)',
    incident: "The node's P-Chain API fails (503) for an hour: its validator series go, the Data API keeps the validator watched and judged",
    raised: [
      { alertname: 'AvaxValidatorUptimeLow', severity: 'critical', firing: true, evidence: 'poll' },
      { alertname: 'AvaxSourceDown', severity: 'warning', evidence: 'failed-poll' },
    ],
    never: [{ alertname: 'AvaxValidatorLeftSet' }, { alertname: 'AvaxNodeDown' }],
    silent: [],
  },
  // Issue 22 (points 2, 5, 6): the node's own health apart from its L1s', restarts, L1 chains that fail to start or stall.
  {
    cluster: 'small-l1-validator-offline',
    deployment:
      'A primary-network validator that also validates a small L1 (`smallL1`: 4 validators of equal weight, `--watch.subnet-id`); every check of its own passes',
    incident:
      "Another operator's validator of the L1 goes offline (`subnetValidatorsOffline`): our node is connected to 75 % of the L1 chain's stake, under the 80 % its check needs, so `/ext/health` answers 503",
    raised: [{ alertname: 'AvaxL1ChainUnhealthy', severity: 'warning', firing: true, evidence: 'poll' }],
    never: [{ alertname: 'AvaxNodeUnhealthy' }, { alertname: 'AvaxNodeHealthCheckFailing' }, { alertname: 'AvaxL1ValidatorNotConnected' }],
    silent: QUIET,
  },
  {
    cluster: 'slow-restart',
    deployment: 'A healthy validator, restarted: P, X and C bootstrap again (`restartBootstrapping`) for 20 minutes (20 s here), then are done',
    incident:
      'A slow restart: `/ext/health` and readiness fail while the chains bootstrap, the P-Chain API answers 503; until P is done, X and C are not created yet (404, no health check)',
    raised: [],
    // AvaxNodeNotBootstrapped (a warning, for 30 minutes) is pending meanwhile: it would fire only past 30 minutes.
    never: [
      { alertname: 'AvaxNodeUnhealthy' },
      { alertname: 'AvaxNodeHealthCheckFailing' },
      { alertname: 'AvaxNodeDown' },
      { alertname: 'AvaxValidatorLeftSet' },
    ],
    // The sources that ask the P-Chain (503) and X and C (404) fail while P bootstraps: AvaxSourceDown (a warning) may rise.
    silent: ['critical'],
  },
  {
    cluster: 'l1-chain-failed-to-start',
    deployment:
      'A validator that also validates an L1 (`--watch.subnet-id`), in its set; its L1 chain failed to start (`failedChainStart`: RPCChainVM protocol mismatch)',
    incident: 'The L1 chain is not running (its check: "failed to create chain on subnet …"; Created; not aliased), while P, X and C run',
    raised: [{ alertname: 'AvaxL1ChainFailedToStart', severity: 'critical', firing: true, evidence: 'poll' }],
    never: [
      { alertname: 'AvaxL1ValidatorChainNotValidating' },
      { alertname: 'AvaxNodeUnhealthy' },
      { alertname: 'AvaxNodeHealthCheckFailing' },
      { alertname: 'AvaxL1ChainUnhealthy' },
    ],
    // The bootstrapped source asks chain by chain every round here (the `bootstrapped` check never passes), and its
    // premise shows it up with P, X and C; on 2 busy cores a 1 s round may still time out now and then, so
    // AvaxSourceDown (a warning) is not asserted away.
    silent: ['critical'],
  },
  {
    cluster: 'l1-chain-stalled',
    deployment: 'A validator of a small L1 (`smallL1`, `--watch.subnet-id`) whose chain moves; Validating',
    incident:
      "Two other operators' validators go offline and the L1 chain stalls (`subnetValidatorsOffline`, `stalledChain`): blocks processing, none accepted, while our validator still reads Validating",
    raised: [
      { alertname: 'AvaxL1ChainStalled', severity: 'critical', firing: true, evidence: 'range' },
      { alertname: 'AvaxL1ChainUnhealthy', severity: 'warning', evidence: 'poll' },
    ],
    never: [{ alertname: 'AvaxNodeUnhealthy' }, { alertname: 'AvaxL1ValidatorChainNotValidating' }, { alertname: 'AvaxNodeHealthCheckFailing' }],
    // Only criticals are asserted away here. (AvaxChainHeightStalled no longer sees the L1 chain at all: avax_chain_height
    // is the P, X and C APIs' height; the L1 chain's is avax_node_chain_last_accepted_height.)
    silent: ['critical'],
  },
];
