/**
 * The exporter against the real AvalancheGo v1.14.2 (issue 41, point 4): the daemon started as an operator starts
 * it, polling the local network of test/helpers/local-network.ts (five genesis validators, an RPC node, a
 * partial-sync node), and every series compared with what the same node answers when the test asks it directly
 * over JSON-RPC and /ext/health. Then the fleet, /probe, promtool on the real exposition, the status page, the
 * example /ext/metrics scrape job in a real Prometheus, and the shipped alert rules over a healthy network.
 *
 * The nodes' figures move on their own (peers' observed uptimes, the health worker's results every 2 s, the disk),
 * so each comparison is retried until the exporter's latest round and the test's own reading of the node agree.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { PRIMARY_NETWORK_ID } from '../../src/domain/ids.js';
import { NODE_SOURCES } from '../../src/sources/catalog.js';
import { eventually, parseExposition, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp, type TestDaemon } from '../helpers/daemon.js';
import { useLocalNetwork, type LocalNode } from '../helpers/local-network.js';
import { checkPrometheusInstalled, startPrometheus, stopProcess, waitFor, type Prometheus } from '../helpers/prometheus.js';
import { ALERTS_DIR, ROOT } from '../helpers/promql-contract.js';

const network = useLocalNetwork('exporter');

/**
 * Longer than the helper's 500 ms / 400 ms: a round asks a real node a dozen questions, and seven nodes share the
 * machine's two cores with the exporter.
 */
const POLL = { interval: '2s', timeout: '2s' };
/** How long a daemon may take to have every source up, and two readings to agree. */
const WAIT_MS = 30_000;

/**
 * The node sources that ask about a watched subnet only (their `appliesTo`: `watch.subnet_ids` not empty): the
 * chains of a watched subnet and their status (blockchain_status), an L1 chain's own validators API (l1_uptime),
 * its health checks by the subnet's tag (l1_health). This file's network runs no L1 (test/real-network/l1.test.ts
 * starts one and watches it), so there is nothing to watch and the daemon does not poll them: they have no avax_source_up. The wallets' balances
 * (CONFIGURED_NODE_SOURCES) are not in NODE_SOURCES and are polled only for configured addresses.
 */
const L1_ONLY = NODE_SOURCES.filter((s) => s.appliesTo !== undefined).map((s) => s.name);
/** The sources every node of the local network is polled for. */
const POLLED = NODE_SOURCES.map((s) => s.name).filter((s) => !L1_ONLY.includes(s));

// ------------------------------------------------------------------ asking the node

interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string };
}

/** One JSON-RPC call to a real node, as the test's own question: the whole answer (result or error). */
async function ask<T>(node: LocalNode, path: string, method: string, params: unknown = {}): Promise<RpcAnswer<T>> {
  const res = await fetch(node.uri + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as RpcAnswer<T>;
}

/** The result of a JSON-RPC call; fails on an error answer. */
async function call<T>(node: LocalNode, path: string, method: string, params: unknown = {}): Promise<T> {
  const a = await ask<T>(node, path, method, params);
  if (a.result === undefined) throw new Error(`${method} on ${node.uri}: ${JSON.stringify(a.error)}`);
  return a.result;
}

interface HealthCheck {
  message?: unknown;
  error?: unknown;
}
interface HealthReport {
  checks: Record<string, HealthCheck>;
  healthy: boolean;
}

/** GET /ext/health<suffix> of a real node: its status and report. */
async function health(node: LocalNode, suffix = ''): Promise<{ status: number; body: HealthReport }> {
  const res = await fetch(`${node.uri}/ext/health${suffix}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as HealthReport };
}

interface Peer {
  nodeID: string;
  version: string;
  observedUptime: string;
  upgradeTime?: number;
}
const peersOf = (node: LocalNode) => call<{ numPeers: string; peers: Peer[] | null }>(node, '/ext/info', 'info.peers');

interface Validator {
  nodeID: string;
  weight: string;
  startTime: string;
  endTime: string;
  potentialReward: string;
  delegationFee: string;
  uptime: string;
  connected: boolean;
  delegatorCount?: string;
  delegatorWeight?: string;
}
const validatorsOf = async (node: LocalNode, params: Record<string, unknown> = {}) =>
  (await call<{ validators: Validator[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', params)).validators;

/** Own plus delegated weight: how the P-Chain weighs a primary-network validator (its validator set's weight). */
const stakeOf = (v: Validator) => Number(v.weight) + Number(v.delegatorWeight ?? 0);

/** P, X and C heights as the node's own APIs answer them. */
async function heightsOf(node: LocalNode): Promise<{ P: number; X: number; C: number }> {
  const [p, x, c] = await Promise.all([
    call<{ height: string }>(node, '/ext/bc/P', 'platform.getHeight'),
    call<{ height: string }>(node, '/ext/bc/X', 'avm.getHeight'),
    call<string>(node, '/ext/bc/C/rpc', 'eth_blockNumber', []),
  ]);
  return { P: Number(p.height), X: Number(x.height), C: Number.parseInt(c, 16) };
}

/**
 * Seconds of a Go `time.Duration` as AvalancheGo's health details write it (`Duration.String()`: `0s`,
 * `544.456463ms`, `1m2.5s`): the test's own reading, to compare with the exporter's.
 */
function goSeconds(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const unit: Record<string, number> = { ns: 1e-9, µs: 1e-6, us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of s.matchAll(/([\d.]+)(ns|µs|us|ms|s|m|h)/g)) total += Number(m[1]) * (unit[m[2] as string] as number);
  return total;
}

// ------------------------------------------------------------------ reading the exporter

/** Retries `check` (which asserts) until it passes, then returns; after `timeoutMs` its last failure is thrown. */
async function agreeing(check: () => Promise<void>, timeoutMs = WAIT_MS): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The values of `name`'s series for `node`, by the value of `label`. */
function byLabel(text: string, name: string, node: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of seriesOf(text, name, { node })) out[s.labels[label] as string] = s.value;
  return out;
}

/** Every node source but the L1 ones is up for `node`, and no other is listed. */
function expectPolledSourcesUp(text: string, node: string): void {
  expect(byLabel(text, 'avax_source_up', node, 'source'), node).toEqual(Object.fromEntries(POLLED.map((s) => [s, 1])));
}

/** The value of `name` for `node` (and `labels`); fails when the series is absent. */
function the(text: string, name: string, labels: Record<string, string>): number {
  const v = valueOf(text, name, labels);
  if (v === undefined) throw new Error(`no series ${name}${JSON.stringify(labels)}`);
  return v;
}

/** A label's values over the series of `name` for `node`, sorted. */
function labelValues(text: string, name: string, node: string, label: string): string[] {
  return seriesOf(text, name, { node })
    .map((s) => s.labels[label] as string)
    .sort();
}

async function startDaemon(raw: Record<string, unknown>): Promise<TestDaemon> {
  const t = await startTestDaemon({ poll: POLL, ...raw });
  await waitUntilAllUp(t.daemon, WAIT_MS);
  return t;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

// ------------------------------------------------------------------ 1. one validator

describe('a validator, watching its own id (the default)', { timeout: 60_000 }, () => {
  let t: TestDaemon | undefined;
  const daemon = (): Daemon => {
    if (!t) throw new Error('the daemon did not start');
    return t.daemon;
  };
  const v0 = (): LocalNode => network().validators[0] as LocalNode;
  const N = { node: 'v0' };

  beforeAll(async () => {
    t = await startDaemon({ nodes: [{ name: 'v0', url: v0().uri }] });
  }, 60_000);
  afterAll(async () => {
    await t?.daemon.stop();
  });

  it('every node source is up, but the L1 sources, which have no L1 to ask about', async () => {
    // The catalog's sources that depend on a watched subnet: the ones the comment of L1_ONLY explains.
    expect(sorted(L1_ONLY)).toEqual(['blockchain_status', 'l1_health', 'l1_uptime']);
    expectPolledSourcesUp(await scrape(daemon()), 'v0');
  });

  it("avax_node_info and the identity series are the node's own answers", async () => {
    const node = v0();
    const [id, version, name, networkId, ip, upgrades] = await Promise.all([
      call<{ nodeID: string }>(node, '/ext/info', 'info.getNodeID'),
      call<{ version: string; databaseVersion: string; gitCommit: string; vmVersions: Record<string, string> }>(node, '/ext/info', 'info.getNodeVersion'),
      call<{ networkName: string }>(node, '/ext/info', 'info.getNetworkName'),
      call<{ networkID: string }>(node, '/ext/info', 'info.getNetworkID'),
      call<{ ip: string }>(node, '/ext/info', 'info.getNodeIP'),
      call<Record<string, unknown>>(node, '/ext/info', 'info.upgrades'),
    ]);
    const text = await scrape(daemon());
    expect(id.nodeID).toBe(node.nodeId);
    expect(seriesOf(text, 'avax_node_info', N)).toEqual([
      {
        labels: {
          ...N,
          node_id: id.nodeID,
          version: version.version,
          network: name.networkName,
          database_version: version.databaseVersion,
          git_commit: version.gitCommit,
        },
        value: 1,
      },
    ]);
    expect(the(text, 'avax_node_network_id', N)).toBe(Number(networkId.networkID));
    expect(Number(networkId.networkID)).toBe(network().networkId);
    expect(seriesOf(text, 'avax_node_ip_info', N).map((s) => s.labels['ip'])).toEqual([ip.ip]);
    expect(Object.fromEntries(seriesOf(text, 'avax_node_vm_version_info', N).map((s) => [s.labels['vm'] as string, s.labels['version'] as string]))).toEqual(
      version.vmVersions,
    );
    // Every scheduled upgrade (`<name>Time`), none of the unscheduled ones (AvalancheGo writes year 9999 for those).
    const scheduled = Object.entries(upgrades)
      .filter(([k, v]) => k.endsWith('Time') && typeof v === 'string' && new Date(v).getUTCFullYear() < 9000)
      .map(([k, v]) => [k.slice(0, -'Time'.length), Date.parse(v as string) / 1000]);
    expect(scheduled.length).toBeGreaterThan(0);
    expect(byLabel(text, 'avax_node_upgrade_timestamp_seconds', 'v0', 'upgrade')).toEqual(Object.fromEntries(scheduled));
  });

  it('avax_node_peers is info.peers numPeers, and the peers by version and upgrade time are its peers', async () => {
    await agreeing(async () => {
      const [peers, text] = await Promise.all([peersOf(v0()), scrape(daemon())]);
      const list = peers.peers ?? [];
      const count = (key: (p: Peer) => string) => {
        const m: Record<string, number> = {};
        for (const p of list) m[key(p)] = (m[key(p)] ?? 0) + 1;
        return m;
      };
      expect(the(text, 'avax_node_peers', N)).toBe(Number(peers.numPeers));
      expect(list.length).toBe(Number(peers.numPeers));
      expect(byLabel(text, 'avax_node_peers_by_version', 'v0', 'version')).toEqual(count((p) => p.version));
      expect(byLabel(text, 'avax_node_peers_by_upgrade_time', 'v0', 'upgrade_time')).toEqual(count((p) => String(p.upgradeTime)));
    });
    // Every other node of the network is its peer (the RPC and partial-sync nodes dial the validators).
    const peers = await peersOf(v0());
    expect(sorted((peers.peers ?? []).map((p) => p.nodeID))).toEqual(
      sorted(
        network()
          .nodes.filter((n) => n !== v0())
          .map((n) => n.nodeId),
      ),
    );
  });

  it('its own validation is exported as platform.getCurrentValidators lists it: connected to itself, its own uptime view ~100 %, its stake share', async () => {
    const node = v0();
    const self = { ...N, node_id: node.nodeId, subnet: PRIMARY_NETWORK_ID };
    await agreeing(async () => {
      const [all, [own], peers, text] = await Promise.all([
        validatorsOf(node),
        validatorsOf(node, { nodeIDs: [node.nodeId] }),
        peersOf(node),
        scrape(daemon()),
      ]);
      if (!own) throw new Error('the validator is not in its own validator set');
      expect(sorted(all.map((v) => v.nodeID))).toEqual(sorted(network().validators.map((v) => v.nodeId)));
      // Only the watched id (its own, by default) is exported from the primary network's set.
      expect(seriesOf(text, 'avax_validator_active', N)).toEqual([{ labels: self, value: 1 }]);
      expect(seriesOf(text, 'avax_validator_watched', N)).toEqual([{ labels: { ...N, node_id: node.nodeId }, value: 1 }]);
      expect(the(text, 'avax_validator_weight', self)).toBe(Number(own.weight));
      expect(the(text, 'avax_validator_start_timestamp_seconds', self)).toBe(Number(own.startTime));
      expect(the(text, 'avax_validator_end_timestamp_seconds', self)).toBe(Number(own.endTime));
      expect(the(text, 'avax_validator_potential_reward_avax', self)).toBeCloseTo(Number(own.potentialReward) / 1e9, 6);
      expect(the(text, 'avax_validator_delegation_fee_ratio', self)).toBeCloseTo(Number(own.delegationFee) / 100, 9);
      expect(the(text, 'avax_validator_delegators', self)).toBe(Number(own.delegatorCount));
      expect(the(text, 'avax_validator_delegator_weight_avax', self)).toBe(Number(own.delegatorWeight) / 1e9);
      // A node is always connected to itself, although info.peers never lists it.
      expect(own.connected).toBe(true);
      expect((peers.peers ?? []).map((p) => p.nodeID)).not.toContain(node.nodeId);
      expect(the(text, 'avax_validator_connected', self)).toBe(1);
      // Its own view of its uptime: it has been connected to itself all along.
      expect(Number(own.uptime)).toBeGreaterThanOrEqual(99);
      expect(the(text, 'avax_validator_uptime_ratio', self)).toBeCloseTo(Number(own.uptime) / 100, 9);
      expect(the(text, 'avax_validator_stake_share_ratio', { ...N, node_id: node.nodeId })).toBeCloseTo(
        stakeOf(own) / all.reduce((s, v) => s + stakeOf(v), 0),
        9,
      );
      expect(the(text, 'avax_exporter_validators_omitted', { ...N, subnet: PRIMARY_NETWORK_ID })).toBe(0);
    });
  });

  it('info.uptime is exported as the node answers it: its own stake counted at 100 %, its validator peers at what they observe, over the total stake', async () => {
    const node = v0();
    await agreeing(async () => {
      const [uptime, peers, all, text] = await Promise.all([
        call<{ weightedAveragePercentage: string; rewardingStakePercentage: string }>(node, '/ext/info', 'info.uptime'),
        peersOf(node),
        validatorsOf(node),
        scrape(daemon()),
      ]);
      const stake = new Map(all.map((v) => [v.nodeID, stakeOf(v)]));
      const total = [...stake.values()].reduce((a, b) => a + b, 0);
      const mine = stake.get(node.nodeId) ?? 0;
      // The reward requirement the node applies to its peers' views: the same 80 % the exporter reads for this validation.
      const requirement = the(text, 'avax_validator_reward_uptime_threshold_ratio', { ...N, node_id: node.nodeId, subnet: PRIMARY_NETWORK_ID });
      let weighted = 100 * mine;
      let rewarding = mine;
      for (const p of peers.peers ?? []) {
        const w = stake.get(p.nodeID) ?? 0; // peers that do not validate count nothing
        weighted += Number(p.observedUptime) * w;
        if (Number(p.observedUptime) / 100 >= requirement) rewarding += w;
      }
      // network/network.go NodeUptime: divided by the total stake, connected or not.
      expect(Number(uptime.weightedAveragePercentage)).toBeCloseTo(weighted / total, 3);
      expect(Number(uptime.rewardingStakePercentage)).toBeCloseTo((100 * rewarding) / total, 3);
      expect(the(text, 'avax_node_is_validator', N)).toBe(1);
      expect(the(text, 'avax_node_uptime_weighted_average_ratio', N)).toBeCloseTo(Number(uptime.weightedAveragePercentage) / 100, 9);
      expect(the(text, 'avax_node_uptime_rewarding_stake_ratio', N)).toBeCloseTo(Number(uptime.rewardingStakePercentage) / 100, 9);
    });
  });

  it("P, X and C heights are the node's own, and move after a transfer on each chain", { timeout: 180_000 }, async () => {
    const node = v0();
    const exported = (text: string) => ({
      P: the(text, 'avax_chain_height', { ...N, chain: 'P' }),
      X: the(text, 'avax_chain_height', { ...N, chain: 'X' }),
      C: the(text, 'avax_chain_height', { ...N, chain: 'C' }),
    });
    let before = await heightsOf(node);
    await agreeing(async () => {
      before = await heightsOf(node);
      expect(exported(await scrape(daemon()))).toEqual(before);
    });
    await network().transfer(node);
    const after = await heightsOf(node);
    // Each chain accepted the transfer's block (the P-Chain builds blocks for its own transactions only: the driver sends it one).
    for (const chain of ['P', 'X', 'C'] as const) expect(after[chain], chain).toBeGreaterThan(before[chain]);
    await eventually(async () => JSON.stringify(exported(await scrape(daemon()))) === JSON.stringify(after), WAIT_MS, 250);
    // The consensus engine's last accepted height in the chain's health check (rerun every 2 s) catches up too.
    await eventually(async () => {
      const text = await scrape(daemon());
      return (['P', 'X', 'C'] as const).every((chain) => valueOf(text, 'avax_node_chain_last_accepted_height', { ...N, chain }) === after[chain]);
    }, WAIT_MS);
    const text = await scrape(daemon());
    for (const chain of ['P', 'X', 'C']) {
      const b = await call<{ isBootstrapped: boolean }>(node, '/ext/info', 'info.isBootstrapped', { chain });
      expect(the(text, 'avax_node_bootstrapped', { ...N, chain }), chain).toBe(Number(b.isBootstrapped));
    }
  });

  it('every health check of /ext/health by its real name, passing as the node says; the application tag holds the node-wide checks, the rest are its chains', async () => {
    const node = v0();
    await agreeing(async () => {
      const [all, app, primary, ready, live, text] = await Promise.all([
        health(node),
        health(node, '?tag=application'),
        health(node, `?tag=${PRIMARY_NETWORK_ID}`),
        health(node, '/readiness'),
        health(node, '/liveness'),
        scrape(daemon()),
      ]);
      const names = Object.keys(all.body.checks);
      expect(labelValues(text, 'avax_node_health_check_passing', 'v0', 'check')).toEqual(sorted(names));
      for (const [name, check] of Object.entries(all.body.checks)) {
        const passing = check.error === undefined || check.error === null;
        expect(the(text, 'avax_node_health_check_passing', { ...N, check: name }), name).toBe(Number(passing));
        if (passing) expect(the(text, 'avax_node_health_check_contiguous_failures', { ...N, check: name }), name).toBe(0);
      }
      expect(the(text, 'avax_node_healthy', N)).toBe(Number(all.status === 200));
      expect(all.body.healthy).toBe(all.status === 200);
      expect(the(text, 'avax_node_ready', N)).toBe(Number(ready.status === 200));
      expect(the(text, 'avax_node_live', N)).toBe(Number(live.status === 200));
      expect(the(text, 'avax_node_primary_network_healthy', N)).toBe(Number(primary.body.healthy));
      // The node-wide checks are the application tag's (api/health/worker.go adds them to any tagged query): the
      // rest are the chains' checks, and those are exactly the chains of the consensus and networking series.
      const appNames = Object.keys(app.body.checks);
      expect(names).toEqual(expect.arrayContaining(appNames));
      const chains = sorted(names.filter((n) => !appNames.includes(n)));
      expect(chains).toEqual(['C', 'P', 'X']);
      for (const m of [
        'avax_node_chain_last_accepted_height',
        'avax_node_chain_processing_blocks',
        'avax_node_connected_stake_ratio',
        'avax_node_disconnected_validators',
      ])
        expect(labelValues(text, m, 'v0', 'chain'), m).toEqual(chains);
      // The primary network's tag: its chains and the node-wide checks, no other.
      expect(sorted(Object.keys(primary.body.checks))).toEqual(sorted([...appNames, ...chains]));
      // A healthy network: every check passes.
      expect(all.status).toBe(200);
    });
  });

  it("node vitals are the node's own health report: disk, network, router, each chain's consensus", async () => {
    const node = v0();
    await agreeing(async () => {
      const [report, text] = await Promise.all([health(node), scrape(daemon())]);
      const msg = (check: string) => report.body.checks[check]?.message as Record<string, unknown>;
      const disk = msg('diskspace');
      expect(the(text, 'avax_node_disk_available_bytes', N)).toBe(disk['availableDiskBytes']);
      expect(the(text, 'avax_node_disk_available_ratio', N)).toBeCloseTo((disk['availableDiskPercentage'] as number) / 100, 9);
      const net = msg('network');
      expect(the(text, 'avax_node_network_connected_peers', N)).toBe(net['connectedPeers']);
      expect(the(text, 'avax_node_network_send_fail_ratio', N)).toBe(net['sendFailRate']);
      expect(the(text, 'avax_node_network_last_message_received_age_seconds', N)).toBeCloseTo(goSeconds(net['timeSinceLastMsgReceived']) ?? NaN, 9);
      expect(the(text, 'avax_node_network_last_message_sent_age_seconds', N)).toBeCloseTo(goSeconds(net['timeSinceLastMsgSent']) ?? NaN, 9);
      const router = msg('router');
      expect(the(text, 'avax_node_router_outstanding_requests', N)).toBe(router['outstandingRequests']);
      expect(the(text, 'avax_node_router_longest_running_request_seconds', N)).toBeCloseTo(goSeconds(router['longestRunningRequest']) ?? NaN, 9);
      expect(the(text, 'avax_node_bootstrapping_subnets', N)).toBe((report.body.checks['bootstrapped']?.message as unknown[]).length);
      for (const chain of ['P', 'X', 'C']) {
        const m = msg(chain) as { engine: { consensus: Record<string, unknown> }; networking: { percentConnected: number; disconnectedValidators: string[] } };
        const c = { ...N, chain };
        expect(the(text, 'avax_node_chain_last_accepted_height', c), chain).toBe(m.engine.consensus['lastAcceptedHeight']);
        expect(the(text, 'avax_node_chain_processing_blocks', c), chain).toBe(m.engine.consensus['processingBlocks']);
        expect(the(text, 'avax_node_chain_longest_processing_block_seconds', c), chain).toBeCloseTo(
          goSeconds(m.engine.consensus['longestProcessingBlock']) ?? NaN,
          9,
        );
        expect(the(text, 'avax_node_connected_stake_ratio', c), chain).toBe(m.networking.percentConnected);
        expect(the(text, 'avax_node_disconnected_validators', c), chain).toBe(m.networking.disconnectedValidators.length);
      }
    });
  });
});

// ------------------------------------------------------------------ the whole validator set

describe('every validator (--watch.all-validators), as the asking node sees it', { timeout: 60_000 }, () => {
  let t: TestDaemon | undefined;

  beforeAll(async () => {
    const watch = { all_validators: true };
    t = await startDaemon({
      nodes: [
        { name: 'v0', url: (network().validators[0] as LocalNode).uri, watch },
        { name: 'rpc', url: network().rpc.uri, watch },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await t?.daemon.stop();
  });

  it("each validator's weight and uptime as the node lists them; `connected` is the asking node's own peer set: all five on a healthy network", async () => {
    for (const [name, node] of [
      ['v0', network().validators[0] as LocalNode],
      ['rpc', network().rpc],
    ] as const) {
      await agreeing(async () => {
        const [set, peers, text] = await Promise.all([validatorsOf(node), peersOf(node), scrape(t?.daemon as Daemon)]);
        const peerIds = new Set((peers.peers ?? []).map((p) => p.nodeID));
        const active = seriesOf(text, 'avax_validator_active', { node: name });
        expect(sorted(active.filter((s) => s.value === 1).map((s) => s.labels['node_id'] as string)), name).toEqual(
          sorted(network().validators.map((v) => v.nodeId)),
        );
        // The RPC node's own id, watched by default, is in no set: it alone reads 0, and is not marked watched.
        expect(
          active.filter((s) => s.value === 0).map((s) => s.labels['node_id']),
          name,
        ).toEqual(node.role === 'rpc' ? [node.nodeId] : []);
        expect(
          seriesOf(text, 'avax_validator_watched', { node: name }).map((s) => s.labels['node_id']),
          name,
        ).toEqual(node.role === 'rpc' ? [] : [node.nodeId]);
        for (const v of set) {
          const labels = { node: name, node_id: v.nodeID, subnet: PRIMARY_NETWORK_ID };
          expect(the(text, 'avax_validator_weight', labels)).toBe(Number(v.weight));
          expect(the(text, 'avax_validator_uptime_ratio', labels)).toBeCloseTo(Number(v.uptime) / 100, 9);
          // platform.getCurrentValidators answers `connected` from the asking node's own connections (itself included).
          expect(v.connected, `${name} asked about ${v.nodeID}`).toBe(v.nodeID === node.nodeId || peerIds.has(v.nodeID));
          expect(the(text, 'avax_validator_connected', labels)).toBe(Number(v.connected));
        }
        expect(seriesOf(text, 'avax_validator_connected', { node: name }).filter((s) => s.value === 1)).toHaveLength(network().validators.length);
      });
    }
  });
});

// ------------------------------------------------------------------ 2. the nodes that validate nothing

describe('the RPC node and the partial-sync node', { timeout: 60_000 }, () => {
  let t: TestDaemon | undefined;
  const roles = () =>
    [
      ['rpc', network().rpc],
      ['partial-sync', network().partialSync],
    ] as const;

  beforeAll(async () => {
    t = await startDaemon({ nodes: roles().map(([name, node]) => ({ name, url: node.uri })) });
  }, 60_000);
  afterAll(async () => {
    await t?.daemon.stop();
  });

  it('are exported as non-validators: no uptime, no watched validator, their own id inactive', async () => {
    for (const [name, node] of roles()) {
      const N = { node: name };
      const uptime = await ask(node, '/ext/info', 'info.uptime');
      expect(uptime.error?.message, name).toMatch(/not a validator/);
      expect(await validatorsOf(node, { nodeIDs: [node.nodeId] })).toEqual([]);
      const text = await scrape(t?.daemon as Daemon);
      expect(the(text, 'avax_node_is_validator', N)).toBe(0);
      expect(seriesOf(text, 'avax_node_uptime_weighted_average_ratio', N)).toEqual([]);
      expect(seriesOf(text, 'avax_node_uptime_rewarding_stake_ratio', N)).toEqual([]);
      // Its own id, watched by default, is no operator's validator while it validates nothing: no marker, so no alert judges it.
      expect(seriesOf(text, 'avax_validator_watched', N)).toEqual([]);
      expect(seriesOf(text, 'avax_validator_active', N)).toEqual([{ labels: { ...N, node_id: node.nodeId, subnet: PRIMARY_NETWORK_ID }, value: 0 }]);
      expect(the(text, 'avax_validator_stake_share_ratio', { ...N, node_id: node.nodeId })).toBe(0);
      expect(seriesOf(text, 'avax_node_info', N)[0]?.labels['node_id']).toBe(node.nodeId);
    }
  });

  it('every source is up, and nothing about them is alert-worthy: healthy, ready, live, every check passing, bootstrapped, connected', async () => {
    for (const [name, node] of roles()) {
      const N = { node: name };
      await agreeing(async () => {
        const [report, app, primary, peers, text] = await Promise.all([
          health(node),
          health(node, '?tag=application'),
          health(node, `?tag=${PRIMARY_NETWORK_ID}`),
          peersOf(node),
          scrape(t?.daemon as Daemon),
        ]);
        // The chains it runs: its checks that are not node-wide (P, X and C; P alone in partial sync).
        const chains = Object.keys(report.body.checks).filter((c) => !Object.hasOwn(app.body.checks, c));
        const each = (v: number) => Object.fromEntries(chains.map((c) => [c, v]));
        expectPolledSourcesUp(text, name);
        expect(report.status, name).toBe(200);
        for (const m of ['avax_node_healthy', 'avax_node_ready', 'avax_node_live']) expect(the(text, m, N), `${name} ${m}`).toBe(1);
        expect(the(text, 'avax_node_primary_network_healthy', N)).toBe(Number(primary.body.healthy));
        expect(byLabel(text, 'avax_node_health_check_passing', name, 'check'), name).toEqual(
          Object.fromEntries(Object.keys(report.body.checks).map((c) => [c, 1])),
        );
        expect(seriesOf(text, 'avax_node_health_check_failing_since_timestamp_seconds', N)).toEqual([]);
        expect(byLabel(text, 'avax_node_bootstrapped', name, 'chain'), name).toEqual(each(1));
        expect(the(text, 'avax_node_bootstrapping_subnets', N)).toBe(0);
        expect(the(text, 'avax_node_peers', N)).toBe(Number(peers.numPeers));
        // It is connected to every validator, as a node that validates nothing dials them all.
        expect(sorted((peers.peers ?? []).map((p) => p.nodeID))).toEqual(expect.arrayContaining(sorted(network().validators.map((v) => v.nodeId))));
        expect(byLabel(text, 'avax_node_connected_stake_ratio', name, 'chain'), name).toEqual(each(1));
        expect(byLabel(text, 'avax_node_disconnected_validators', name, 'chain'), name).toEqual(each(0));
        expect(the(text, 'avax_node_future_upgrade_unknown', N)).toBe(0);
        expect(the(text, 'avax_node_version_behind_stake_majority', N)).toBe(0);
        // Past its short grace period the network check reports its ingress connections: none, and that is fine for a node that validates nothing.
        const validatorHealth = (report.body.checks['network']?.message as Record<string, Record<string, unknown>>)['primary network validator health'];
        expect(validatorHealth?.['primaryNetworkValidator']).toBe(false);
        expect(the(text, 'avax_node_network_ingress_connections', N)).toBe(validatorHealth?.['ingressConnectionCount']);
        if (node.role === 'rpc') {
          const heights = await heightsOf(node);
          for (const chain of ['P', 'X', 'C'] as const) expect(the(text, 'avax_chain_height', { ...N, chain }), chain).toBe(heights[chain]);
        }
      });
    }
  });

  it('the partial-sync node runs the P-Chain only: it is marked so, has no X or C series, and its X and C sources are up without asking the chains', async () => {
    const node = network().partialSync;
    const N = { node: 'partial-sync' };
    // The node itself: no X or C route, no X or C check, the `validation` check of that mode.
    expect((await fetch(`${node.uri}/ext/bc/X`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    expect((await fetch(`${node.uri}/ext/bc/C/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    const report = await health(node);
    expect(Object.keys(report.body.checks)).toContain('validation');
    expect(Object.keys(report.body.checks)).not.toContain('X');
    expect(Object.keys(report.body.checks)).not.toContain('C');
    expect((await call<{ isBootstrapped: boolean }>(node, '/ext/info', 'info.isBootstrapped', { chain: 'X' })).isBootstrapped).toBe(false);
    // Yet its vmVersions lists avm and evm: every VM registered, run or not (vms/manager.go Versions).
    const { vmVersions } = await call<{ vmVersions: Record<string, string> }>(node, '/ext/info', 'info.getNodeVersion');
    expect(Object.keys(vmVersions)).toEqual(expect.arrayContaining(['avm', 'evm', 'platform']));
    await agreeing(async () => {
      const text = await scrape(t?.daemon as Daemon);
      expect(the(text, 'avax_node_partial_sync', N)).toBe(1);
      expect(the(text, 'avax_node_partial_sync', { node: 'rpc' })).toBe(0);
      expect(seriesOf(text, 'avax_node_bootstrapped', N).map((s) => [s.labels['chain'], s.value])).toEqual([['P', 1]]);
      const p = await call<{ height: string }>(node, '/ext/bc/P', 'platform.getHeight');
      expect(seriesOf(text, 'avax_chain_height', N).map((s) => [s.labels['chain'], s.value])).toEqual([['P', Number(p.height)]]);
      expect(labelValues(text, 'avax_node_chain_last_accepted_height', 'partial-sync', 'chain')).toEqual(['P']);
      expect(the(text, 'avax_source_up', { ...N, source: 'x_chain' })).toBe(1);
      expect(the(text, 'avax_source_up', { ...N, source: 'c_chain' })).toBe(1);
      expect(the(text, 'avax_source_poll_failures_total', { ...N, source: 'x_chain', reason: 'http_status' })).toBe(0);
      expect(byLabel(text, 'avax_node_vm_version_info', 'partial-sync', 'vm')).toEqual(Object.fromEntries(Object.keys(vmVersions).map((vm) => [vm, 1])));
    });
  });
});

// ------------------------------------------------------------------ 3, 5, 6. the fleet

describe('the fleet: one daemon polling all seven nodes', { timeout: 60_000 }, () => {
  let t: TestDaemon | undefined;
  const named = () => [
    ...network().validators.map((n, i) => ({ name: `validator-${i + 1}`, node: n })),
    { name: 'rpc', node: network().rpc },
    { name: 'partial-sync', node: network().partialSync },
  ];

  beforeAll(async () => {
    t = await startDaemon({ nodes: named().map(({ name, node }) => ({ name, url: node.uri })) });
  }, 60_000);
  afterAll(async () => {
    await t?.daemon.stop();
  });

  it("every source is up for each node, and each node's id, role and network are its own", async () => {
    const text = await scrape(t?.daemon as Daemon);
    const networkName = (await call<{ networkName: string }>(network().rpc, '/ext/info', 'info.getNetworkName')).networkName;
    for (const { name, node } of named()) {
      expectPolledSourcesUp(text, name);
      expect(
        seriesOf(text, 'avax_node_info', { node: name }).map((s) => [s.labels['node_id'], s.labels['network']]),
        name,
      ).toEqual([[node.nodeId, networkName]]);
      expect(the(text, 'avax_node_is_validator', { node: name }), name).toBe(Number(node.role === 'validator'));
      expect(the(text, 'avax_node_partial_sync', { node: name }), name).toBe(Number(node.role === 'partial-sync'));
      expect(the(text, 'avax_node_healthy', { node: name }), name).toBe(1);
    }
    expect(the(text, 'avax_exporter_ready', {})).toBe(1);
  });

  it('promtool check metrics finds nothing in the real exposition', async () => {
    const text = await scrape(t?.daemon as Daemon);
    expect(parseExposition(text).size).toBeGreaterThan(500);
    // promtool reads the exposition on stdin; exit 0 with no output means no problems (lint findings exit non-zero).
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
    expect(r.error).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('the status page lists each real node, its id and its health', async () => {
    const res = await fetch(`${t?.daemon.url ?? ''}/`);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const page = await res.text();
    for (const { name, node } of named()) {
      // The fleet summary: the node at level OK, nothing needing attention.
      expect(page, name).toMatch(
        new RegExp(
          `<tr data-node="${name}"><td><a href="#node-${name}">${name}</a></td><td class="lvl ok" data-field="node-status"><b>OK</b></td><td></td></tr>`,
        ),
      );
      const section = page.split(`<h2 id="node-${name}">`)[1]?.split('<h2 id="node-')[0] ?? '';
      expect(section, name).toContain(`<small>${node.uri}</small>`);
      expect(section, name).toContain('<span class="badge lvl ok" data-field="healthy"><b>OK</b> healthy</span>');
      const report = await health(node);
      for (const check of Object.keys(report.body.checks))
        expect(section, `${name} ${check}`).toContain(
          `<tr data-check="${check}"><td><code>${check}</code></td><td class="lvl ok" data-field="check"><b>PASS</b></td>`,
        );
      const row = `<tr data-validator="${node.nodeId}" data-subnet="${PRIMARY_NETWORK_ID}"><td><code>${node.nodeId}</code></td>`;
      if (node.role === 'validator') {
        // Its own validation, by its id, as the node sees it: connected.
        expect(section, name).toContain(`${row}<td class="lvl ok" data-field="status">`);
        expect(section, name).toContain('<td class="lvl ok" data-field="connected"><b>OK</b> yes</td>');
      } else {
        // Its id, not judged: it validates nothing, which is not a validator that left the set.
        expect(section, name).toContain(`${row}<td class="lvl none" data-field="status"><b>N/A</b></td><td colspan="5">not a primary-network validator`);
      }
      expect(section, name).toContain('<td>info</td><td>up</td>');
    }
  });
});

// ------------------------------------------------------------------ 4. /probe

describe('/probe of a real validator', { timeout: 60_000 }, () => {
  let t: TestDaemon | undefined;

  beforeAll(async () => {
    // One configured validator (its series on /metrics) and another validator as a probe-only target.
    t = await startDaemon({
      nodes: [{ name: 'configured', url: (network().validators[1] as LocalNode).uri }],
      probe: { targets: [(network().validators[0] as LocalNode).uri] },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.daemon.stop();
  });

  it('answers with the same key series as /metrics has for a configured validator, the probed node its own', async () => {
    const node = network().validators[0] as LocalNode;
    const name = new URL(node.uri).host;
    const probe = async () => {
      const res = await fetch(`${t?.daemon.url ?? ''}/probe?${new URLSearchParams({ target: node.uri }).toString()}`);
      expect(res.status).toBe(200);
      return await res.text();
    };
    await agreeing(async () => {
      const [text, heights, peers] = await Promise.all([probe(), heightsOf(node), peersOf(node)]);
      const N = { node: name };
      expect(the(text, 'avax_probe_success', N)).toBe(1);
      expectPolledSourcesUp(text, name);
      expect(seriesOf(text, 'avax_node_info', N).map((s) => s.labels['node_id'])).toEqual([node.nodeId]);
      expect(the(text, 'avax_node_is_validator', N)).toBe(1);
      expect(the(text, 'avax_node_healthy', N)).toBe(1);
      expect(the(text, 'avax_validator_active', { ...N, node_id: node.nodeId, subnet: PRIMARY_NETWORK_ID })).toBe(1);
      expect(the(text, 'avax_validator_connected', { ...N, node_id: node.nodeId, subnet: PRIMARY_NETWORK_ID })).toBe(1);
      expect(the(text, 'avax_node_peers', N)).toBe(Number(peers.numPeers));
      for (const chain of ['P', 'X', 'C'] as const) expect(the(text, 'avax_chain_height', { ...N, chain }), chain).toBe(heights[chain]);
      for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line).toContain(`node="${name}"`);
      // The same metrics as the configured validator's part of /metrics, but the probe's own figures.
      const names = (exposition: string, node: string) =>
        new Set(
          [...parseExposition(exposition).keys()]
            .filter((k) => k.includes(`node="${node}"`))
            .map((k) => k.slice(0, k.indexOf('{')))
            .filter((m) => !m.startsWith('avax_probe_')),
        );
      expect(sorted(names(text, name))).toEqual(sorted(names(await scrape(t?.daemon as Daemon), 'configured')));
    });
  });
});

// ------------------------------------------------------------------ 7. Prometheus: /ext/metrics and the alert rules

interface ScrapeConfig {
  job_name: string;
  scrape_interval?: string;
  scrape_timeout?: string;
  static_configs: { targets: string[]; labels?: Record<string, string> }[];
  relabel_configs?: unknown[];
}

describe('a real Prometheus: the example /ext/metrics job and the shipped alert rules', { timeout: 90_000 }, () => {
  let t: TestDaemon | undefined;
  let prom: Prometheus | undefined;
  let dir = '';
  const target = () => new URL((network().validators[0] as LocalNode).uri).host;

  beforeAll(async () => {
    checkPrometheusInstalled();
    dir = mkdtempSync(join(tmpdir(), 'avax-exporter-real-prometheus-'));
    // No names: the exporter names each node by its URL's host:port, as the example's comment says to match.
    t = await startDaemon({ nodes: network().nodes.map((n) => ({ url: n.uri })) });
    const example = parseYaml(readFileSync(join(ROOT, 'examples', 'prometheus', 'prometheus.yml'), 'utf8')) as { scrape_configs: ScrapeConfig[] };
    const job = (name: string) => {
      const j = example.scrape_configs.find((c) => c.job_name === name);
      if (!j) throw new Error(`no job ${name} in examples/prometheus/prometheus.yml`);
      return j;
    };
    // Only the targets' addresses and the intervals change; the labels and the relabelling stay as the example has them.
    const jobs = [
      [job('avax-exporter'), new URL(t.daemon.url).host],
      [job('avalanchego'), target()],
    ] as const;
    for (const [j, address] of jobs) {
      j.scrape_interval = '1s';
      j.scrape_timeout = '1s';
      for (const sc of j.static_configs) sc.targets = [address];
    }
    // The shipped rules with every `for:` and `keep_firing_for:` shortened, so a condition that holds shows as an alert within seconds.
    const rules = readFileSync(join(ALERTS_DIR, 'avax-exporter.rules.yml'), 'utf8').replace(/^(\s*(?:for|keep_firing_for):\s*)\S+[ \t]*$/gm, '$12s');
    writeFileSync(join(dir, 'rules.yml'), rules);
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yml')],
      scrape_configs: jobs.map(([j]) => j),
    };
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2)); // JSON is YAML
    prom = await startPrometheus(dir, join(dir, 'prometheus.yml'));
  }, 90_000);
  afterAll(async () => {
    if (prom) await stopProcess(prom.child);
    await t?.daemon.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const query = async (expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
    const res = await fetch(`${prom?.url ?? ''}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
    return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
  };

  it("the example job scrapes a real node's /ext/metrics: up, `node` copied from the address, joined with the exporter's series", async () => {
    const up = await waitFor(
      'the avalanchego job up',
      async () => {
        const r = await query('up{job="avalanchego"}');
        return r[0]?.value[1] === '1' ? r : undefined;
      },
      WAIT_MS,
    );
    expect(up).toHaveLength(1);
    const peers = await waitFor(
      'AvalancheGo series',
      async () => ((await query('avalanche_network_peers')).length > 0 ? await query('avalanche_network_peers') : undefined),
      WAIT_MS,
    );
    expect(peers.map((s) => s.metric)).toEqual([
      { __name__: 'avalanche_network_peers', cluster: 'example', instance: target(), job: 'avalanchego', node: target() },
    ]);
    // The relabelled `node` is the exporter's name for the same node: one query joins them.
    const joined = await waitFor(
      'the two jobs joined on (cluster, node)',
      async () => {
        const r = await query('avalanche_network_peers - on (cluster, node) group_left () avax_node_peers');
        return r.length === 1 && r[0]?.value[1] === '0' ? r : undefined;
      },
      WAIT_MS,
    );
    expect(joined[0]?.metric).toMatchObject({ node: target(), job: 'avalanchego' });
  });

  it('the shipped alert rules raise no alert about a healthy real network', async () => {
    // Every node's series in Prometheus, and the rules evaluated for well over their shortened `for:`.
    await waitFor(
      'every node scraped',
      async () => ((await query('count(avax_node_info)'))[0]?.value[1] === String(network().nodes.length) ? true : undefined),
      WAIT_MS,
    );
    await new Promise((r) => setTimeout(r, 8_000));
    const res = await fetch(`${prom?.url ?? ''}/api/v1/rules?type=alert`);
    const groups = ((await res.json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } }).data.groups;
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThan(20);
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError ?? r.health}`)).toEqual([]);
    // The rules read the real series: the five validators are the watched ones (each by its own node), with the network's view of their uptime.
    const ids = sorted(network().validators.map((v) => v.nodeId));
    expect(sorted((await query('avax_validator:watched:max')).map((s) => s.metric['node_id'] as string))).toEqual(ids);
    expect(sorted((await query('avax_validator:uptime_ratio:info_uptime')).map((s) => s.metric['node_id'] as string))).toEqual(ids);
    const alerts = (
      (await (await fetch(`${prom?.url ?? ''}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } }
    ).data.alerts;
    expect(alerts.map((a) => `${a.labels['alertname']} ${a.state} ${JSON.stringify(a.labels)}`)).toEqual([]);
  });
});
