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
    incident: 'A slow restart: `/ext/health` and readiness fail while the chains bootstrap, the P-Chain API answers 503',
    raised: [],
    // AvaxNodeNotBootstrapped (a warning, for 30 minutes) is pending meanwhile: it would fire only past 30 minutes.
    never: [
      { alertname: 'AvaxNodeUnhealthy' },
      { alertname: 'AvaxNodeHealthCheckFailing' },
      { alertname: 'AvaxNodeDown' },
      { alertname: 'AvaxValidatorLeftSet' },
    ],
    // The sources that ask the P-Chain fail while it bootstraps: AvaxSourceDown (a warning) may rise.
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
    // AvaxChainHeightStalled (a warning) may go pending for an evaluation: its "moving elsewhere" record, evaluated in
    // another group, still sees this node's last blocks when the chain stops.
    silent: ['critical'],
  },
];
