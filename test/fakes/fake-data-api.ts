/**
 * The tests' fake Avalanche Data API: the demo's Data API server (src/demo/data-api-server.ts,
 * the same endpoints, shapes and paging) with what only tests need: the fixture world as its
 * default state, a log of every call, an API key it can require, a cap on the page size to
 * force several pages, faults (status codes, 429 with Retry-After, malformed bodies, hangs,
 * delays), each optionally for a number of requests only, and the real service's quirks as a
 * mode (`quirks: true`).
 *
 * Tests drive it through {@link FakeDataApi.state}, wire-shaped objects that are serialised as
 * they are: extra fields added to them are sent, removed optional ones are not.
 *
 * @packageDocumentation
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  FAKE_OTHER_L1_SUBNET_ID,
  FAKE_OTHER_L1_VALIDATION_ID,
  FIXTURE_BLS,
  FIXTURE_REWARD_ADDRESS,
  fixtureCompletedValidation,
  makeFakeBlock,
  makeFakeL1Validator,
  type FakeBalanceAsset,
  type FakeChainAlias,
  type FakeDataApiBlock,
  type FakeDataApiState,
  type FakeDataApiValidation,
} from '../../src/demo/data-api-state.js';
import { DataApiServer, errorJson } from '../../src/demo/data-api-server.js';
import { FIXTURE_IDS, FIXTURE_NOW, PRIMARY_NETWORK_ID } from '../../src/demo/fixture-world.js';
import { bindServer, type BoundServer } from '../../src/demo/http-server.js';
import { idFrom } from '../../src/demo/ids.js';
import { recordCall } from './call-log.js';

// The Data API's world and its builders, where the tests have always found them.
export {
  FAKE_OTHER_L1_SUBNET_ID,
  FAKE_OTHER_L1_VALIDATION_ID,
  makeFakeBlock,
  makeFakeL1Validator,
  type FakeBalanceAsset,
  type FakeChainAlias,
  type FakeDataApiBlock,
  type FakeDataApiState,
  type FakeDataApiValidation,
} from '../../src/demo/data-api-state.js';

/** The AVAX asset id by network, as the service lists it. */
export const FAKE_AVAX_ASSET_IDS = {
  mainnet: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
  fuji: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
} as const;

/** An AVAX entry of a balance category: `navax` nAVAX in one UTXO. */
export function fakeAvaxAmount(navax: bigint, network: 'mainnet' | 'fuji' = 'mainnet'): FakeBalanceAsset {
  return {
    assetId: FAKE_AVAX_ASSET_IDS[network],
    name: 'Avalanche',
    symbol: 'AVAX',
    denomination: 9,
    type: 'secp256k1',
    amount: navax.toString(),
    utxoCount: 1,
  };
}

/** A failure to inject with {@link FakeDataApi.setFault}; `times` limits it to that many requests. */
export type FakeDataApiFault = (
  | /** This status with the service's JSON error body (or `body`). */ { kind: 'status'; status: number; body?: string }
  | /** 429 with the service's body and, if given, this Retry-After value (seconds or an HTTP date). */ { kind: 'rate-limit'; retryAfter?: string }
  | /** This raw body (malformed JSON, HTML), status 200 unless given. */ { kind: 'body'; body: string; status?: number }
  | /** Never answer. */ { kind: 'hang' }
  | /** Answer normally after a delay. */ { kind: 'delay'; ms: number }
) & { times?: number };

/** The endpoints, as fault targets and in {@link FakeDataApiCall.route}. */
export type FakeDataApiRoute = 'validators' | 'l1Validators' | 'nodeBlocks' | 'blocks' | 'balances' | 'health' | 'unknown';

/** One request the fake received. */
export interface FakeDataApiCall {
  path: string;
  query: Record<string, string>;
  route: FakeDataApiRoute;
  /** Value of the API key header, if one was sent. */
  apiKey: string | undefined;
  at: number;
}

/** Options of {@link FakeDataApi.start}. */
export interface FakeDataApiOptions {
  host?: string;
  port?: number;
  /** Overrides merged (shallowly) over {@link defaultFakeDataApiState}. */
  state?: Partial<FakeDataApiState>;
  /** When set, every request must carry this key (else 401, as the service answers an invalid key). */
  apiKey?: string;
  /** Header the key is read from; default `x-glacier-api-key`. */
  keyHeader?: string;
  /** Largest page actually served whatever `pageSize` asks (forces paging in tests); default 100. */
  maxPageSize?: number;
  /** Keep at most about this many calls; default 100 000. */
  maxCalls?: number;
  /** Serve the starting state with the real service's quirks ({@link withRealServiceQuirks}). */
  quirks?: boolean;
}

/** Longest block list kept per chain. */
const MAX_BLOCKS = 500;

/** The active validation of the fixture node, with every field the real service adds (dataapi.validators.nodeId.json). */
export function fixtureActiveValidation(nodeId: string = FIXTURE_IDS.nodeId): FakeDataApiValidation {
  return {
    txHash: '2NNkpYTGfTFLSGXJcHtVv6drwVU2cczhmjK2uhvwDyxwsjzZMm',
    nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: '2000000000000',
    delegationFee: '2.0000000000000000',
    startTimestamp: 1751400000,
    endTimestamp: 1782936000,
    blsCredentials: { ...FIXTURE_BLS },
    stakePercentage: 0.0008421637,
    delegatorCount: 1,
    amountDelegated: '25000000000',
    uptimePerformance: 99.87,
    avalancheGoVersion: 'avalanchego/1.14.2',
    delegationCapacity: '7975000000000',
    potentialRewards: { validationRewardAmount: '117431493426', delegationRewardAmount: '234862987', rewardAddresses: [FIXTURE_REWARD_ADDRESS] },
    validationStatus: 'active',
    validatorHealth: { reachabilityPercent: 100, benchedPChainRequestsPercent: 0, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 0.4 },
    geolocation: { city: 'Frankfurt am Main', country: 'Germany', countryCode: 'DE', latitude: 50.1188, longitude: 8.6843 },
  };
}

/** A pending renewal of the fixture node (common fields only, as the spec has it). */
export function fixturePendingValidation(nodeId: string = FIXTURE_IDS.nodeId): FakeDataApiValidation {
  return {
    txHash: '2sxCLksvzPxpcVy6p6HDvrwUW63FucwSczA75qWfKCeXZma6qF',
    nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: '2000000000000',
    delegationFee: '2.0000000000000000',
    startTimestamp: 1782936100,
    endTimestamp: 1814472100,
    blsCredentials: { ...FIXTURE_BLS },
    validationStatus: 'pending',
  };
}

/**
 * A completed validation whose reward was denied (the uptime was under the
 * requirement): the service lists `rewards` with a validationRewardAmount of
 * "0" (the SDK's CompletedValidatorDetails: `rewards` is required on a
 * completed validation; RewardValidatorTx aborted, nothing paid).
 */
export function fixtureDeniedValidation(nodeId: string = FAKE_DENIED_NODE_ID): FakeDataApiValidation {
  return {
    txHash: idFrom('completed/denied'),
    nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: '2500000000000',
    delegationFee: '2.0000000000000000',
    startTimestamp: 1751500000,
    endTimestamp: 1783036000,
    delegatorCount: 0,
    amountDelegated: '0',
    rewards: { validationRewardAmount: '0', delegationRewardAmount: '0', rewardAddresses: [FIXTURE_REWARD_ADDRESS] },
    validationStatus: 'completed',
  };
}

/** The validator of the fixture world whose last validation was not rewarded (served by the default state). */
export const FAKE_DENIED_NODE_ID = 'NodeID-8PYXX47kqLDe2wD4oPbvRRchcnSzMA4J4';

/** A removed validation on the fixture's permissioned subnet. */
export function fixtureRemovedValidation(nodeId: string = FIXTURE_IDS.nodeId): FakeDataApiValidation {
  return {
    txHash: 'a6htHU8W898QNDRqeqQuGh6o92DCZSR5vjECGUNs2XhT5jV8G',
    nodeId,
    subnetId: FIXTURE_IDS.legacySubnetId,
    amountStaked: '20',
    startTimestamp: 1740000000,
    endTimestamp: 1800000000,
    removeTxHash: '2LnhHTY6wFynPXCD73J44nbyKNHK7j1u13UWhUSXfXw6zGB59J',
    removeTimestamp: 1760000000,
    validationStatus: 'removed',
  };
}

/**
 * The fixture world: the node NodeID-5mb46… with a pending renewal, its active
 * validation (every optional field), a removed permissioned-subnet validation
 * and a completed one; the fixtures' latest P- and C-Chain blocks and an
 * X-Chain block; two P-Chain blocks the node proposed.
 */
export function defaultFakeDataApiState(): FakeDataApiState {
  const self = FIXTURE_IDS.nodeId;
  const other = 'NodeID-Lrn2ZrcnusnEQwVBU8i7spYM1G3V9ZVW9';
  const p1 = makeFakeBlock('p-chain', 23797323n, 1766080370, other);
  const p0 = makeFakeBlock('p-chain', 23797322n, 1766080368, self);
  const pOld = makeFakeBlock('p-chain', 23797290n, 1766080301, self);
  const cHead = makeFakeBlock('c-chain', 71234567n, FIXTURE_NOW, self);
  return {
    network: 'mainnet',
    validations: {
      [self]: [fixturePendingValidation(self), fixtureActiveValidation(self), fixtureRemovedValidation(self), fixtureCompletedValidation(self)],
      [FAKE_DENIED_NODE_ID]: [fixtureDeniedValidation()],
    },
    blocks: {
      'p-chain': [p1, p0],
      'x-chain': [makeFakeBlock('x-chain', 5094088n, FIXTURE_NOW - 12)],
      'c-chain': [cHead],
    },
    proposed: { [self]: [p0, pOld] },
    l1Validators: [
      // The fixture's: the node's active validation of the fixture L1.
      makeFakeL1Validator(self, FIXTURE_IDS.l1SubnetId, FIXTURE_IDS.l1ValidationId, 8780477952),
      // An earlier validation of the same node on another L1, its balance used up.
      makeFakeL1Validator(self, FAKE_OTHER_L1_SUBNET_ID, FAKE_OTHER_L1_VALIDATION_ID, 0, 20, 1730000000),
      makeFakeL1Validator(FIXTURE_IDS.l1InactiveNodeId, FIXTURE_IDS.l1SubnetId, idFrom('l1/inactive'), 0),
    ],
    // The C-Chain is served: the node proposed its head, and the denied
    // validator's newest C-Chain block is two days old (a proposer drought).
    proposedOn: {
      'c-chain': {
        [self]: [cHead],
        [FAKE_DENIED_NODE_ID]: [makeFakeBlock('c-chain', 70889000n, FIXTURE_NOW - 2 * 86_400, FAKE_DENIED_NODE_ID)],
      },
    },
  };
}

/**
 * The real service's leniency, as a mode (`quirks: true`): what the spec and
 * its generated SDK allow or leave open, and what a strict reader chokes on.
 * Applied to a copy of `state`:
 *
 * - every active validation gets null and out-of-range optional fields: no
 *   uptime or version yet (null: the SDK's activevalidatordetails.ts has
 *   `avalancheGoVersion?` and `geolocation: ... | null`, the service sends
 *   null for what its observers do not know), a negative delegation capacity
 *   (over-delegated after a stake change), a reachability a little above
 *   100 % and a benched share of null, a delegation reward of null;
 * - each node gets an item with a validation status the spec's enum does not
 *   list yet (completed, active, pending, removed in
 *   data-service-rest-interface.md) and none of today's optional fields;
 * - the newest block of each chain gets a `blockType` outside today's values.
 *
 * Required fields (ids, stake, start and end) are left as they are: the
 * service always sends them.
 */
export function withRealServiceQuirks(state: FakeDataApiState): FakeDataApiState {
  const out = structuredClone(state);
  for (const [nodeId, list] of Object.entries(out.validations)) {
    for (const v of list) {
      if (v.validationStatus !== 'active') continue;
      Object.assign(v, { uptimePerformance: null, avalancheGoVersion: null, delegationCapacity: '-25000000000', geolocation: null });
      v['potentialRewards'] = { ...(v['potentialRewards'] as object), delegationRewardAmount: null };
      v['validatorHealth'] = { ...(v['validatorHealth'] as object), reachabilityPercent: 100.4, benchedPChainRequestsPercent: null };
    }
    list.unshift({
      txHash: idFrom(`quirk/${nodeId}`),
      nodeId,
      subnetId: PRIMARY_NETWORK_ID,
      amountStaked: '2000000000000',
      startTimestamp: FIXTURE_NOW,
      endTimestamp: FIXTURE_NOW + 1_209_600,
      validationStatus: 'suspended',
    });
  }
  for (const list of Object.values(out.blocks)) {
    const head = list[0];
    if (head) head.blockType = 'FutureStandardBlock';
  }
  return out;
}

/** A running fake Data API. */
export class FakeDataApi extends DataApiServer {
  /** Requests received, oldest first. */
  readonly calls: FakeDataApiCall[] = [];

  private readonly faults = new Map<string, FakeDataApiFault>();

  private constructor(
    bound: BoundServer,
    state: FakeDataApiState,
    private readonly opts: FakeDataApiOptions,
  ) {
    super(bound, state, opts.maxPageSize ?? 100);
  }

  /** Starts a fake Data API (default: the fixture world on 127.0.0.1, any free port). */
  static override async start(opts: FakeDataApiOptions = {}): Promise<FakeDataApi> {
    const host = opts.host ?? '127.0.0.1';
    const state = { ...defaultFakeDataApiState(), ...opts.state };
    const api = new FakeDataApi(await bindServer(host, opts.port ?? 0), opts.quirks ? withRealServiceQuirks(state) : state, opts);
    api.attach();
    return api;
  }

  /**
   * Injects a fault. `target` is, by priority: a path (`/v1/networks/mainnet/blockchains/c-chain/blocks`),
   * a route (`validators`, `nodeBlocks`, `blocks`), or `'*'`. `undefined` removes it.
   */
  setFault(target: string, fault: FakeDataApiFault | undefined): void {
    if (fault === undefined) this.faults.delete(target);
    else this.faults.set(target, { ...fault });
  }

  /** Removes every fault. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** Empties {@link FakeDataApi.calls}. */
  clearCalls(): void {
    this.calls.length = 0;
  }

  /** Calls of one route. */
  callsTo(route: FakeDataApiRoute): FakeDataApiCall[] {
    return this.calls.filter((c) => c.route === route);
  }

  /**
   * Appends a block on top of a chain (height + 1, time now or later); on the
   * P-Chain (or a served X-/C-Chain, see `proposedOn`) with a proposer, it is
   * also a block that node proposed.
   */
  addBlock(alias: FakeChainAlias, proposerNodeId?: string): FakeDataApiBlock {
    const list = this.state.blocks[alias];
    const head = list[0];
    const height = head ? BigInt(head.blockNumber) + 1n : 1n;
    const ts = Math.max(Math.floor(Date.now() / 1000), head?.blockTimestamp ?? 0);
    const block = makeFakeBlock(alias, height, ts, proposerNodeId);
    list.unshift(block);
    if (list.length > MAX_BLOCKS) list.length = MAX_BLOCKS;
    const byNode = alias === 'p-chain' ? this.state.proposed : this.state.proposedOn?.[alias];
    if (byNode && proposerNodeId !== undefined) {
      const mine = (byNode[proposerNodeId] ??= []);
      mine.unshift(block);
      if (mine.length > MAX_BLOCKS) mine.length = MAX_BLOCKS;
    }
    return block;
  }

  protected override async serve(req: IncomingMessage, res: ServerResponse, u: URL): Promise<void> {
    const keyHeader = (this.opts.keyHeader ?? 'x-glacier-api-key').toLowerCase();
    const sentKey = req.headers[keyHeader];
    const call: FakeDataApiCall = {
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      route: routeOf(req.method ?? 'GET', u.pathname),
      apiKey: Array.isArray(sentKey) ? sentKey[0] : sentKey,
      at: Date.now(),
    };
    recordCall(this.calls, call, this.opts.maxCalls ?? 100_000);

    const fault = this.takeFault(call);
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'status') return this.send(res, fault.status, fault.body ?? errorJson(fault.status, http.STATUS_CODES[fault.status] ?? 'Error'));
    if (fault?.kind === 'rate-limit') {
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'Retry-After': fault.retryAfter } : {};
      return this.send(res, 429, errorJson(429, 'Too many requests, please try again later.'), headers);
    }
    if (fault?.kind === 'body') return this.send(res, fault.status ?? 200, fault.body);
    if (fault?.kind === 'delay') {
      await this.sleep(fault.ms);
      if (res.destroyed || !this.listening) return;
    }

    if (this.opts.apiKey !== undefined && call.apiKey !== this.opts.apiKey) return this.send(res, 401, errorJson(401, 'Invalid API key'));
    this.reply(req.method ?? 'GET', u, res);
  }

  private takeFault(call: FakeDataApiCall): FakeDataApiFault | undefined {
    for (const key of [call.path, call.route, '*']) {
      const f = this.faults.get(key);
      if (!f) continue;
      if (f.times !== undefined) {
        f.times -= 1;
        if (f.times <= 0) this.faults.delete(key);
      }
      return f;
    }
    return undefined;
  }
}

function routeOf(method: string, path: string): FakeDataApiRoute {
  if (method !== 'GET') return 'unknown';
  if (path === '/v1/health-check') return 'health';
  if (/^\/v1\/networks\/[^/]+\/validators\/[^/]+$/.test(path)) return 'validators';
  if (/^\/v1\/networks\/[^/]+\/l1Validators$/.test(path)) return 'l1Validators';
  if (/^\/v1\/networks\/[^/]+\/blockchains\/[^/]+\/nodes\/[^/]+\/blocks$/.test(path)) return 'nodeBlocks';
  if (/^\/v1\/networks\/[^/]+\/blockchains\/[^/]+\/blocks$/.test(path)) return 'blocks';
  if (/^\/v1\/networks\/[^/]+\/blockchains\/[^/]+\/balances$/.test(path)) return 'balances';
  return 'unknown';
}
