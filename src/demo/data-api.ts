/**
 * The Data API side of `--demo`: a {@link DataApiServer} that follows a demo
 * node, so the demo shows the Data API series too. Its view of the node's own
 * validator is built from the node's state, the chain heads follow the node's
 * heights, and now and then the node proposes the newest P- or C-Chain block
 * (the X-Chain's node blocks are not served: the exporter leaves X out).
 *
 * @packageDocumentation
 */
import {
  FAKE_OTHER_L1_SUBNET_ID,
  FAKE_OTHER_L1_VALIDATION_ID,
  fixtureCompletedValidation,
  makeFakeBlock,
  makeFakeL1Validator,
  type FakeChainAlias,
  type FakeDataApiL1Validator,
  type FakeDataApiState,
  type FakeDataApiValidation,
} from './data-api-state.js';
import { DataApiServer } from './data-api-server.js';
import { PRIMARY_NETWORK_ID } from './fixture-world.js';
import { createPrng } from './ids.js';
import type { DemoNode } from './node.js';
import type { FakeNodeState, FakeValidator } from './node-state.js';

/** A running demo Data API. */
export interface DemoDataApi {
  readonly api: DataApiServer;
  readonly url: string;
  /** Follows the node once more now (the timer keeps running). */
  tick(): void;
  stop(): Promise<void>;
}

/** Options of {@link startDemoDataApi}. */
export interface DemoDataApiOptions {
  /** Real milliseconds between updates; default 2000. */
  tickMs?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /** Chance per update that the node proposed the newest P- (or C-) Chain block; default 0.2. */
  proposeChance?: number;
}

/** Blocks kept per chain: the exporter only ever reads the newest ones. */
const KEEP = 50;
const CHAINS: Array<[FakeChainAlias, 'P' | 'X' | 'C']> = [
  ['p-chain', 'P'],
  ['x-chain', 'X'],
  ['c-chain', 'C'],
];

/** The active validation the Data API would report for a node-side validator. */
function activeValidation(v: FakeValidator, version: string): FakeDataApiValidation {
  const delegated = v.delegators.reduce((s, d) => s + d.weight, 0n);
  // A validator may take delegations up to 4× its own stake, at most 3 M AVAX in total.
  const cap = v.weight * 5n < 3_000_000_000_000_000n ? v.weight * 5n : 3_000_000_000_000_000n;
  const capacity = cap - v.weight - delegated;
  const delegationReward = (v.delegators.reduce((s, d) => s + d.potentialReward, 0n) * BigInt(Math.round(v.delegationFee * 100))) / 10_000n;
  return {
    txHash: v.txId,
    nodeId: v.nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: v.weight.toString(),
    delegationFee: v.delegationFee.toFixed(16),
    startTimestamp: v.startTime,
    endTimestamp: v.endTime,
    delegatorCount: v.delegators.length,
    amountDelegated: delegated.toString(),
    uptimePerformance: Number(v.uptime.toFixed(2)),
    avalancheGoVersion: version,
    delegationCapacity: (capacity > 0n ? capacity : 0n).toString(),
    potentialRewards: { validationRewardAmount: v.potentialReward.toString(), delegationRewardAmount: delegationReward.toString(), rewardAddresses: [] },
    validationStatus: 'active',
    validatorHealth: { reachabilityPercent: 100, benchedPChainRequestsPercent: 0, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 0 },
    geolocation: null,
  };
}

/**
 * The L1 validations the Data API lists: every L1 validator of the node's
 * subnets (active and inactive, as the node has them), with the node's
 * balance and weight; and, for the demo node itself, an earlier validation of
 * an L1 nobody watches whose balance ran out, so the dashboard shows an
 * inactive one.
 */
function demoL1Validators(node: FakeNodeState): FakeDataApiL1Validator[] {
  const out: FakeDataApiL1Validator[] = [];
  for (const [subnetId, sub] of Object.entries(node.subnets)) {
    for (const v of sub.validators) {
      if (!('validationId' in v)) continue;
      out.push(makeFakeL1Validator(v.nodeId, subnetId, v.validationId, Number(v.balance), Number(v.weight), v.startTime));
    }
  }
  out.push(makeFakeL1Validator(node.nodeId, FAKE_OTHER_L1_SUBNET_ID, FAKE_OTHER_L1_VALIDATION_ID, 0, 20, node.primaryValidators[0]?.startTime ?? 1730000000));
  return out;
}

/** The Data API's view of the demo node's world. */
export function demoDataApiState(node: FakeNodeState, nowSec: number): FakeDataApiState {
  const self = node.primaryValidators.find((v) => v.nodeId === node.nodeId);
  const validations: FakeDataApiValidation[] = [];
  if (self) {
    const earlier = fixtureCompletedValidation(self.nodeId);
    earlier.startTimestamp = self.startTime - 365 * 86400;
    earlier.endTimestamp = self.startTime;
    validations.push(activeValidation(self, node.version), earlier);
  }
  const blocks = {} as FakeDataApiState['blocks'];
  for (const [alias, chain] of CHAINS) blocks[alias] = [makeFakeBlock(alias, node.heights[chain], nowSec)];
  return {
    network: node.networkId === 5 ? 'fuji' : 'mainnet',
    validations: { [node.nodeId]: validations },
    blocks,
    proposed: { [node.nodeId]: [] },
    l1Validators: demoL1Validators(node),
    proposedOn: { 'c-chain': { [node.nodeId]: [] } },
  };
}

/**
 * Starts a fake Data API following `demo`, updated every `tickMs` by an
 * unref'd timer (it never keeps the process alive).
 */
export async function startDemoDataApi(demo: DemoNode, opts: DemoDataApiOptions = {}): Promise<DemoDataApi> {
  const node = demo.node.state;
  const api = await DataApiServer.start({ state: demoDataApiState(node, Math.floor(Date.now() / 1000)) });
  const rng = createPrng((opts.seed ?? 1) ^ 0x5eed);
  const proposeChance = opts.proposeChance ?? 0.2;
  const tick = () => {
    const nowSec = Math.floor(Date.now() / 1000);
    for (const [alias, chain] of CHAINS) {
      const list = api.state.blocks[alias];
      const head = list[0];
      const height = node.heights[chain];
      if (head && BigInt(head.blockNumber) >= height) continue;
      const proposer = alias !== 'x-chain' && rng() < proposeChance ? node.nodeId : undefined;
      const block = makeFakeBlock(alias, height, nowSec, proposer);
      list.unshift(block);
      list.length = Math.min(list.length, KEEP);
      if (proposer) {
        const byNode = alias === 'p-chain' ? api.state.proposed : (api.state.proposedOn?.[alias] ?? {});
        const mine = (byNode[proposer] ??= []);
        mine.unshift(block);
        mine.length = Math.min(mine.length, KEEP);
      }
    }
    // The service's observers see what the node's peers see.
    const self = node.primaryValidators.find((v) => v.nodeId === node.nodeId);
    const active = api.state.validations[node.nodeId]?.find((v) => v.validationStatus === 'active');
    if (self && active) active['uptimePerformance'] = Number(self.uptime.toFixed(2));
    // Balances drain on the node's side; the service reports what the P-Chain has.
    api.state.l1Validators = demoL1Validators(node);
  };
  const timer = setInterval(tick, opts.tickMs ?? 2000);
  timer.unref();
  return {
    api,
    url: api.url,
    tick,
    async stop() {
      clearInterval(timer);
      await api.stop();
    },
  };
}
