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
    alert: /^AvaxNodeDiskFillingUp\{warning\}/,
    why: "issue 42.10: predict_linear over the disk's free bytes extrapolates a fresh node's first writes to a full disk",
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
