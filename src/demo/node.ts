/**
 * A lively fake node for the daemon's `--demo` mode: the fixture world plus a few dozen generated
 * validators and peers, advanced by a timer so that dashboards show moving heights, churning
 * peers, drifting uptimes, a check that flaps and validators that drop out and come back.
 *
 * Every random choice comes from a seeded PRNG and depends only on the number of ticks, so a
 * given seed always produces the same evolution (wall-clock time only feeds timestamps).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { defaultFakeState, FIXTURE_IDS } from './fixture-world.js';
import { generatePeers, generateValidators } from './generate.js';
import { cb58Encode, createPrng, idFrom, randomId, type Prng } from './ids.js';
import { autoRenewing, diskSpaceMode, formatGoDuration, partialSyncMode, pluginVmMode } from './modes.js';
import { NodeServer } from './node-server.js';
import type { FakeNodeState, FakePeer, FakeValidator } from './node-state.js';
import { rfc3339Nano } from './wire.js';

/** Options of {@link startDemoNode}. */
export interface DemoNodeOptions {
  /** Port to bind on 127.0.0.1 (or `host`); default 0 (any free port). */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Real milliseconds between ticks; default 2000. */
  tickMs?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /**
   * Simulated chain seconds per tick; default `tickMs / 1000` (real time). Tests raise it to see
   * blocks on every short tick.
   */
  simSecondsPerTick?: number;
  /** Generated primary validators on top of the two fixture ones; default 48. */
  validators?: number;
  /** Target number of peers; default 64. */
  peers?: number;
  /** Make it a partial-sync L1 validator (see {@link makePartialSyncL1Validator}); default a full primary-network validator. */
  partialSync?: boolean;
}

/** A running demo node. */
export interface DemoNode {
  /** The underlying node server (its `state` is what the simulation mutates). */
  readonly node: NodeServer;
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  /** Ticks applied so far (timer or {@link DemoNode.tick}). */
  readonly ticks: number;
  /** Advances the simulation by one tick immediately (the timer keeps running). */
  tick(): void;
  /** Stops the timer and the node. */
  stop(): Promise<void>;
}

/** The demo node's database volume: 1.33 TB, of which the fixture's 812 GB (61 %) is available at the start. */
const DEMO_DISK_BYTES = 1_331_000_000_000;

/** The check that fails now and then. */
const FLAPPING_CHECK = 'network';
const FLAP_ERROR = 'network layer is unhealthy reason: send fail rate is 0.391 > 0.250';

/** Block rates, blocks per simulated second: P ~1/2 s, X much slower, C ~1/2 s, L1 ~1/3 s. */
const RATES: Record<string, number> = { P: 0.5, X: 0.08, C: 0.5 };
const L1_RATE = 1 / 3;

/** A Poisson sample: the number of blocks in an interval with `lambda` expected blocks. */
function poisson(rng: Prng, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 30) {
    // Normal approximation; Knuth's loop gets slow and imprecise for large lambda.
    const g = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * g));
  }
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rng();
  } while (p > limit);
  return k - 1;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function pick<T>(rng: Prng, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(rng() * items.length)];
}

/** A Go duration string in milliseconds, like `12.04ms`. */
function goMs(ms: number): string {
  return `${Number(ms.toFixed(3))}ms`;
}

/**
 * Builds the demo's initial state: the fixture world with validator times re-based on `nowSec`,
 * `validators` generated validators (one delegation each) and about `peers` peers, most of them
 * the generated validators.
 */
export function createDemoState(seed: number, nowSec: number, validators = 48, peers = 64): FakeNodeState {
  const state = defaultFakeState();
  const now = new Date(nowSec * 1000);
  // Re-base the fixture validators so "time until end of staking" looks sensible today.
  const offsets: Array<[number, number]> = [
    [-40, 325],
    [-100, 265],
  ];
  state.primaryValidators.forEach((v, i) => {
    const [start, end] = offsets[i] ?? [-30, 300];
    v.startTime = nowSec + start * 86400;
    v.endTime = nowSec + end * 86400;
    for (const d of v.delegators) {
      d.startTime = nowSec - 20 * 86400;
      d.endTime = nowSec + 100 * 86400;
    }
  });
  // The second fixture validator renews itself (Helicon's auto-renewed validations): its end
  // time is the end of its current 14-day cycle, and it goes on.
  const renewing = state.primaryValidators.find((v) => v.nodeId !== state.nodeId);
  if (renewing) {
    renewing.endTime = nowSec + 9 * 86400;
    autoRenewing(state, renewing.nodeId, 14 * 86400, 500_000);
  }
  const generated = generateValidators(validators, { seed, now: nowSec, delegatorsPerValidator: 1 });
  state.primaryValidators.push(...generated);
  const peerIds = generated.filter((v) => v.connected).map((v) => v.nodeId);
  state.peers.push(...generatePeers(Math.max(0, peers - state.peers.length), seed, peerIds));
  for (const p of state.peers) {
    p.lastSent = now;
    p.lastReceived = now;
  }
  const ts = rfc3339Nano(now);
  for (const c of Object.values(state.health)) c.timestamp = ts;
  for (const c of Object.values(state.readiness)) c.timestamp = ts;
  state.validatorFeeState.timestamp = now;
  // It runs the fixture L1's chain, so the Subnet-EVM plugin is installed (info.getNodeVersion vmVersions).
  pluginVmMode(state, FIXTURE_IDS.subnetEvmVmId, DEMO_SUBNET_EVM_VERSION);
  return state;
}

/** The Subnet-EVM release every demo node of the fixture L1 runs (one version: the healthy setup). */
const DEMO_SUBNET_EVM_VERSION = 'v0.7.3';

/**
 * Turns a demo state into the usual setup of an L1 validator: a node of its
 * own (another node id) started with --partial-sync-primary-network (P-Chain
 * only: see partialSyncMode), validating the fixture L1 with a fee balance.
 */
export function makePartialSyncL1Validator(state: FakeNodeState, nowSec: number): FakeNodeState {
  state.nodeId = `NodeID-${cb58Encode(createHash('sha256').update('demo-l1-validator').digest().subarray(0, 20))}`;
  partialSyncMode(state);
  // A machine of its own: its own public address (info.getNodeIP).
  state.nodeIp = '203.0.113.11:9651';
  pluginVmMode(state, FIXTURE_IDS.subnetEvmVmId, DEMO_SUBNET_EVM_VERSION);
  const validationId = idFrom('demo-l1-validation');
  const l1 = state.subnets[FIXTURE_IDS.l1SubnetId];
  l1?.validators.push({
    validationId,
    nodeId: state.nodeId,
    weight: 20n,
    startTime: nowSec - 30 * 86400,
    publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
    remainingBalanceOwner: { locktime: 0, threshold: 1, addresses: ['P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'] },
    deactivationOwner: { locktime: 0, threshold: 1, addresses: ['P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'] },
    minNonce: 0n,
    balance: 6_000_000_000n,
  });
  state.l1Uptimes[FIXTURE_IDS.l1ChainId]?.push({
    validationId,
    nodeId: state.nodeId,
    weight: 20,
    startTimestamp: nowSec - 30 * 86400,
    isActive: true,
    isL1Validator: true,
    isConnected: true,
    uptimePercentage: 99.2,
    uptimeSeconds: 30 * 86400,
  });
  return state;
}

/** The evolving parts of the simulation that are not in the node state. */
class DemoSimulation {
  ticks = 0;
  private readonly rng: Prng;
  private readonly reserve: FakePeer[] = [];
  private flapRemaining = 0;
  private readonly disconnectedFor = new Map<string, number>();
  private readonly fixedPeers: Set<string>;

  constructor(
    private readonly node: NodeServer,
    seed: number,
    private readonly dt: number,
    private readonly targetPeers: number,
    /** Node IDs the simulation never flips (the node itself, the fixture's disconnected validator). */
    private readonly pinned: Set<string>,
  ) {
    this.rng = createPrng(seed ^ 0xdeadbeef);
    this.fixedPeers = new Set(node.state.peers.slice(0, 3).map((p) => p.nodeId));
    // Nodes not connected yet, so churn brings in new faces rather than only returning ones.
    const known = new Set(node.state.peers.map((p) => p.nodeId));
    this.reserve.push(...generatePeers(Math.ceil(targetPeers / 4), seed + 1).filter((p) => !known.has(p.nodeId)));
  }

  tick(): void {
    this.ticks++;
    const s = this.node.state;
    const rng = this.rng;
    const now = new Date();
    const nowSec = Math.floor(now.getTime() / 1000);

    // Heights.
    for (const key of Object.keys(s.heights)) {
      const rate = RATES[key] ?? L1_RATE;
      const h = s.heights[key];
      if (h !== undefined) s.heights[key] = h + BigInt(poisson(rng, rate * this.dt));
    }

    this.churnPeers(s, now);
    this.flipValidators(s);
    this.driftUptimes(s);
    this.flapCheck(s);
    this.updateHealthMessages(s, now);
    this.updateVitals(s);
    this.updateFees(s, nowSec);
  }

  /** Bytes left on the demo node's database volume: the fixture's 812 GB (61 %) of 1.33 TB, shrinking as the chains grow. */
  private diskAvailable = 812_345_671_680;

  /**
   * The node's vitals moving: the database grows (about 5 GB a day, with compaction's ups and downs) and each
   * chain's consensus has a block or two in flight now and then, decided within a second or two.
   */
  private updateVitals(s: FakeNodeState): void {
    const rng = this.rng;
    if (s.health['diskspace']) {
      this.diskAvailable -= Math.round((58_000 + (rng() - 0.5) * 200_000) * this.dt);
      diskSpaceMode(s, { totalBytes: DEMO_DISK_BYTES, availableBytes: this.diskAvailable });
    }
    for (const check of Object.values(s.health)) {
      const consensus = (check.message as { engine?: { consensus?: Record<string, unknown> } } | undefined)?.engine?.consensus;
      if (!consensus || !('processingBlocks' in consensus)) continue;
      const blocks = rng() < 0.3 ? 1 + Math.floor(rng() * 2) : 0;
      consensus['processingBlocks'] = blocks;
      consensus['longestProcessingBlock'] = formatGoDuration(blocks > 0 ? rng() * 2 : 0);
    }
  }

  private churnPeers(s: FakeNodeState, now: Date): void {
    const rng = this.rng;
    const dropP = 0.25;
    const addP = 0.25 + (s.peers.length < this.targetPeers ? 0.2 : 0) - (s.peers.length > this.targetPeers ? 0.2 : 0);
    if (rng() < dropP) {
      const candidates = s.peers.filter((p) => !this.fixedPeers.has(p.nodeId) && !this.disconnectedFor.has(p.nodeId));
      const victim = pick(rng, candidates);
      if (victim) {
        s.peers.splice(s.peers.indexOf(victim), 1);
        this.reserve.push(victim);
      }
    }
    if (rng() < addP && this.reserve.length > 0) {
      const back = this.reserve.splice(Math.floor(rng() * this.reserve.length), 1)[0];
      if (back) {
        // Nodes that come back have often upgraded in the meantime.
        if (rng() < 0.4) back.version = 'avalanchego/1.14.2';
        s.peers.push(back);
      }
    }
    for (const p of s.peers) {
      p.lastSent = new Date(now.getTime() - Math.floor(rng() * 2) * 1000);
      p.lastReceived = new Date(now.getTime() - Math.floor(rng() * 4) * 1000);
    }
    const p = pick(rng, s.peers);
    if (p && p.observedUptime > 0) p.observedUptime = clamp(p.observedUptime + Math.round((rng() - 0.5) * 2), 80, 100);
  }

  /** Occasionally disconnects a validator for a few ticks; its peer goes away meanwhile. */
  private flipValidators(s: FakeNodeState): void {
    const rng = this.rng;
    for (const [nodeId, left] of [...this.disconnectedFor]) {
      const v = s.primaryValidators.find((x) => x.nodeId === nodeId);
      if (left <= 1) {
        this.disconnectedFor.delete(nodeId);
        if (v) v.connected = true;
        const i = this.reserve.findIndex((p) => p.nodeId === nodeId);
        const back = i === -1 ? undefined : this.reserve.splice(i, 1)[0];
        if (back) s.peers.push(back);
      } else {
        this.disconnectedFor.set(nodeId, left - 1);
        if (v) v.uptime = clamp(v.uptime - 0.02 * this.dt, 0, 100);
      }
    }
    if (rng() < 0.05) {
      const candidates = s.primaryValidators.filter((v) => v.connected && !this.pinned.has(v.nodeId) && !this.disconnectedFor.has(v.nodeId));
      const v = pick(rng, candidates);
      if (v) {
        v.connected = false;
        this.disconnectedFor.set(v.nodeId, 5 + Math.floor(rng() * 11));
        const i = s.peers.findIndex((p) => p.nodeId === v.nodeId);
        const gone = i === -1 ? undefined : s.peers.splice(i, 1)[0];
        if (gone) this.reserve.push(gone);
      }
    }
  }

  private driftUptimes(s: FakeNodeState): void {
    const rng = this.rng;
    // The demo's node answers a recorded, drifting info.uptime (its peers are a sample, not the network).
    if (s.uptime && s.uptime !== 'computed') {
      const w = clamp(s.uptime.weightedAveragePercentage + (rng() - 0.5) * 0.04, 98.5, 99.99);
      s.uptime.weightedAveragePercentage = w;
      // Stake that considers us above 80 % uptime: all of it unless we had a bad spell.
      s.uptime.rewardingStakePercentage = w > 99 ? 100 : clamp(100 - (99 - w) * 5, 90, 100);
    }
    const self: FakeValidator | undefined = s.primaryValidators.find((v) => v.nodeId === s.nodeId);
    if (self) self.uptime = clamp(self.uptime + (rng() - 0.5) * 0.02, 99, 100);
    // Reconnected validators recover slowly.
    const v = pick(rng, s.primaryValidators);
    if (v && v.connected && !this.pinned.has(v.nodeId)) v.uptime = clamp(v.uptime + 0.01, 0, 100);
    for (const list of Object.values(s.l1Uptimes)) {
      for (const e of list) {
        if (!e.isConnected) continue;
        e.uptimeSeconds += Math.round(this.dt);
        e.uptimePercentage = Number(clamp(e.uptimePercentage + (rng() - 0.5) * 0.01, 95, 100).toFixed(2));
      }
    }
  }

  private flapCheck(s: FakeNodeState): void {
    if (this.flapRemaining > 0) {
      this.flapRemaining--;
      if (this.flapRemaining === 0) this.node.passCheck(FLAPPING_CHECK);
      else this.node.failCheck(FLAPPING_CHECK, FLAP_ERROR);
      return;
    }
    if (s.health[FLAPPING_CHECK] && this.rng() < 0.04) {
      this.flapRemaining = 3 + Math.floor(this.rng() * 4);
      this.node.failCheck(FLAPPING_CHECK, FLAP_ERROR);
    }
  }

  /** Keeps health messages consistent with heights, peers and disconnected validators. */
  private updateHealthMessages(s: FakeNodeState, now: Date): void {
    const rng = this.rng;
    const ts = rfc3339Nano(now);
    let total = 0n;
    let connected = 0n;
    const disconnected: string[] = [];
    for (const v of s.primaryValidators) {
      total += v.weight;
      if (v.connected) connected += v.weight;
      else disconnected.push(v.nodeId);
    }
    disconnected.sort();
    const percentConnected = total === 0n ? 1 : Number((connected * 10_000_000_000n) / total) / 10_000_000_000;
    for (const [name, check] of Object.entries(s.health)) {
      check.timestamp = ts;
      check.duration = Math.max(1000, Math.round(check.duration * (0.8 + rng() * 0.4)));
      const msg = check.message as Record<string, unknown> | undefined;
      if (!msg || typeof msg !== 'object') continue;
      const chainKey = name === 'P' || name === 'X' || name === 'C' ? name : Object.hasOwn(s.heights, name) ? name : undefined;
      const consensus = (msg['engine'] as Record<string, unknown> | undefined)?.['consensus'] as Record<string, unknown> | undefined;
      if (chainKey !== undefined && consensus && 'lastAcceptedHeight' in consensus) {
        const h = s.heights[chainKey];
        if (h !== undefined && Number(h) !== consensus['lastAcceptedHeight']) {
          consensus['lastAcceptedHeight'] = Number(h);
          consensus['lastAcceptedID'] = randomId(rng);
        }
      }
      const networking = msg['networking'] as Record<string, unknown> | undefined;
      if (networking && (name === 'P' || name === 'X' || name === 'C')) {
        networking['disconnectedValidators'] = [...disconnected];
        networking['percentConnected'] = percentConnected;
      }
      if (name === 'network') {
        msg['connectedPeers'] = s.peers.length;
        msg['sendFailRate'] = check.error === undefined ? Number((rng() * 0.001).toFixed(7)) : 0.391;
        msg['timeSinceLastMsgReceived'] = goMs(rng() * 30);
        msg['timeSinceLastMsgSent'] = goMs(rng() * 10);
      }
      if (name === 'router') {
        msg['outstandingRequests'] = Math.floor(rng() * 40);
        msg['longestRunningRequest'] = goMs(rng() * 500);
      }
    }
    for (const c of Object.values(s.readiness)) c.timestamp = ts;
  }

  /** P-Chain time, the L1 fee price and the L1 balances it drains. */
  private updateFees(s: FakeNodeState, nowSec: number): void {
    const rng = this.rng;
    const f = s.validatorFeeState;
    f.timestamp = new Date(nowSec * 1000);
    f.excess = Math.max(0, f.excess + Math.round((rng() - 0.5) * 400));
    f.price = Math.max(512, Math.round(512 * Math.exp(Math.max(0, f.excess - 30_000) / 100_000)));
    const burn = BigInt(Math.round(f.price * this.dt));
    for (const sub of Object.values(s.subnets)) {
      for (const v of sub.validators) {
        if (!('validationId' in v) || v.balance === 0n) continue;
        v.balance = v.balance > burn ? v.balance - burn : 0n;
        // Operators top up before the balance runs out (IncreaseL1ValidatorBalanceTx).
        if (v.balance < 2_000_000_000n && rng() < 0.2) v.balance += 10_000_000_000n;
      }
    }
  }
}

/**
 * Starts a demo node: a {@link NodeServer} seeded with {@link createDemoState} and advanced every
 * `tickMs` by an unref'd timer (it never keeps the process alive).
 */
export async function startDemoNode(opts: DemoNodeOptions = {}): Promise<DemoNode> {
  const tickMs = opts.tickMs ?? 2000;
  const seed = opts.seed ?? 1;
  const nowSec = Math.floor(Date.now() / 1000);
  const state = createDemoState(seed, nowSec, opts.validators ?? 48, opts.peers ?? 64);
  if (opts.partialSync) makePartialSyncL1Validator(state, nowSec);
  const node = await NodeServer.start({ ...(opts.host !== undefined ? { host: opts.host } : {}), port: opts.port ?? 0, state });
  const pinned = new Set([state.nodeId, ...state.primaryValidators.filter((v) => !v.connected).map((v) => v.nodeId)]);
  const sim = new DemoSimulation(node, seed, opts.simSecondsPerTick ?? tickMs / 1000, opts.peers ?? 64, pinned);
  const timer = setInterval(() => sim.tick(), tickMs);
  timer.unref();
  return {
    node,
    url: node.url,
    get ticks() {
      return sim.ticks;
    },
    tick: () => sim.tick(),
    async stop() {
      clearInterval(timer);
      await node.stop();
    },
  };
}
