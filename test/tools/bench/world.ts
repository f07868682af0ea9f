/**
 * A mainnet-scale world for the fake node: 1,800 primary validators with
 * delegators, an L1 with 30 validators, 2,000 peers and the full health report
 * of the fixture node, kept consistent (disconnected validators are not peers
 * and are listed by the chain health checks).
 */
import type { FakeL1Uptime, FakeL1Validator, FakeNodeState, FakeOwner } from '../../fakes/fake-node.js';
import { FIXTURE_IDS, createPrng, defaultFakeState, generatePeers, generateValidators, randomId, randomNodeId, type Prng } from '../../fakes/fake-data.js';

/** Sizes of the world. */
export interface WorldOptions {
  validators: number;
  delegatorsPerValidator: number;
  l1Validators: number;
  peers: number;
  seed: number;
}

/** Mainnet today, rounded: about 1,800 primary validators, one delegation each on average, 2,000 peers. */
export const MAINNET: WorldOptions = { validators: 1800, delegatorsPerValidator: 1, l1Validators: 30, peers: 2000, seed: 1 };

/** The L1 the world's node validates (and the daemon watches in the mainnet scenarios). */
export const L1_SUBNET_ID = FIXTURE_IDS.l1SubnetId;

function hex(rng: Prng, bytes: number): string {
  let s = '0x';
  for (let i = 0; i < bytes; i++)
    s += Math.floor(rng() * 256)
      .toString(16)
      .padStart(2, '0');
  return s;
}

const owner = (address: string): FakeOwner => ({ locktime: 0, threshold: 1, addresses: [address] });

/** The world as a state override for FakeNode.start (shallow: arrays may be shared between nodes). */
export function mainnetWorld(opts: WorldOptions = MAINNET): Partial<FakeNodeState> {
  const base = defaultFakeState();
  const rng = createPrng(opts.seed * 7919);
  const validators = generateValidators(opts.validators, { seed: opts.seed, delegatorsPerValidator: opts.delegatorsPerValidator });
  const self = validators[0];
  if (!self) throw new Error('the world needs at least one validator');
  self.connected = true;
  self.uptime = 99.87;

  // L1: this node first, then others (L1 validators are mostly not primary validators); about 10 % inactive.
  const l1: FakeL1Validator[] = [];
  const uptimes: FakeL1Uptime[] = [];
  for (let i = 0; i < opts.l1Validators; i++) {
    const nodeId = i === 0 ? self.nodeId : randomNodeId(rng);
    const active = i === 0 || rng() >= 0.1;
    const v: FakeL1Validator = {
      validationId: randomId(rng),
      nodeId,
      weight: BigInt(20 + Math.floor(rng() * 1000)),
      startTime: 1734034648 + Math.floor(rng() * 20_000_000),
      publicKey: hex(rng, 48),
      remainingBalanceOwner: owner('P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'),
      deactivationOwner: owner('P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'),
      minNonce: BigInt(Math.floor(rng() * 4)),
      balance: active ? BigInt(1_000_000_000 + Math.floor(rng() * 50_000_000_000)) : 0n,
    };
    l1.push(v);
    uptimes.push({
      validationId: v.validationId,
      nodeId,
      weight: Number(v.weight),
      startTimestamp: v.startTime,
      isActive: active,
      isL1Validator: true,
      isConnected: active,
      uptimePercentage: active ? 99 + Math.round(rng() * 100) / 100 : 0,
      uptimeSeconds: Math.floor(rng() * 20_000_000),
    });
  }
  const l1Subnet = base.subnets[L1_SUBNET_ID];
  if (!l1Subnet) throw new Error('the fixture world has no L1');

  // Peers: the connected validators first (a node is connected to every validator), then other nodes.
  const connectedIds = validators
    .slice(1)
    .filter((v) => v.connected)
    .map((v) => v.nodeId);
  const peers = generatePeers(opts.peers, opts.seed, connectedIds);

  // Health: the fixture's full report, made consistent with this validator set.
  const disconnected = validators
    .filter((v) => !v.connected)
    .map((v) => v.nodeId)
    .sort();
  let total = 0n;
  let connected = 0n;
  for (const v of validators) {
    total += v.weight;
    if (v.connected) connected += v.weight;
  }
  const percentConnected = Number((connected * 10_000_000_000n) / total) / 10_000_000_000;
  for (const name of ['P', 'X', 'C']) {
    const msg = base.health[name]?.message as { networking?: Record<string, unknown> } | undefined;
    if (msg?.networking) {
      msg.networking['disconnectedValidators'] = disconnected;
      msg.networking['percentConnected'] = percentConnected;
    }
  }
  const network = base.health['network']?.message as Record<string, unknown> | undefined;
  if (network) network['connectedPeers'] = peers.length;

  return {
    nodeId: self.nodeId,
    primaryValidators: validators,
    subnets: { ...base.subnets, [L1_SUBNET_ID]: { ...l1Subnet, validators: l1 } },
    l1Uptimes: { [FIXTURE_IDS.l1ChainId]: uptimes },
    peers,
    health: base.health,
  };
}
