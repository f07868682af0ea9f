/**
 * The rows of the detection matrix that run on a real AvalancheGo network (test/real-network/incidents.test.ts),
 * and what the shipped rules raise there that they should not. Data only: the live test checks them, the generator
 * of docs/detection.md (test/tools/detection-doc.ts) prints them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './promql-contract.js';

/** The AvalancheGo release the suite builds and runs (test/avalanchego/go.mod). */
export function avalanchegoVersion(): string {
  const m = /^require github\.com\/ava-labs\/avalanchego (v\S+)$/m.exec(readFileSync(join(ROOT, 'test', 'avalanchego', 'go.mod'), 'utf8'));
  if (!m?.[1]) throw new Error('test/avalanchego/go.mod requires no github.com/ava-labs/avalanchego version');
  return m[1];
}

/** A cluster of the real network's matrix: one exporter polling one node of it. */
export type RealCluster =
  | 'real-healthy-validator'
  | 'real-restarted'
  | 'real-frozen'
  | 'real-disk'
  | 'real-cut-off'
  | 'real-joined'
  | 'real-killed'
  | 'real-rpc'
  | 'real-partial-sync'
  | 'real-l1-main'
  | 'real-l1-short'
  | 'real-l1-primary-watcher';

/** One row: the node its exporter polls, what happens to it, and what the test asserts. */
export interface RealRow {
  cluster: RealCluster;
  deployment: string;
  incident?: string;
  /** What the test holds the rules to (Markdown). */
  asserted: string;
}

/** Each row's exporter watches its node's own id (the default) with the Data API off, as an operator starts it. */
export const REAL_ROWS: RealRow[] = [
  {
    cluster: 'real-healthy-validator',
    deployment: 'A genesis validator (one of five, 20 % of the stake), never touched',
    asserted: 'no critical or warning alert in any phase, while the other validators restart, freeze and die',
  },
  {
    cluster: 'real-restarted',
    deployment: 'A genesis validator',
    incident: 'SIGTERM, down a minute, started again with its own flags and ports',
    asserted: 'AvaxNodeDown firing while it is down, ended once it is back; every source up again; no other row raises anything',
  },
  {
    cluster: 'real-frozen',
    deployment: 'A genesis validator',
    incident: 'SIGSTOP for 40 s (its ports stay open, nothing answers), then SIGCONT',
    asserted: 'AvaxNodeDown firing while frozen (the polls time out); every source up again once thawed',
  },
  {
    cluster: 'real-cut-off',
    deployment:
      "The restarted validator, once its row is over (its exporter then leaves Prometheus), with the operator's RPC node beside it in the same exporter, watching the validator's id",
    incident:
      'Cut off from its peers while its API answers (its process in a cgroup of its own, iptables dropping its peer traffic, its connections destroyed: test/helpers/cut-off.ts) until its silence passes 120 s, then reconnected',
    asserted:
      "every other node loses it and it has no peer; AvaxNodeUnhealthy and AvaxValidatorNotConnected (the RPC node's view) firing, AvaxNodeHealthCheckFailing for `network`, `P`, `X` and `C`, AvaxNodeLowConnectedStake for it, AvaxNodeNetworkSilent firing; no AvaxNodeDown or AvaxSourceDown (every source up); reconnected, every alert but the known defects below ends; no other row raises anything",
  },
  {
    cluster: 'real-joined',
    deployment: 'A new node that validates nothing, fresh identity and empty database, its bootstrappers the five validators; its exporter started first',
    incident: 'Started and left to bootstrap P, X and C from the validators (its `bootstrapped` check fails and its chain APIs answer 503 until done)',
    asserted:
      'its `bootstrapped` check fails at first; no AvaxNodeUnhealthy or AvaxNodeHealthCheckFailing while it bootstraps; once done every source up, every chain bootstrapped, then no critical or warning alert; no other row raises anything',
  },
  {
    cluster: 'real-disk',
    deployment: 'A genesis validator',
    incident:
      "Restarted with its database on a 256 MB volume of the test's own and AvalancheGo's default disk thresholds, then the volume filled to 94 %: its real `diskspace` check fails (node/node.go), then restored",
    asserted: 'AvaxNodeHealthCheckFailing raised for the `diskspace` check; no other row raises anything',
  },
  {
    cluster: 'real-killed',
    deployment: 'A genesis validator',
    incident: 'SIGKILL, left down',
    asserted: 'AvaxNodeDown firing, and still firing 40 s later',
  },
  {
    cluster: 'real-rpc',
    deployment: 'A node that validates nothing (an RPC node)',
    asserted: 'no critical or warning alert in any phase',
  },
  {
    cluster: 'real-partial-sync',
    deployment: 'A node with `--partial-sync-primary-network` that validates nothing',
    asserted: 'no critical or warning alert in any phase',
  },
];

/**
 * The rows of test/real-network/l1.test.ts: the same network with an L1 (an xsvm chain converted with three
 * validators of its own), each row's exporter watching the L1's subnet (`--watch.subnet-id`).
 */
export const REAL_L1_ROWS: RealRow[] = [
  {
    cluster: 'real-l1-main',
    deployment: 'An L1 validator (weight 60 of 105, 1 AVAX of balance) that validates nothing on the primary network, `--partial-sync-primary-network`',
    asserted: 'no critical or warning alert while another validator of the L1 runs out of balance and is deactivated',
  },
  {
    cluster: 'real-l1-short',
    deployment: 'An L1 validator (weight 5) converted with 240 nAVAX of balance: four minutes of the continuous fee at the local 1 nAVAX/s',
    incident: 'Its balance runs out; the P-Chain builds a block by itself at that time and deactivates it (vms/platformvm/state/chain_time_helpers.go)',
    asserted:
      'AvaxL1ValidatorRunwayLow critical firing while the balance lasts (AvaxL1ValidatorBalanceLow critical fires beside it: two pages for one cause, no inhibition between them), then AvaxL1ValidatorInactive firing once deactivated, with avax_validator_active 0',
  },
  {
    cluster: 'real-l1-primary-watcher',
    deployment: 'A genesis validator of the primary network watching the L1 it does not validate (its chain reads Created there)',
    asserted: 'no critical or warning alert',
  },
];

/**
 * What the shipped rules raise on the real network that they should not, each a point of issue 42 (which changes
 * the rules). The real-network test leaves these out of its silence checks, and nothing else.
 */
export const KNOWN_DEFECTS: { alert: RegExp; clusters?: readonly RealCluster[]; why: string }[] = [
  {
    alert: /^AvaxValidatorUptimeLow\{critical\}/,
    clusters: ['real-healthy-validator', 'real-restarted', 'real-frozen', 'real-disk', 'real-killed'],
    why:
      'issue 42.1: a validation judges uptime since its own start (vms/platformvm/state, snow/uptime); minutes into the ' +
      'network, the seconds before the peers connected, or a minute of restart (the network then reads 52 %), weigh enough ' +
      'to read under 80 %, and the rule pages critical though the reward is judged at the end',
  },
  {
    alert: /^AvaxValidatorUptimeLow\{critical\}/,
    clusters: ['real-cut-off'],
    why:
      'issue 42.1 (the restarted validator read 71 % before the cut), and issue 42 (a point to add): the figure the ' +
      'rule judges, avax_validator:uptime_ratio:network, is wrong both ways around a cut-off. Cut off, no peer reports ' +
      "the node's uptime, so the rule falls back to info.uptime over the connected share of the stake, 20 % / 20 % = " +
      "100 %: the node's view of itself, and however long the cut lasts the rule cannot page. Reconnected, each peer " +
      'reports 0 % until its first Ping (network/peer/peer.go sets observedUptime from it, every 22.5 s: ' +
      'utils/constants/networking.go), so the stake-weighted median reads 0 % meanwhile and the scaled rule pages',
  },
  {
    alert: /^AvaxNodeDiskFillingUp\{warning\}/,
    why: "issue 42.10: predict_linear over the disk's free bytes extrapolates a fresh node's first writes to a full disk",
  },
  {
    alert: /^AvaxSourceDown\{warning\} (pending|firing) \[source=(p_chain|x_chain|c_chain|validators)\]$/,
    clusters: ['real-joined'],
    why:
      'issue 42 (a point to add): a chain that bootstraps answers its APIs 503 (404 while the P-Chain bootstraps: chains/manager.go), so ' +
      'its sources fail and AvaxSourceDown warns after 5 minutes, once per source, while AvaxNodeUnhealthy and ' +
      'AvaxNodeHealthCheckFailing leave a bootstrapping node out and AvaxNodeNotBootstrapped says it after 30: a new ' +
      "node's hours of bootstrap warn about sources that are not broken",
  },
  {
    alert: /^AvaxL1ValidatorBalanceLow\{warning\}/,
    clusters: ['real-l1-main'],
    why:
      'issue 42 (found on the real L1): the balance is judged in AVAX whatever the fee price, so 1 AVAX warns on a ' +
      "validator whose balance lasts 31 years at the local network's 1 nAVAX/s (and 22 days at mainnet's minimum " +
      '512 nAVAX/s); the runway (AvaxL1ValidatorRunwayLow) is what measures the loss',
  },
  {
    alert: /^AvaxNodeLowConnectedStake\{warning\}/,
    why: 'issue 42.9: one validator of five down leaves every node with 80 % of the stake connected, and every node warns, not only the worse one',
  },
];
