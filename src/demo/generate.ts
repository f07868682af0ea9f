/**
 * Generators for mainnet-scale validator and peer sets: deterministic for a seed, with valid,
 * unique CB58 IDs and realistic stakes, uptimes, versions and addresses.
 *
 * @packageDocumentation
 */
import type { FakeDelegator, FakeOwner, FakePeer, FakeValidator } from './node-state.js';
import { FIXTURE_IDS, FIXTURE_NOW, GRANITE_TIME } from './fixture-world.js';
import { createPrng, randInt, randomAddress, randomHex, randomId, randomNodeId } from './ids.js';

const NANO_AVAX_PER_AVAX = 1_000_000_000n;

/** Options of {@link generateValidators}. */
export interface GenerateValidatorsOptions {
  /** PRNG seed; the same seed gives the same validators. Default 1. */
  seed?: number;
  /** Delegations per validator. Default 0 (mainnet validators average about one). */
  delegatorsPerValidator?: number;
  /** Unix seconds treated as "now" for start/end times. Default {@link FIXTURE_NOW}. */
  now?: number;
}

/**
 * Deterministic primary-network validators with valid, unique CB58 node and tx IDs, realistic
 * stakes (2 000 AVAX up to a few million), fees, uptimes (about 3 % disconnected) and BLS keys
 * (about 95 %).
 */
export function generateValidators(count: number, opts: GenerateValidatorsOptions = {}): FakeValidator[] {
  const rng = createPrng(opts.seed ?? 1);
  const now = opts.now ?? FIXTURE_NOW;
  const perValidator = opts.delegatorsPerValidator ?? 0;
  const seen = new Set<string>();
  const out: FakeValidator[] = [];
  while (out.length < count) {
    const nodeId = randomNodeId(rng);
    if (seen.has(nodeId)) continue;
    seen.add(nodeId);
    const startTime = now - randInt(rng, 3600, 300 * 86400);
    const endTime = Math.max(startTime + 14 * 86400, now + randInt(rng, 3600, 365 * 86400));
    // Heavy-tailed stake: most validators near the 2 000 AVAX minimum, a few very large.
    const avax = 2000 + Math.floor(rng() ** 6 * 3_000_000);
    const weight = BigInt(avax) * NANO_AVAX_PER_AVAX;
    const owner: FakeOwner = { locktime: 0, threshold: 1, addresses: [randomAddress(rng)] };
    const connected = rng() >= 0.03;
    const uptime = connected ? 97 + rng() * 3 : rng() * 80;
    const years = (endTime - startTime) / (365 * 86400);
    const delegators: FakeDelegator[] = [];
    for (let d = 0; d < perValidator; d++) {
      const dStart = startTime + randInt(rng, 0, Math.max(0, Math.floor((endTime - startTime) / 2)));
      const dEnd = Math.min(endTime, dStart + randInt(rng, 14 * 86400, 365 * 86400));
      const dWeight = BigInt(25 + Math.floor(rng() ** 3 * 50_000)) * NANO_AVAX_PER_AVAX;
      delegators.push({
        txId: randomId(rng),
        startTime: dStart,
        endTime: dEnd,
        weight: dWeight,
        rewardOwner: { locktime: 0, threshold: 1, addresses: [randomAddress(rng)] },
        potentialReward: (dWeight * BigInt(Math.round(((dEnd - dStart) / (365 * 86400)) * 70))) / 1000n,
      });
    }
    const validator: FakeValidator = {
      txId: randomId(rng),
      nodeId,
      startTime,
      endTime,
      weight,
      validationRewardOwner: owner,
      delegationRewardOwner: owner,
      potentialReward: (weight * BigInt(Math.round(years * 75))) / 1000n,
      accruedDelegateeReward: delegators.length > 0 ? BigInt(randInt(rng, 0, 5_000_000_000)) : 0n,
      delegationFee: rng() < 0.6 ? 2 : Math.round((2 + rng() * 18) * 100) / 100,
      uptime,
      connected,
      delegators,
    };
    if (rng() < 0.95) validator.signer = { publicKey: randomHex(rng, 48), proofOfPossession: randomHex(rng, 96) };
    out.push(validator);
  }
  return out;
}

/**
 * Deterministic connected peers: unique CB58 node IDs (or `nodeIds`, in order, for the first
 * peers, e.g. to make peers of generated validators), public-looking IPs (about 30 % inbound
 * with an ephemeral remote port), a 1.14.2/1.14.1 version mix, a few tracked subnets and benched
 * chains.
 */
export function generatePeers(count: number, seed = 1, nodeIds: readonly string[] = []): FakePeer[] {
  const rng = createPrng(seed ^ 0x5eed);
  const base = FIXTURE_NOW * 1000;
  const seen = new Set<string>();
  const out: FakePeer[] = [];
  let i = 0;
  while (out.length < count) {
    const nodeId = i < nodeIds.length ? (nodeIds[i] as string) : randomNodeId(rng);
    i++;
    if (seen.has(nodeId)) continue;
    seen.add(nodeId);
    const addr = `${randInt(rng, 11, 223)}.${randInt(rng, 0, 255)}.${randInt(rng, 0, 255)}.${randInt(rng, 1, 254)}`;
    const inbound = rng() < 0.3;
    const r = rng();
    const version = r < 0.75 ? 'avalanchego/1.14.2' : r < 0.97 ? 'avalanchego/1.14.1' : 'avalanchego/1.14.0';
    out.push({
      nodeId,
      ip: inbound ? `${addr}:${randInt(rng, 32768, 60999)}` : `${addr}:9651`,
      publicIp: `${addr}:9651`,
      version,
      upgradeTime: GRANITE_TIME,
      observedUptime: rng() < 0.05 ? 0 : randInt(rng, 80, 100),
      trackedSubnets: rng() < 0.1 ? [FIXTURE_IDS.l1SubnetId] : [],
      benched: rng() < 0.02 ? ['C'] : [],
      lastSent: new Date(base - randInt(rng, 0, 2) * 1000),
      lastReceived: new Date(base - randInt(rng, 0, 5) * 1000),
    });
  }
  return out;
}
