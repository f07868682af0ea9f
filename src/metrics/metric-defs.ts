/**
 * The metrics contract. Every metric avax-exporter exports is defined here and
 * nowhere else: the exposition layer registers exactly these, and the
 * reference doc (docs/metrics.md) is generated from this table. Dashboards and
 * alert rules depend on these names, so a rename is a breaking change.
 */

/** Prometheus metric type. */
export type MetricType = 'gauge' | 'counter';

/** One metric definition. */
export interface MetricDef {
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
  /** Where the value comes from (shown in the reference doc). */
  readonly source: string;
}

const N = ['node'] as const;
const V = ['node', 'node_id', 'subnet'] as const;
const S = ['node', 'source'] as const;
/** Data API validator series: about the network, not about a polled node, so no `node` label. */
const D = ['network', 'node_id', 'subnet'] as const;
const DC = ['network', 'node_id', 'chain'] as const;
const DAPI_V = 'GET /v1/networks/{network}/validators/{nodeId}';

/** Every exported metric, by name. */
export const METRICS = {
  avax_node_info: {
    type: 'gauge',
    help: 'Identity of a polled node; always 1.',
    labels: ['node', 'node_id', 'version', 'network', 'database_version', 'git_commit'],
    source: 'info.getNodeID, info.getNodeVersion, info.getNetworkName',
  },
  avax_node_ip_info: {
    type: 'gauge',
    help: 'The public ip:port the node advertises to its peers; always 1. A new ip label means peers must re-learn the address (asked every round).',
    labels: ['node', 'ip'],
    source: 'info.getNodeIP',
  },
  avax_node_vm_version_info: {
    type: 'gauge',
    help: "Version of each VM the node has, built in or installed as a plugin, whether or not it runs a chain of it (vm = its primary alias or id as the node reports it: avm, evm, platform, a plugin such as Subnet-EVM): a partial-sync node lists avm and evm too; avax_node_chain_vm_info says which VM runs a watched subnet's chain. Always 1.",
    labels: ['node', 'vm', 'version'],
    source: 'info.getNodeVersion vmVersions',
  },
  avax_node_network_id: { type: 'gauge', help: 'Network id the node reports (1 mainnet, 5 fuji).', labels: N, source: 'info.getNetworkID' },
  avax_node_healthy: { type: 'gauge', help: '1 when /ext/health answered 200, 0 when it answered 503.', labels: N, source: 'GET /ext/health' },
  avax_node_primary_network_healthy: {
    type: 'gauge',
    help: "The node's own health, L1s left out: 1 when every application-wide check and every primary-network chain check passes (/ext/health?tag=<primary network id>), the `bootstrapped` check counted only while it lists the primary network. avax_node_healthy is the whole node, every tracked L1's chain included. Absent when that report cannot be read.",
    labels: N,
    source: 'GET /ext/health?tag=11111111111111111111111111111111LpoYY',
  },
  avax_node_subnet_bootstrapping: {
    type: 'gauge',
    help: "Always 1, while the node's `bootstrapped` health check lists the subnet as having a chain still bootstrapping (chains/manager.go Subnets.Bootstrapping; 11111111111111111111111111111111LpoYY, the primary network, for P, X and C). A subnet whose chain failed to start stays listed for good. No series while the check passes. Read in the same poll as avax_node_primary_network_healthy, so the two always agree.",
    labels: ['node', 'subnet'],
    source: 'GET /ext/health checks.bootstrapped',
  },
  avax_node_ready: {
    type: 'gauge',
    help: '1 when /ext/health/readiness answered 200, 0 when it answered 503.',
    labels: N,
    source: 'GET /ext/health/readiness',
  },
  avax_node_live: { type: 'gauge', help: '1 when /ext/health/liveness answered 200, 0 when it answered 503.', labels: N, source: 'GET /ext/health/liveness' },
  avax_node_partial_sync: {
    type: 'gauge',
    help: 'Whether the node runs only the P-Chain of the primary network (--partial-sync-primary-network, the usual setup of an L1 validator): 1 when its health report has the `validation` check AvalancheGo registers in that mode only. Such a node runs no X- or C-Chain, so they get no avax_node_bootstrapped or avax_chain_height series and are not polled.',
    labels: N,
    source: 'GET /ext/health checks.validation',
  },
  avax_node_future_upgrade_local_timestamp_seconds: {
    type: 'gauge',
    help: "The latest network upgrade time this node's version knows (the futureupgrade health check's localUpgradeTime).",
    labels: N,
    source: 'GET /ext/health checks.futureupgrade.message.localUpgradeTime',
  },
  avax_node_future_upgrade_stake_mode_timestamp_seconds: {
    type: 'gauge',
    help: "The upgrade time that most of the primary-network stake among this node's peers runs (each peer reports its own in the handshake). Time until it: this minus time().",
    labels: N,
    source: 'GET /ext/health checks.futureupgrade.message.modeUpgradeTime',
  },
  avax_node_future_upgrade_stake_mode_ratio: {
    type: 'gauge',
    help: 'Share of the primary-network stake that runs avax_node_future_upgrade_stake_mode_timestamp_seconds (0..1).',
    labels: N,
    source: 'GET /ext/health checks.futureupgrade.message.modeUpgradeWeightPercentage / 100',
  },
  avax_node_future_upgrade_times: {
    type: 'gauge',
    help: "Distinct upgrade times among the node's validator peers (1: the network agrees on one).",
    labels: N,
    source: 'GET /ext/health checks.futureupgrade.message.numUpgradeTimes',
  },
  avax_node_future_upgrade_unknown: {
    type: 'gauge',
    help: "1 when at least half of the stake runs a later upgrade time than this node knows: an upgrade is scheduled that this node's version does not have (AvalancheGo's own test; its futureupgrade check starts failing one day before the upgrade). 0 otherwise.",
    labels: N,
    source: 'GET /ext/health checks.futureupgrade (localUpgradeTime < modeUpgradeTime and modeUpgradeWeightPercentage >= 50)',
  },
  avax_node_peers_by_upgrade_time: {
    type: 'gauge',
    help: 'Connected peers per upgrade time they report (Unix seconds in upgrade_time): peers on another upgrade time than most of the network run a version that will not follow the next upgrade.',
    labels: ['node', 'upgrade_time'],
    source: 'info.peers upgradeTime',
  },
  avax_node_health_check_passing: { type: 'gauge', help: '1 when the health check reports no error.', labels: ['node', 'check'], source: 'GET /ext/health' },
  avax_node_health_check_contiguous_failures: {
    type: 'gauge',
    help: 'Consecutive failures of the health check (0 while passing).',
    labels: ['node', 'check'],
    source: 'GET /ext/health',
  },
  avax_node_health_check_failing_since_timestamp_seconds: {
    type: 'gauge',
    help: 'When the health check started failing; present only while it fails.',
    labels: ['node', 'check'],
    source: 'GET /ext/health',
  },
  avax_node_bootstrapped: {
    type: 'gauge',
    help: '1 when the chain is bootstrapped on the node.',
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.bootstrapped (all chains, when it passes), else info.isBootstrapped',
  },
  avax_node_peers: { type: 'gauge', help: 'Connected peers.', labels: N, source: 'info.peers numPeers' },
  avax_node_peers_by_version: { type: 'gauge', help: 'Connected peers per node version.', labels: ['node', 'version'], source: 'info.peers' },
  avax_node_peers_benched: { type: 'gauge', help: 'Connected peers benched on the chain.', labels: ['node', 'chain'], source: 'info.peers benched' },
  avax_node_peer_benched: {
    type: 'gauge',
    help: 'Always 1: the connected peer peer_node_id is benched on the chain (primary alias or blockchain id). At most 50 peers per node are listed (watched ids first, then the heaviest stake); the rest are counted in avax_node_peers_benched_omitted.',
    labels: ['node', 'peer_node_id', 'chain'],
    source: 'info.peers benched; platform.getCurrentValidators weight (ranking)',
  },
  avax_node_peers_benched_omitted: {
    type: 'gauge',
    help: 'Benched peers not listed in avax_node_peer_benched because of its cap of 50 peers per node (0 when the list is complete).',
    labels: N,
    source: 'info.peers benched',
  },
  avax_validator_benched_chains: {
    type: 'gauge',
    help: 'Chains on which this node has benched the watched validator (--watch.node-id) for failing to answer in time; 0 when none, or when it is not a connected peer. avax_node_peer_benched names the chains.',
    labels: ['node', 'node_id'],
    source: 'info.peers benched',
  },
  avax_validator_stake_share_ratio: {
    type: 'gauge',
    help: "The watched validator's share of the primary validator set's weight (own + delegated over the set's total, 0..1; 0 when not in the set): its expected share of proposed blocks.",
    labels: ['node', 'node_id'],
    source: 'platform.getCurrentValidators weight + delegatorWeight',
  },
  avax_network_stake_by_version_ratio: {
    type: 'gauge',
    help: 'Share of the stake this node is connected to that runs each node version (0..1; the versions add up to 1): connected peers that are primary-network validators, weighted by own plus delegated stake, and the node itself when it validates. The validator set is refreshed every 20 polls; absent while it is unknown.',
    labels: ['node', 'version'],
    source: 'info.peers version; platform.getCurrentValidators weight + delegatorWeight; info.getNodeVersion',
  },
  avax_network_stake_majority_version_info: {
    type: 'gauge',
    help: 'Always 1: version is the node version with the most connected stake (a plurality; ties go to the newer version); its share is avax_network_stake_by_version_ratio.',
    labels: ['node', 'version'],
    source: 'info.peers version; platform.getCurrentValidators weight + delegatorWeight',
  },
  avax_node_version_behind_stake_majority: {
    type: 'gauge',
    help: "1 when the node's own version is older (major.minor.patch) than the version with the most connected stake, 0 when it is the same or newer; absent when either version is unknown or unreadable.",
    labels: N,
    source: 'info.getNodeVersion compared with avax_network_stake_majority_version_info',
  },
  avax_node_connected_stake_ratio: {
    type: 'gauge',
    help: "Share of the chain's validator stake the node is connected to (0..1), from the chain's health check.",
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.networking.percentConnected',
  },
  avax_node_disconnected_validators: {
    type: 'gauge',
    help: "Validators of the chain the node is not connected to, from the chain's health check (absent on AvalancheGo before v1.11.11).",
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.networking.disconnectedValidators',
  },
  avax_validator_disconnected: {
    type: 'gauge',
    help: "1 when the chain's health check on this node lists the watched node id (--watch.node-id; not the node's own, which is always connected to itself) among the validators it is not connected to, else 0 (also 0 when the id does not validate that chain).",
    labels: ['node', 'node_id', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.networking.disconnectedValidators',
  },
  avax_node_is_validator: {
    type: 'gauge',
    help: '1 when the node is a current primary-network validator (info.uptime answers), 0 when it says it is not.',
    labels: N,
    source: 'info.uptime',
  },
  avax_node_uptime_rewarding_stake_ratio: {
    type: 'gauge',
    help: 'Share of stake that sees this node above the uptime requirement (0..1).',
    labels: N,
    source: 'info.uptime rewardingStakePercentage / 100',
  },
  avax_node_uptime_weighted_average_ratio: {
    type: 'gauge',
    help: "Stake-weighted average of this node's uptime as observed by the network (0..1).",
    labels: N,
    source: 'info.uptime weightedAveragePercentage / 100',
  },
  avax_node_peers_observed_uptime_ratio: {
    type: 'gauge',
    help: "This node's uptime as its connected peers observe it (0..1): the nearest-rank quantile peer_quantile (0.1, 0.5, 0.9) over peers (the label is not `quantile`, which Prometheus reserves for summaries); unweighted: info.peers does not carry stake, and a peer that has not reported counts as 0. Absent without peers.",
    labels: ['node', 'peer_quantile'],
    source: 'info.peers observedUptime / 100',
  },
  avax_node_stake_observed_uptime_ratio: {
    type: 'gauge',
    help: "This node's uptime as the connected stake observes it (0..1): the stake-weighted nearest-rank quantile stake_quantile (0.1, 0.5, 0.9) of the uptime each connected validator peer reports, weighted by its stake (own + delegated; the validator set is refreshed every 20 rounds). 0.5: half the connected stake sees the node at or below this. Peers that are not validators or have not reported do not count; absent without the stake view.",
    labels: ['node', 'stake_quantile'],
    source: 'info.peers observedUptime / 100, weighted by platform.getCurrentValidators weight + delegatorWeight',
  },
  avax_node_upgrade_timestamp_seconds: {
    type: 'gauge',
    help: 'Activation time of a network upgrade; unscheduled upgrades are not exported.',
    labels: ['node', 'upgrade'],
    source: 'info.upgrades',
  },
  avax_chain_height: {
    type: 'gauge',
    help: 'Last accepted block height of the chain on the node.',
    labels: ['node', 'chain'],
    source: 'platform.getHeight, avm.getHeight, eth_blockNumber',
  },
  // The node's vitals, from the details of its own /ext/health checks (src/sources/node/node-vitals).
  avax_node_disk_available_bytes: {
    type: 'gauge',
    help: "Bytes available on the volume of the node's database (the diskspace health check's availableDiskBytes). Absent until AvalancheGo has measured it once.",
    labels: N,
    source: 'GET /ext/health checks.diskspace',
  },
  avax_node_disk_available_ratio: {
    type: 'gauge',
    help: 'Share of the database volume available, in whole percent as AvalancheGo reports it (availableDiskPercentage / 100, rounded down: 0.09 means 9.x %). AvalancheGo reports itself unhealthy under --system-tracker-disk-warning-available-space-percentage (default 10 %) and shuts itself down under --system-tracker-disk-required-available-space-percentage (default 3 %). Absent before AvalancheGo v1.10.x, which reported bytes only.',
    labels: N,
    source: 'GET /ext/health checks.diskspace',
  },
  avax_node_chain_processing_blocks: {
    type: 'gauge',
    help: "Blocks the chain's consensus engine is deciding on the node (processingBlocks; outstandingBlocks before v1.11). Absent while the chain bootstraps (its engine reports no consensus details). Every chain the node runs, L1 chains included (chain = the health check's name: P, X, C, a blockchain id or an L1 chain's alias; avax_l1_chain_health_check_info{check} joins it to a watched L1's chain id and subnet).",
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.engine.consensus',
  },
  avax_node_chain_longest_processing_block_seconds: {
    type: 'gauge',
    help: "How long the oldest block still processing on the chain has been processing (longestProcessingBlock; 0 when none is). AvalancheGo fails the chain's health check beyond --snow-max-time-processing (default 30 s).",
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.engine.consensus',
  },
  avax_node_chain_last_accepted_height: {
    type: 'gauge',
    help: "Height of the chain's last accepted block as its consensus engine reports it in the health check (lastAcceptedHeight, since v1.11): every chain the node runs, L1 chains included, without an API call per chain.",
    labels: ['node', 'chain'],
    source: 'GET /ext/health checks.<chain>.message.engine.consensus',
  },
  avax_node_network_connected_peers: {
    type: 'gauge',
    help: 'Peers the node is connected to, as its network health check counts them (connectedPeers; reported every round, unlike info.peers).',
    labels: N,
    source: 'GET /ext/health checks.network',
  },
  avax_node_network_send_fail_ratio: {
    type: 'gauge',
    help: "Share of the node's recent message sends that failed (sendFailRate: a decaying average). AvalancheGo reports itself unhealthy above --network-health-max-send-fail-rate (default 0.9).",
    labels: N,
    source: 'GET /ext/health checks.network',
  },
  avax_node_network_last_message_received_age_seconds: {
    type: 'gauge',
    help: 'Seconds since the node last received a message from any peer, as of its last health check (timeSinceLastMsgReceived). Absent until it has received one. AvalancheGo reports itself unhealthy beyond --network-health-max-time-since-msg-received (default 1 minute).',
    labels: N,
    source: 'GET /ext/health checks.network',
  },
  avax_node_network_last_message_sent_age_seconds: {
    type: 'gauge',
    help: 'Seconds since the node last sent a message to any peer, as of its last health check (timeSinceLastMsgSent). Absent until it has sent one.',
    labels: N,
    source: 'GET /ext/health checks.network',
  },
  avax_node_network_ingress_connections: {
    type: 'gauge',
    help: 'Peers that opened their connection to this node (ingressConnectionCount): 0 on a primary-network validator means nobody can reach it (AvalancheGo then fails its network check). Absent during the start-up grace period.',
    labels: N,
    source: "GET /ext/health checks.network 'primary network validator health'",
  },
  avax_node_router_outstanding_requests: {
    type: 'gauge',
    help: 'Consensus requests (Get, PullQuery, …) the node has sent and awaits an answer to, over all chains (outstandingRequests). AvalancheGo reports itself unhealthy above --router-health-max-outstanding-requests (default 1024).',
    labels: N,
    source: 'GET /ext/health checks.router',
  },
  avax_node_router_longest_running_request_seconds: {
    type: 'gauge',
    help: 'Age of the oldest of those requests (longestRunningRequest; 0 when none). AvalancheGo reports itself unhealthy beyond --network-health-max-outstanding-request-duration (default 5 minutes).',
    labels: N,
    source: 'GET /ext/health checks.router',
  },
  avax_node_bootstrapping_subnets: {
    type: 'gauge',
    help: 'Subnets the bootstrapped health check lists as still bootstrapping (the primary network counts as one); 0 once every chain the node runs has bootstrapped.',
    labels: N,
    source: 'GET /ext/health checks.bootstrapped',
  },
  avax_validator_watched: {
    type: 'gauge',
    help: "Always 1: the operator watches this validator on this node: an id given with --watch.node-id, the validator behind a --watch.validation-id, or, without --watch.node-id, the node's own id while it is a current validator (of the primary network or of a watched subnet). Validators exported only because of --watch.all-validators have no such series; the alert rules judge only watched ids.",
    labels: ['node', 'node_id'],
    source: 'configuration; platform.getCurrentValidators',
  },
  avax_validator_active: {
    type: 'gauge',
    help: '1 when the validator is in the current set and active; 0 when watched but absent (on the primary network and on each watched subnet: an L1 validation its validator manager removed, a permissioned subnet validator past its end time), or when it is an L1 validator the P-Chain deactivated (balance 0: its fee balance ran out, it no longer validates).',
    labels: V,
    source: 'platform.getCurrentValidators',
  },
  avax_validator_renews: {
    type: 'gauge',
    help: '1 when the primary-network validation is set to continue past avax_validator_end_timestamp_seconds: an auto-renewed validation (ACP-236 style, from Helicon) with a next period; its end time is then only the end of the current cycle. It renews only if the network commits its reward: a cycle that ends under its uptime requirement removes the validation (the abort branch), next period or not. 0 for a validation that ends then (not auto-renewed, or auto-renewed with a next period of 0).',
    labels: V,
    source: 'platform.getCurrentValidators nextPeriod',
  },
  avax_validator_next_period_seconds: {
    type: 'gauge',
    help: 'Length of the next cycle of an auto-renewed validation, in seconds (0: it stops at the end of this cycle); absent for validations that are not auto-renewed.',
    labels: V,
    source: 'platform.getCurrentValidators nextPeriod',
  },
  avax_validator_auto_compound_reward_ratio: {
    type: 'gauge',
    help: "Share of an auto-renewed validation's rewards restaked at the end of each cycle (0..1); absent for validations that are not auto-renewed.",
    labels: V,
    source: 'platform.getCurrentValidators autoCompoundRewardShares / 1,000,000',
  },
  avax_validator_uptime_ratio: {
    type: 'gauge',
    help: 'Validator uptime since its start as this node sees it (0..1).',
    labels: V,
    source: 'platform.getCurrentValidators uptime / 100',
  },
  avax_validator_connected: {
    type: 'gauge',
    help: '1 when this node is connected to the validator.',
    labels: V,
    source: 'platform.getCurrentValidators connected',
  },
  avax_validator_weight: {
    type: 'gauge',
    help: "Validator's own weight (nAVAX on the primary network, raw weight on subnets and L1s).",
    labels: V,
    source: 'platform.getCurrentValidators weight',
  },
  avax_validator_start_timestamp_seconds: {
    type: 'gauge',
    help: 'Start of the validation period.',
    labels: V,
    source: 'platform.getCurrentValidators startTime',
  },
  avax_validator_end_timestamp_seconds: {
    type: 'gauge',
    help: 'End of the validation period (absent for L1 validators).',
    labels: V,
    source: 'platform.getCurrentValidators endTime',
  },
  avax_validator_potential_reward_avax: {
    type: 'gauge',
    help: 'Reward paid at the end of the validation if the uptime requirement is met, in AVAX.',
    labels: V,
    source: 'platform.getCurrentValidators potentialReward',
  },
  avax_validator_delegator_weight_avax: {
    type: 'gauge',
    help: 'Stake delegated to the validator, in AVAX.',
    labels: V,
    source: 'platform.getCurrentValidators delegatorWeight',
  },
  avax_validator_delegators: {
    type: 'gauge',
    help: 'Number of delegations to the validator.',
    labels: V,
    source: 'platform.getCurrentValidators delegatorCount',
  },
  avax_validator_delegation_fee_ratio: {
    type: 'gauge',
    help: 'Delegation fee charged by the validator (0..1).',
    labels: V,
    source: 'platform.getCurrentValidators delegationFee / 100',
  },
  avax_validator_reward_uptime_threshold_ratio: {
    type: 'gauge',
    help: 'Uptime the primary-network validation needs to be rewarded (0..1): 0.8, or 0.9 for a validation that starts once the ACP-267 upgrade (helicon) is active; while info.upgrades reports that upgrade unscheduled it is 0.8.',
    labels: V,
    source: 'platform.getCurrentValidators startTime, info.upgrades heliconTime',
  },
  avax_validator_downtime_budget_seconds: {
    type: 'gauge',
    help: 'Downtime the primary-network validator can still have and be rewarded: (1 - threshold) x (end - start) minus (1 - uptime) x (now - start), with now the poll time; negative means the reward is already lost.',
    labels: V,
    source: 'platform.getCurrentValidators uptime, startTime, endTime; info.upgrades',
  },
  avax_l1_validator_balance_avax: {
    type: 'gauge',
    help: "L1 validator's remaining balance for the continuous fee, in AVAX.",
    labels: ['node', 'node_id', 'subnet', 'validation_id'],
    source: 'platform.getCurrentValidators balance',
  },
  avax_l1_validator_balance_runway_seconds: {
    type: 'gauge',
    help: "Time until the L1 validator's balance is used up at the current fee price (balance / price); absent for an inactive validator (balance 0).",
    labels: ['node', 'node_id', 'subnet', 'validation_id'],
    source: 'platform.getCurrentValidators balance / platform.getValidatorFeeState price',
  },
  avax_l1_validator_fee_price_avax_per_second: {
    type: 'gauge',
    help: 'Continuous fee each active L1 validator pays, in AVAX per second (polled only when subnets are watched).',
    labels: N,
    source: 'platform.getValidatorFeeState price',
  },
  avax_l1_validator_uptime_ratio: {
    type: 'gauge',
    help: "L1 validator's uptime as the L1 chain on this node sees it (0..1).",
    labels: ['node', 'node_id', 'subnet', 'chain'],
    source: 'validators.getCurrentValidators at /ext/bc/<chain>/validators uptimePercentage / 100',
  },
  avax_l1_validator_active: {
    type: 'gauge',
    help: '1 when the L1 chain on this node reports the validator active, 0 once the P-Chain deactivated it (its fee balance ran out; it no longer validates). Absent on Subnet-EVM versions without isActive.',
    labels: ['node', 'node_id', 'subnet', 'chain'],
    source: 'validators.getCurrentValidators at /ext/bc/<chain>/validators isActive',
  },
  avax_l1_chain_state: {
    type: 'gauge',
    help: "State of an L1 chain's validators API on this node, one series per state (ok, bootstrapping: answers 503 while the chain bootstraps, failed: any other failure), 1 for the current one. A chain that is not ok has no validator series; the other chains keep theirs.",
    labels: ['node', 'subnet', 'chain', 'state'],
    source: 'validators.getCurrentValidators at /ext/bc/<chain>/validators',
  },
  avax_node_blockchain_status: {
    type: 'gauge',
    help: 'Status of each chain of a watched subnet on this node, as platform.getBlockchainStatus answers it; a state set: one series per status, 1 for the current one, 0 for the others. Validating: the node runs the chain and the P-Chain lists it as a validator of the subnet. Syncing: it runs the chain but is not a validator of the subnet. Created: the chain exists on the P-Chain but the node does not run it (it does not track the subnet). Preferred: the chain is only in the preferred, not yet accepted, P-Chain block. Unknown: the P-Chain does not know the chain.',
    labels: ['node', 'subnet', 'chain', 'status'],
    source: 'platform.getBlockchains, platform.getBlockchainStatus',
  },
  avax_node_chain_vm_info: {
    type: 'gauge',
    help: 'The VM of each chain of a watched subnet the node runs (Validating or Syncing on avax_node_blockchain_status); always 1. vm is the VM id, as info.getNodeVersion vmVersions names a plugin without an alias, so the plugins a node runs can be told from the ones it merely has installed.',
    labels: ['node', 'subnet', 'chain', 'vm'],
    source: 'platform.getBlockchains vmID, platform.getBlockchainStatus',
  },
  avax_node_subnet_chains: {
    type: 'gauge',
    help: 'Number of chains the P-Chain lists for a watched subnet (0: a subnet without chains, or a watched id that is no subnet).',
    labels: ['node', 'subnet'],
    source: 'platform.getBlockchains',
  },
  avax_node_tracks_subnet: {
    type: 'gauge',
    help: 'Whether the node runs the chains of a watched subnet (--track-subnets): 1 when at least one of its chains is Validating or Syncing on avax_node_blockchain_status, 0 when it runs none of them (Created: the node does not track the subnet), or when the subnet has no chain (avax_node_subnet_chains 0).',
    labels: ['node', 'subnet'],
    source: 'platform.getBlockchains, platform.getBlockchainStatus',
  },
  avax_l1_validator_connected: {
    type: 'gauge',
    help: '1 when the L1 chain on this node is connected to the validator.',
    labels: ['node', 'node_id', 'subnet', 'chain'],
    source: 'validators.getCurrentValidators at /ext/bc/<chain>/validators isConnected',
  },
  avax_l1_validation_found: {
    type: 'gauge',
    help: '1 when platform.getL1Validator knows the watched validation id (--watch.validation-id), 0 when it answers not found: the validation ended and its remaining balance went back to its owner. Absent while the lookup fails (avax_l1_validation_lookup_success 0): unknown, not ended.',
    labels: ['node', 'validation_id'],
    source: 'platform.getL1Validator',
  },
  avax_l1_validation_lookup_success: {
    type: 'gauge',
    help: "1 when the node's last answer about the watched validation id was usable (found or not found), 0 when it was another JSON-RPC error or did not validate: that id's series are left out, the other ids and the validators source stay (a node that does not answer at all takes the whole source down instead).",
    labels: ['node', 'validation_id'],
    source: 'platform.getL1Validator',
  },
  avax_l1_chain_healthy: {
    type: 'gauge',
    help: "1 when the health check of a watched L1's chain passes on this node (/ext/health?tag=<subnet id>), 0 when it fails. It fails below 80 % of that chain's validator stake connected (snow/networking/handler/health.go): in a small L1 one other operator's node offline is enough. The L1's health, kept apart from the node's own (avax_node_primary_network_healthy).",
    labels: ['node', 'subnet', 'chain'],
    source: 'GET /ext/health?tag=<subnet id>',
  },
  avax_l1_chain_failed_to_start: {
    type: 'gauge',
    help: '1 when the chain of a watched L1 could not be created on this node: its health check fails with "failed to create chain on subnet …" (chains/manager.go; a missing plugin, an RPCChainVM protocol mismatch). The node runs nothing of that chain; platform.getBlockchainStatus reads Created. 0 otherwise.',
    labels: ['node', 'subnet', 'chain'],
    source: 'GET /ext/health?tag=<subnet id>',
  },
  avax_l1_chain_health_check_info: {
    type: 'gauge',
    help: "Always 1: the name of a watched L1 chain's health check (its primary alias or its id), to join avax_node_health_check_passing{check} and the avax_node_chain_* series (whose chain label is that name) with the chain id and its subnet.",
    labels: ['node', 'subnet', 'chain', 'check'],
    source: 'GET /ext/health?tag=<subnet id>',
  },
  avax_data_api_validator_status: {
    type: 'gauge',
    help: "1 for the status (active, pending, completed, removed) of the validator's current validation on the subnet according to the Data API (the active one, else the newest), 0 for the others; all 0 for a watched node with no primary-network validation.",
    labels: ['network', 'node_id', 'subnet', 'status'],
    source: `Data API ${DAPI_V} validationStatus`,
  },
  avax_data_api_validator_uptime_ratio: {
    type: 'gauge',
    help: "Validator uptime as the Data API's own observers measure it (0..1).",
    labels: D,
    source: `Data API ${DAPI_V} uptimePerformance / 100`,
  },
  avax_data_api_validator_stake_avax: {
    type: 'gauge',
    help: "Validator's own stake in AVAX (active or pending validation; primary network only).",
    labels: D,
    source: `Data API ${DAPI_V} amountStaked`,
  },
  avax_data_api_validator_delegated_avax: {
    type: 'gauge',
    help: 'Stake delegated to the validator, in AVAX (primary network).',
    labels: D,
    source: `Data API ${DAPI_V} amountDelegated`,
  },
  avax_data_api_validator_delegation_capacity_avax: {
    type: 'gauge',
    help: 'Stake that can still be delegated to the validator, in AVAX (primary network).',
    labels: D,
    source: `Data API ${DAPI_V} delegationCapacity`,
  },
  avax_data_api_validator_delegators: {
    type: 'gauge',
    help: 'Number of delegations to the validator according to the Data API.',
    labels: D,
    source: `Data API ${DAPI_V} delegatorCount`,
  },
  avax_data_api_validator_end_timestamp_seconds: {
    type: 'gauge',
    help: 'End of the current (active or pending) validation according to the Data API.',
    labels: D,
    source: `Data API ${DAPI_V} endTimestamp`,
  },
  avax_data_api_validator_potential_reward_avax: {
    type: 'gauge',
    help: 'Reward of the active validation if the uptime requirement is met, in AVAX, by kind (validation, delegation).',
    labels: ['network', 'node_id', 'subnet', 'kind'],
    source: `Data API ${DAPI_V} potentialRewards`,
  },
  avax_data_api_validator_last_completed_end_timestamp_seconds: {
    type: 'gauge',
    help: "End of the validator's newest completed primary-network validation according to the Data API (with the reward series: how recent the outcome is).",
    labels: D,
    source: `Data API ${DAPI_V} endTimestamp (validationStatus completed)`,
  },
  avax_data_api_validator_last_reward_avax: {
    type: 'gauge',
    help: "Reward paid for the validator's newest completed primary-network validation, in AVAX, by kind (validation; delegation: the fees its delegators paid it). A validation reward of 0 means the reward was denied (uptime under the requirement).",
    labels: ['network', 'node_id', 'subnet', 'kind'],
    source: `Data API ${DAPI_V} rewards.{validation,delegation}RewardAmount (validationStatus completed)`,
  },
  avax_data_api_validator_last_reward_denied: {
    type: 'gauge',
    help: "1 when the validator's newest completed primary-network validation earned no validation reward (rewards.validationRewardAmount 0: the uptime requirement was not met), 0 when it was rewarded; absent when the service did not say.",
    labels: D,
    source: `Data API ${DAPI_V} rewards.validationRewardAmount (validationStatus completed)`,
  },
  avax_data_api_validator_remove_timestamp_seconds: {
    type: 'gauge',
    help: "When the validator's newest removed validation on the permissioned subnet was removed (RemoveSubnetValidatorTx), according to the Data API.",
    labels: D,
    source: `Data API ${DAPI_V} removeTimestamp (validationStatus removed)`,
  },
  avax_data_api_validator_reachability_ratio: {
    type: 'gauge',
    help: "Share of the Data API's observers that reach the validator (0..1).",
    labels: ['network', 'node_id'],
    source: `Data API ${DAPI_V} validatorHealth.reachabilityPercent / 100`,
  },
  avax_data_api_validator_benched_requests_ratio: {
    type: 'gauge',
    help: 'Share of requests to the validator that its peers bench, per chain (0..1).',
    labels: DC,
    source: `Data API ${DAPI_V} validatorHealth.benched{P,X,C}ChainRequestsPercent / 100`,
  },
  avax_data_api_validator_version_info: {
    type: 'gauge',
    help: 'AvalancheGo version the Data API sees the validator run; always 1.',
    labels: ['network', 'node_id', 'version'],
    source: `Data API ${DAPI_V} avalancheGoVersion`,
  },
  avax_validator_proposed_blocks_total: {
    type: 'counter',
    help: 'New blocks the validator proposed on the chain since the exporter started watching it (the first poll sets the baseline at 0; X and C only where the service serves them).',
    labels: DC,
    source: 'Data API GET /v1/networks/{network}/blockchains/{p-chain,x-chain,c-chain}/nodes/{nodeId}/blocks',
  },
  avax_validator_last_proposed_block_height: {
    type: 'gauge',
    help: 'Height of the newest block the validator proposed.',
    labels: DC,
    source: 'Data API GET /v1/networks/{network}/blockchains/p-chain/nodes/{nodeId}/blocks blockNumber',
  },
  avax_validator_last_proposed_block_timestamp_seconds: {
    type: 'gauge',
    help: 'Time of the newest block the validator proposed.',
    labels: DC,
    source: 'Data API GET /v1/networks/{network}/blockchains/p-chain/nodes/{nodeId}/blocks blockTimestamp',
  },
  avax_data_api_chain_height: {
    type: 'gauge',
    help: 'Height of the latest block of the chain the Data API has indexed.',
    labels: ['network', 'chain'],
    source: 'Data API GET /v1/networks/{network}/blockchains/{p,x,c}-chain/blocks blockNumber',
  },
  avax_data_api_chain_block_timestamp_seconds: {
    type: 'gauge',
    help: 'Time of the latest block of the chain the Data API has indexed.',
    labels: ['network', 'chain'],
    source: 'Data API GET /v1/networks/{network}/blockchains/{p,x,c}-chain/blocks blockTimestamp',
  },
  avax_data_api_active_l1_validators: {
    type: 'gauge',
    help: 'Active L1 validators on the P-Chain after its latest block, as the Data API reports it (absent when the service leaves it out).',
    labels: ['network'],
    source: 'Data API GET /v1/networks/{network}/blockchains/p-chain/blocks activeL1Validators',
  },
  avax_data_api_l1_validators_accrued_fees_avax: {
    type: 'gauge',
    help: 'Continuous fees L1 validators have accrued on the P-Chain after its latest block, in AVAX, as the Data API reports it (absent when the service leaves it out).',
    labels: ['network'],
    source: 'Data API GET /v1/networks/{network}/blockchains/p-chain/blocks l1ValidatorsAccruedFees (nAVAX)',
  },
  avax_data_api_l1_validator_balance_avax: {
    type: 'gauge',
    help: "Balance an L1 validation of a watched node id has left to pay the continuous fee, in AVAX, as the Data API sees it (0 once inactive); independent of the node's own P-Chain API.",
    labels: ['network', 'node_id', 'subnet', 'validation_id'],
    source: 'Data API GET /v1/networks/{network}/l1Validators?nodeId=&includeInactiveL1Validators=true remainingBalance (nAVAX)',
  },
  avax_data_api_l1_validator_weight: {
    type: 'gauge',
    help: 'Consensus weight of an L1 validation of a watched node id, as the Data API sees it.',
    labels: ['network', 'node_id', 'subnet', 'validation_id'],
    source: 'Data API GET /v1/networks/{network}/l1Validators weight',
  },
  avax_data_api_l1_validator_active: {
    type: 'gauge',
    help: 'Whether an L1 validation of a watched node id is active (1: weight and balance both non-zero, the P-Chain rule) or inactive (0), as the Data API sees it.',
    labels: ['network', 'node_id', 'subnet', 'validation_id'],
    source: 'Data API GET /v1/networks/{network}/l1Validators weight, remainingBalance',
  },
  avax_data_api_rate_limited_total: {
    type: 'counter',
    help: 'Data API requests answered with HTTP 429 (rate limited) since start.',
    labels: ['network'],
    source: 'exporter (Data API client)',
  },
  avax_address_balance_avax: {
    type: 'gauge',
    help: 'Spendable native balance of a watched address (configuration `addresses`), in whole tokens: AVAX on the P-Chain (unlocked, unstaked) and the C-Chain; on an L1, its native token (18 decimals).',
    labels: ['network', 'chain', 'address', 'alias'],
    source: 'eth_getBalance at /ext/bc/<chain>/rpc (C-Chain, L1); Data API GET /v1/networks/{network}/blockchains/p-chain/balances unlockedUnstaked (P-Chain)',
  },
  avax_address_balance_floor_avax: {
    type: 'gauge',
    help: 'Floor of a watched address (configuration floor_avax), exported next to its balance so alerts compare balance < floor; absent for an address without a floor or whose balance is unknown.',
    labels: ['network', 'chain', 'address', 'alias'],
    source: 'configuration addresses[].floor_avax',
  },
  avax_source_up: { type: 'gauge', help: '1 when the last poll of the source succeeded.', labels: S, source: 'exporter' },
  avax_source_last_success_timestamp_seconds: { type: 'gauge', help: 'When the source was last polled successfully.', labels: S, source: 'exporter' },
  avax_source_poll_duration_seconds: { type: 'gauge', help: 'Duration of the last poll of the source.', labels: S, source: 'exporter' },
  avax_source_max_age_seconds: { type: 'gauge', help: "Age of the last success after which the source's series are dropped.", labels: S, source: 'exporter' },
  avax_source_polls_total: { type: 'counter', help: 'Polls of the source.', labels: S, source: 'exporter' },
  avax_source_poll_failures_total: {
    type: 'counter',
    help: 'Failed polls of the source, by reason (timeout, connect, http_status, rpc_error, invalid_response, network_mismatch, rate_limited).',
    labels: ['node', 'source', 'reason'],
    source: 'exporter',
  },
  avax_probe_success: {
    type: 'gauge',
    help: "On /probe only: 1 when the node's identity source (info) answered in its last poll and that answer is younger than the max age, else 0.",
    labels: N,
    source: 'exporter (/probe)',
  },
  avax_probe_duration_seconds: {
    type: 'gauge',
    help: 'On /probe only: time the probe took to answer, including any poll round it waited for.',
    labels: N,
    source: 'exporter (/probe)',
  },
  avax_probe_poll_age_seconds: {
    type: 'gauge',
    help: 'On /probe only: age of the poll round the answer comes from (since the start of its identity poll); absent before the first round.',
    labels: N,
    source: 'exporter (/probe)',
  },
  avax_exporter_probe_targets: {
    type: 'gauge',
    help: 'Probe-only URLs (probe.targets, not configured nodes) polled for /probe now; at most probe.max_targets.',
    labels: [],
    source: 'exporter',
  },
  avax_exporter_poll_deadline_extensions_total: {
    type: 'counter',
    help: "Times a poll round's deadline moved one timeout on because the exporter's own event loop was busy for at least 90 % of it (the answers were late to be read, not late to come); a round is cut off after three timeouts at most. Rising: the exporter is short of CPU.",
    labels: [],
    source: 'exporter',
  },
  avax_exporter_build_info: { type: 'gauge', help: 'Build of the exporter; always 1.', labels: ['version', 'revision', 'nodejs'], source: 'exporter' },
  avax_exporter_l1_validators_omitted: {
    type: 'gauge',
    help: 'L1 validators of the chain left out of the export because the chain lists more than --watch.max-validators (the heaviest are kept, then by node id).',
    labels: ['node', 'subnet', 'chain'],
    source: 'exporter',
  },
  avax_exporter_validators_omitted: {
    type: 'gauge',
    help: 'Current validators left out of the export because the set is larger than --watch.max-validators.',
    labels: ['node', 'subnet'],
    source: 'exporter',
  },
  avax_exporter_series: { type: 'gauge', help: 'Series in the last rendered exposition (process metrics excluded).', labels: [], source: 'exporter' },
  avax_exporter_config_last_reload_successful: {
    type: 'gauge',
    help: '1 when the last configuration reload (SIGHUP or POST /-/reload) succeeded.',
    labels: [],
    source: 'exporter',
  },
  avax_exporter_config_last_reload_success_timestamp_seconds: {
    type: 'gauge',
    help: 'When the configuration was last loaded successfully (start-up or reload).',
    labels: [],
    source: 'exporter',
  },
  avax_exporter_web_config_last_reload_successful: {
    type: 'gauge',
    help: '1 when the last change of --web.config.file (or of a file it names) was applied; 0 when it was invalid or needs a restart (TLS on or off, client_auth_type) and the running web config was kept.',
    labels: [],
    source: 'exporter',
  },
  avax_exporter_watched_subnet: {
    type: 'gauge',
    help: 'Always 1: a subnet / L1 some node is configured to watch (--watch.subnet-id); the alert on an L1 validation nobody watches compares the Data API list with it.',
    labels: ['subnet'],
    source: 'configuration',
  },
  avax_exporter_watched_validation: {
    type: 'gauge',
    help: 'Always 1: an L1 validation some node is configured to watch (--watch.validation-id).',
    labels: ['validation_id'],
    source: 'configuration',
  },
  avax_exporter_ready: { type: 'gauge', help: '1 once every node has completed its first poll round.', labels: [], source: 'exporter' },
} as const satisfies Record<string, MetricDef>;

/** A metric name of the contract. */
export type MetricName = keyof typeof METRICS;

/** One sample: a metric, its label values, its value. Produced by collectors. */
export interface Sample {
  /** A metric of the contract (a source outside the product declares its own in SourceDef.metrics and casts their names). */
  readonly name: MetricName;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * A group of samples that makes them when asked: the same samples on every
 * call, made from inputs that do not change (an immutable source value, a
 * snapshot of a few numbers). See {@link SampleGroup}.
 */
export interface MadeSamples {
  readonly make: () => readonly Sample[];
}

/**
 * Samples the exposition formats together and keeps formatted for as long
 * as the group object lives: the same object in a later render is neither
 * formatted nor compressed again. A group is its samples, or a
 * {@link MadeSamples} that makes them when a renderer first needs them, so
 * that nothing keeps them once their lines are formatted: a fleet's or a
 * validator set's series are then kept as text alone (a quarter of a fleet
 * node's live heap was its samples). Never edited once returned.
 */
export type SampleGroup = readonly Sample[] | MadeSamples;

/** A group's samples (made again by a {@link MadeSamples}). */
export function samplesOf(group: SampleGroup): readonly Sample[] {
  return 'make' in group ? group.make() : group;
}
