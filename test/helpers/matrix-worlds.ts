/**
 * Fake-node worlds for the detection matrix (test/detection-matrix.test.ts):
 * the fixture world re-based on today (the fixtures were captured months ago:
 * their validations would have ended), with chains that move, and the
 * deployments of the matrix built from it with the real-behaviour modes of
 * test/fakes/real-modes.ts.
 */
import type { FakeNodeState, FakeValidator } from '../fakes/fake-node.js';
import { rfc3339Nano, setChainNetworkingIn } from '../fakes/fake-node.js';
import { stakeOf } from '../../src/demo/p-chain-clock.js';
import { createPrng, defaultFakeState, FIXTURE_IDS, fixtureValidatorFor, idFrom, randomNodeId } from '../fakes/fake-data.js';
import { pluginVmMode } from '../fakes/real-modes.js';

/** The Subnet-EVM release the fixture L1's nodes run in the matrix. */
export const SUBNET_EVM_VERSION = 'v0.7.3';

export const DAY = 86_400;
/** The fixture node: the validator of most rows. */
export const SELF = FIXTURE_IDS.nodeId;
/** Node ids of watching nodes that are not validators themselves (and not among the fixture peers). */
const watcherIds = createPrng(1515);
export const WATCHER_A: string = randomNodeId(watcherIds);
export const WATCHER_B: string = randomNodeId(watcherIds);

/** Seconds of a validation: started 100 days ago, ends in 265 (a one-year stake). */
export const STARTED_DAYS_AGO = 100;
export const ENDS_IN_DAYS = 265;

const rfc3339Seconds = (sec: number) => new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The fixture world with every validation, delegation and timestamp re-based
 * on `nowSec`: validations started {@link STARTED_DAYS_AGO} days ago and end
 * in {@link ENDS_IN_DAYS}; peers and checks seen just now.
 */
export function liveWorld(nowSec: number): FakeNodeState {
  const s = defaultFakeState();
  for (const v of s.primaryValidators) rebase(v, nowSec);
  for (const sub of Object.values(s.subnets))
    for (const v of sub.validators)
      if ('endTime' in v) {
        v.startTime = nowSec - STARTED_DAYS_AGO * DAY;
        v.endTime = nowSec + ENDS_IN_DAYS * DAY;
      }
  const now = new Date(nowSec * 1000);
  for (const p of s.peers) {
    p.lastSent = now;
    p.lastReceived = now;
  }
  const ts = rfc3339Nano(now);
  for (const c of [...Object.values(s.health), ...Object.values(s.readiness)]) c.timestamp = ts;
  s.validatorFeeState.timestamp = now;
  // The fixture node runs the fixture L1's chain, so it has the Subnet-EVM plugin (info.getNodeVersion vmVersions).
  pluginVmMode(s, FIXTURE_IDS.subnetEvmVmId, SUBNET_EVM_VERSION);
  stakedNetwork(s, nowSec);
  return s;
}

/** Stake of each fixture peer in the live world, nAVAX: together they are most of the primary network's stake. */
export const PEER_STAKE = 20_000_000_000_000n;

/**
 * The live world's primary network: each fixture peer is a validator of
 * {@link PEER_STAKE} that sees the node up (its observedUptime 99 or 100, as
 * healthy peers report), so info.uptime is COMPUTED from them and the set
 * (`uptime: 'computed'`, network/network.go NodeUptime) and the P-Chain's
 * time moves (`pChainClock`: validations end, renew or are removed).
 * The fixture's disconnected validator stays the stake the node cannot reach.
 */
function stakedNetwork(s: FakeNodeState, nowSec: number): void {
  s.peers.forEach((p, i) => {
    p.observedUptime = i === 0 ? 100 : 99;
    if (!s.primaryValidators.some((v) => v.nodeId === p.nodeId)) {
      const v = fixtureValidatorFor(p.nodeId, PEER_STAKE);
      rebase(v, nowSec);
      s.primaryValidators.push(v);
    }
  });
  s.uptime = 'computed';
  s.pChainClock = true;
  recordConnectivity(s);
}

/**
 * Adds primary validators the node is not connected to (not among its peers,
 * listed as disconnected in its P-Chain health check) until they hold `share`
 * of the stake, and sets the check's percentConnected to what remains
 * (snow/networking/handler/health.go reports the connected share of the
 * chain's validator stake; the node counts itself connected). Their owners'
 * outage, a partition: from this node, their stake counts 0 % in info.uptime.
 */
export function unreachableStake(s: FakeNodeState, share: number): string[] {
  const stakes = s.primaryValidators.map((v) => ({ v, w: stakeOf(v) }));
  const connected = new Set([s.nodeId, ...s.peers.map((p) => p.nodeId)]);
  const total = stakes.reduce((t, x) => t + x.w, 0n);
  const away = stakes.filter((x) => !connected.has(x.v.nodeId)).reduce((t, x) => t + x.w, 0n);
  // (away + x) / (total + x) = share
  const extra = BigInt(Math.ceil((share * Number(total) - Number(away)) / (1 - share)));
  const rng = createPrng(1212);
  const ids: string[] = [];
  const parts = 4n;
  for (let i = 0n; i < parts && extra > 0n; i++) {
    const v = fixtureValidatorFor(randomNodeId(rng), extra / parts);
    v.startTime = s.primaryValidators[0]?.startTime ?? v.startTime;
    v.endTime = s.primaryValidators[0]?.endTime ?? v.endTime;
    v.connected = false;
    v.uptime = 0;
    s.primaryValidators.push(v);
    ids.push(v.nodeId);
  }
  recordConnectivity(s);
  return ids;
}

/**
 * The P-Chain health check's networking part as the node computes it from its
 * peers (snow/networking/handler/health.go): the validators it is not
 * connected to, and the connected share of the stake (itself included).
 */
export function recordConnectivity(s: FakeNodeState): void {
  const connected = new Set([s.nodeId, ...s.peers.map((p) => p.nodeId)]);
  const all = s.primaryValidators.reduce((t, v) => t + stakeOf(v), 0n);
  const reachable = s.primaryValidators.filter((v) => connected.has(v.nodeId)).reduce((t, v) => t + stakeOf(v), 0n);
  const down = s.primaryValidators.filter((v) => !connected.has(v.nodeId)).map((v) => v.nodeId);
  setChainNetworkingIn(s, 'P', down, all > 0n ? Number(reachable) / Number(all) : 1);
}

function rebase(v: FakeValidator, nowSec: number): void {
  v.startTime = nowSec - STARTED_DAYS_AGO * DAY;
  v.endTime = nowSec + ENDS_IN_DAYS * DAY;
  for (const d of v.delegators) {
    d.startTime = nowSec - 20 * DAY;
    d.endTime = nowSec + 100 * DAY;
  }
}

/** The validator `nodeId` of a world (throws when it is not there). */
export function validatorOf(s: FakeNodeState, nodeId: string): FakeValidator {
  const v = s.primaryValidators.find((x) => x.nodeId === nodeId);
  if (!v) throw new Error(`no primary validator ${nodeId} in the world`);
  return v;
}

/** A world whose node is not a primary-network validator (an RPC node, or a watcher), with another node id. */
export function nonValidatorWorld(nowSec: number, nodeId: string = SELF): FakeNodeState {
  const s = liveWorld(nowSec);
  s.nodeId = nodeId;
  if (nodeId === SELF) s.primaryValidators = s.primaryValidators.filter((v) => v.nodeId !== SELF);
  // info.uptime answers "node is not a validator".
  s.uptime = null;
  return s;
}

/** Advances the last accepted height of `chains` by one block (the P- and C-Chains of a live mainnet node move every second or two). */
export function advanceChains(s: FakeNodeState, chains: readonly string[]): void {
  for (const c of chains) {
    const h = s.heights[c];
    if (h !== undefined) s.heights[c] = h + 1n;
    const msg = s.health[c]?.message as { engine?: { consensus?: { lastAcceptedHeight?: number } } } | undefined;
    if (msg?.engine?.consensus) msg.engine.consensus.lastAcceptedHeight = Number(s.heights[c]);
  }
}

/** Strangers for --watch.all-validators: validators that are not ours, each unhealthy in its own way. */
export function unhealthyStrangers(nowSec: number): FakeValidator[] {
  const rng = createPrng(15);
  const make = (): FakeValidator => {
    const v = fixtureValidatorFor(randomNodeId(rng), 2_000_000_000_000n);
    rebase(v, nowSec);
    return v;
  };
  const lowUptime = make();
  lowUptime.uptime = 55;
  const offline = make();
  offline.uptime = 0;
  offline.connected = false;
  const ending = make();
  ending.endTime = nowSec + 2 * DAY;
  const spent = make();
  // Down for most of its validation: its downtime budget is gone.
  spent.uptime = 20;
  return [lowUptime, offline, ending, spent];
}

/** RFC3339 (whole seconds) of a Unix time, as info.upgrades prints it. */
export function upgradeTime(sec: number): string {
  return rfc3339Seconds(sec);
}

/** An L1 validator of the fixture L1 that is not ours, with `balanceNavax` left for its fee; returns its validation id. */
export function addL1Stranger(s: FakeNodeState, nowSec: number, balanceNavax: bigint): { nodeId: string; validationId: string } {
  const nodeId = randomNodeId(createPrng(2727));
  const validationId = idFrom(`matrix-l1-stranger/${nodeId}`);
  addL1Validator(s, nowSec, nodeId, validationId, balanceNavax);
  return { nodeId, validationId };
}

/**
 * The fixture L1 as a small L1 of four active validators of equal weight: the
 * node's own and `count` (3) other operators' ones, each in the P-Chain's set
 * and in the chain's validators API, connected. Returns their node ids.
 */
export function smallL1(s: FakeNodeState, nowSec: number, count = 3): string[] {
  const rng = createPrng(2222);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const nodeId = randomNodeId(rng);
    addL1Validator(s, nowSec, nodeId, idFrom(`matrix-small-l1/${nodeId}`), 5_000_000_000n);
    ids.push(nodeId);
  }
  return ids;
}

/** One active, connected validator of the fixture L1 (weight 20, 30 days in), in the P-Chain's set and the chain's validators API. */
function addL1Validator(s: FakeNodeState, nowSec: number, nodeId: string, validationId: string, balanceNavax: bigint): void {
  const owner = { locktime: 0, threshold: 1, addresses: ['P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'] };
  s.subnets[FIXTURE_IDS.l1SubnetId]?.validators.push({
    validationId,
    nodeId,
    weight: 20n,
    startTime: nowSec - 30 * DAY,
    publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
    minNonce: 0n,
    balance: balanceNavax,
  });
  s.l1Uptimes[FIXTURE_IDS.l1ChainId]?.push({
    validationId,
    nodeId,
    weight: 20,
    startTimestamp: nowSec - 30 * DAY,
    isActive: true,
    isL1Validator: true,
    isConnected: true,
    uptimePercentage: 99.1,
    uptimeSeconds: 30 * DAY,
  });
}
