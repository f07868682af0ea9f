/**
 * A fake Avalanche Data API: a real `node:http` server answering the
 * endpoints the exporter reads (a node's validations, the blocks a node
 * proposed, the latest blocks of a chain, P-Chain address balances) with the
 * shapes of the reference fixtures (`dataapi.*`; balances, which have none,
 * after the spec's PChainBalance): amounts as decimal strings, timestamps as numbers,
 * newest first, `nextPageToken` paging, `{message, statusCode, error}` error
 * bodies. It can require an API key, cap the page size to force several
 * pages, and inject faults (status codes, 429 with Retry-After, malformed
 * bodies, hangs, delays), each optionally for a number of requests only.
 *
 * Tests and `--demo` drive it through {@link FakeDataApi.state}, wire-shaped
 * objects that are serialised as they are: extra fields added to them are
 * sent, removed optional ones are not.
 *
 * @packageDocumentation
 */
import { createHash, randomUUID } from 'node:crypto';
import { FakeHttpServer, bindServer, type BoundServer } from './fake-server.js';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cb58Encode, FIXTURE_IDS, FIXTURE_NOW, MAINNET_CHAIN_IDS, PRIMARY_NETWORK_ID } from './fake-data.js';

/** A chain as the service names it in paths and `chainInfo`. */
export type FakeChainAlias = 'p-chain' | 'x-chain' | 'c-chain';

/** One validation as the service sends it (a oneOf by `validationStatus`); any extra field is sent too. */
export interface FakeDataApiValidation {
  txHash: string;
  nodeId: string;
  subnetId: string;
  amountStaked: string;
  startTimestamp: number;
  endTimestamp: number;
  validationStatus: string;
  [field: string]: unknown;
}

/** One primary-network block as the service sends it; any extra field is sent too. */
export interface FakeDataApiBlock {
  blockNumber: string;
  blockHash: string;
  parentHash: string;
  blockTimestamp: number;
  blockType: string;
  txCount: number;
  transactions: string[];
  blockSizeBytes: number;
  proposerDetails?: {
    proposerId?: string;
    proposerParentId?: string;
    proposerNodeId?: string;
    proposerPChainHeight?: number;
    proposerTimestamp?: number;
  };
  [field: string]: unknown;
}

/** One asset amount of a primary-network balance category as the service sends it; any extra field is sent too. */
export interface FakeBalanceAsset {
  assetId: string;
  name: string;
  symbol: string;
  denomination: number;
  type: string;
  /** Decimal string in the asset's smallest unit (nAVAX for AVAX). */
  amount: string;
  utxoCount: number;
  [field: string]: unknown;
}

/** The categories of the spec's P-Chain balance object (`balances` of endpoint 5). */
export const P_CHAIN_BALANCE_CATEGORIES = [
  'unlockedUnstaked',
  'unlockedStaked',
  'lockedPlatform',
  'lockedStakeable',
  'lockedStaked',
  'pendingStaked',
  'atomicMemoryUnlocked',
  'atomicMemoryLocked',
] as const;
/** One P-Chain balance category. */
export type FakePChainBalanceCategory = (typeof P_CHAIN_BALANCE_CATEGORIES)[number];
/** What one P-Chain address holds, by category; a missing category is empty. */
export type FakePChainBalances = Partial<Record<FakePChainBalanceCategory, FakeBalanceAsset[]>>;

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

/**
 * An L1 validation as `GET .../l1Validators` lists it (the spec's
 * L1ValidatorDetailsFull, dataapi.l1Validators.json): weight, balance (nAVAX)
 * and creation time are JSON numbers here, unlike the node's platform API.
 */
export interface FakeDataApiL1Validator extends Record<string, unknown> {
  validationId: string;
  nodeId: string;
  subnetId: string;
  weight: number;
  remainingBalance: number;
  creationTimestamp: number;
}

/** An L1 validation in the fixture's shape; `remainingBalance` 0 makes it inactive (the P-Chain's rule). */
export function makeFakeL1Validator(
  nodeId: string,
  subnetId: string,
  validationId: string,
  remainingBalance: number,
  weight = 20,
  creationTimestamp = 1734034648,
): FakeDataApiL1Validator {
  const owner = { addresses: ['fuji1ywzvrftfqexh5g6qa9zyrytj6pqdfetza2hqln'], threshold: 1 };
  return {
    validationId,
    validationIdHex: `0x${createHash('sha256').update(validationId).digest('hex')}`,
    nodeId,
    subnetId,
    weight,
    remainingBalance,
    creationTimestamp,
    blsCredentials: { publicKey: `0x${createHash('sha256').update(`bls/${validationId}`).digest('hex')}` },
    remainingBalanceOwner: owner,
    deactivationOwner: owner,
  };
}

/** Everything the fake answers from; mutate it freely between requests. */
export interface FakeDataApiState {
  /** The network it has data for; other networks answer empty lists. */
  network: 'mainnet' | 'fuji';
  /** Validations by node id, newest first. */
  validations: Record<string, FakeDataApiValidation[]>;
  /** Latest blocks per chain, newest first. */
  blocks: Record<FakeChainAlias, FakeDataApiBlock[]>;
  /** P-Chain blocks proposed, by node id, newest first. */
  proposed: Record<string, FakeDataApiBlock[]>;
  /**
   * X- and C-Chain blocks proposed, by chain then node id, newest first. A
   * chain absent here is one the service does not serve node blocks for: its
   * node-blocks path answers 400, as the real service answers a path it does
   * not serve.
   */
  proposedOn?: Partial<Record<Exclude<FakeChainAlias, 'p-chain'>, Record<string, FakeDataApiBlock[]>>>;
  /**
   * P-Chain balances by address without its chain prefix (`avax1…`, `fuji1…`). An address not
   * listed holds nothing: every category is empty, as the service answers for an unused address.
   */
  pChainBalances?: Record<string, FakePChainBalances>;
  /** L1 validations, active and inactive, in the order the service lists them. */
  l1Validators?: FakeDataApiL1Validator[];
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

const JSON_CT = 'application/json; charset=utf-8';
const NETWORKS = new Set(['mainnet', 'fuji', 'testnet']);
/** Blockchain ids the spec accepts, by chain. */
const CHAIN_IDS: Record<string, FakeChainAlias> = {
  'p-chain': 'p-chain',
  'x-chain': 'x-chain',
  'c-chain': 'c-chain',
  [PRIMARY_NETWORK_ID]: 'p-chain',
  [MAINNET_CHAIN_IDS.X]: 'x-chain',
  '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm': 'x-chain',
  [MAINNET_CHAIN_IDS.C]: 'c-chain',
  yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp: 'c-chain',
};
/** Longest block list kept per chain (the demo adds blocks forever). */
const MAX_BLOCKS = 500;

/** A deterministic CB58 id for a seed string. */
function idFor(seed: string): string {
  return cb58Encode(createHash('sha256').update(seed).digest());
}

function hashFor(alias: FakeChainAlias, height: bigint): string {
  return alias === 'c-chain' ? `0x${createHash('sha256').update(`c/${height}`).digest('hex')}` : idFor(`${alias}/${height}`);
}

/** The BLS credentials of the fixture validator. */
const BLS = {
  publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
  proofOfPossession:
    '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98',
};
const REWARD_ADDRESS = 'avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5';

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
    blsCredentials: { ...BLS },
    stakePercentage: 0.0008421637,
    delegatorCount: 1,
    amountDelegated: '25000000000',
    uptimePerformance: 99.87,
    avalancheGoVersion: 'avalanchego/1.14.2',
    delegationCapacity: '7975000000000',
    potentialRewards: { validationRewardAmount: '117431493426', delegationRewardAmount: '234862987', rewardAddresses: [REWARD_ADDRESS] },
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
    blsCredentials: { ...BLS },
    validationStatus: 'pending',
  };
}

/** A completed earlier validation of the fixture node. */
export function fixtureCompletedValidation(nodeId: string = FIXTURE_IDS.nodeId): FakeDataApiValidation {
  return {
    txHash: 'ZLpB1oPQDZuEsqKXxn4w9oTFCPaT6kC7vet6AuDCh9AwL5uK8',
    nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: '2000000000000',
    delegationFee: '2.0000000000000000',
    startTimestamp: 1719864000,
    endTimestamp: 1751400000,
    blsCredentials: { ...BLS },
    delegatorCount: 0,
    amountDelegated: '0',
    rewards: {
      validationRewardAmount: '118004212871',
      delegationRewardAmount: '0',
      rewardAddresses: [REWARD_ADDRESS],
      rewardTxHash: 'hhVikvW9TDYkNmjSVWZ2b4DbRp7hYHygmfaU9Y7KQCFqPaxQr',
    },
    validationStatus: 'completed',
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
    txHash: idFor('completed/denied'),
    nodeId,
    subnetId: PRIMARY_NETWORK_ID,
    amountStaked: '2500000000000',
    delegationFee: '2.0000000000000000',
    startTimestamp: 1751500000,
    endTimestamp: 1783036000,
    delegatorCount: 0,
    amountDelegated: '0',
    rewards: { validationRewardAmount: '0', delegationRewardAmount: '0', rewardAddresses: [REWARD_ADDRESS] },
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

/** A block of `alias` at `height`, with a proposer if given. */
export function makeFakeBlock(alias: FakeChainAlias, height: bigint, timestamp: number, proposerNodeId?: string): FakeDataApiBlock {
  const b: FakeDataApiBlock = {
    blockNumber: height.toString(),
    blockHash: hashFor(alias, height),
    parentHash: hashFor(alias, height - 1n),
    blockTimestamp: timestamp,
    blockType: alias === 'c-chain' ? 'Standard' : 'BanffStandardBlock',
    txCount: 1,
    transactions: [alias === 'c-chain' ? `0x${createHash('sha256').update(`tx/${height}`).digest('hex')}` : idFor(`${alias}/tx/${height}`)],
    blockSizeBytes: 640,
  };
  if (alias === 'p-chain') Object.assign(b, { l1ValidatorsAccruedFees: 52371237109, activeL1Validators: 1203, currentSupply: '459857431284419581' });
  if (proposerNodeId !== undefined) {
    b.proposerDetails = {
      proposerId: idFor(`proposer/${alias}/${height}`),
      proposerParentId: idFor(`proposer/${alias}/${height - 1n}`),
      proposerNodeId,
      proposerPChainHeight: Number(height) - 5,
      proposerTimestamp: timestamp,
    };
  }
  return b;
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
      makeFakeL1Validator(FIXTURE_IDS.l1InactiveNodeId, FIXTURE_IDS.l1SubnetId, idFor('l1/inactive'), 0),
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

/** An L1 the fixture node once validated (inactive in the fake's default world). */
export const FAKE_OTHER_L1_SUBNET_ID = idFor('l1/other-subnet');
/** The fixture node's inactive validation of {@link FAKE_OTHER_L1_SUBNET_ID}. */
export const FAKE_OTHER_L1_VALIDATION_ID = idFor('l1/other-validation');

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
      txHash: idFor(`quirk/${nodeId}`),
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

function errorJson(status: number, message: string | string[]): string {
  return JSON.stringify({ message, statusCode: status, error: http.STATUS_CODES[status] ?? 'Error' });
}

/** A request the fake could not serve, answered with the service's error body. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | string[],
  ) {
    super(Array.isArray(detail) ? detail.join('; ') : detail);
  }
}

/** A running fake Data API. */
export class FakeDataApi extends FakeHttpServer {
  /** The world it answers from. */
  state: FakeDataApiState;
  /** Requests received, oldest first. */
  readonly calls: FakeDataApiCall[] = [];

  private readonly faults = new Map<string, FakeDataApiFault>();
  /** Page token → offset of the next page in the listing it was issued for. */
  private readonly tokens = new Map<string, { listing: string; offset: number }>();

  private constructor(
    bound: BoundServer,
    state: FakeDataApiState,
    private readonly opts: FakeDataApiOptions,
  ) {
    super(bound);
    this.state = state;
  }

  /** Starts a fake Data API (default: the fixture world on 127.0.0.1, any free port). */
  static async start(opts: FakeDataApiOptions = {}): Promise<FakeDataApi> {
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

  protected answerInternalError(res: ServerResponse, err: unknown): void {
    this.send(res, 500, errorJson(500, `fake Data API error: ${err instanceof Error ? err.message : String(err)}`));
  }

  protected async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://fake');
    const keyHeader = (this.opts.keyHeader ?? 'x-glacier-api-key').toLowerCase();
    const sentKey = req.headers[keyHeader];
    const call: FakeDataApiCall = {
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      route: routeOf(req.method ?? 'GET', u.pathname),
      apiKey: Array.isArray(sentKey) ? sentKey[0] : sentKey,
      at: Date.now(),
    };
    this.record(call);

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
    try {
      this.send(res, 200, JSON.stringify(this.answer(req.method ?? 'GET', u)));
    } catch (err) {
      if (!(err instanceof HttpProblem)) throw err;
      this.send(res, err.status, errorJson(err.status, err.detail));
    }
  }

  private answer(method: string, u: URL): unknown {
    if (method !== 'GET') throw new HttpProblem(404, `Cannot ${method} ${u.pathname}`);
    if (u.pathname === '/v1/health-check') return { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } };
    const parts = u.pathname.split('/').map(decodeURIComponent);
    // ['', 'v1', 'networks', network, ...rest]
    if (parts[1] !== 'v1' || parts[2] !== 'networks' || parts[3] === undefined) throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
    const network = parts[3];
    if (!NETWORKS.has(network)) throw new HttpProblem(400, ['network must be one of the following values: mainnet, fuji, testnet']);
    const ours = (network === 'testnet' ? 'fuji' : network) === this.state.network;
    const q = u.searchParams;
    const pageSize = parsePageSize(q.get('pageSize'));
    const chainInfo = (alias: FakeChainAlias) => ({ chainName: alias, network });

    if (parts[4] === 'validators' && parts[5] !== undefined && parts.length === 6) {
      let list = ours ? [...(this.state.validations[parts[5]] ?? [])] : [];
      const status = q.get('validationStatus');
      if (status !== null) list = list.filter((v) => v.validationStatus === status);
      if (q.get('sortOrder') === 'asc') list.reverse();
      const page = this.page(list, `${u.pathname}?${status}&${q.get('sortOrder')}`, pageSize, q.get('pageToken'));
      return { ...(page.next ? { nextPageToken: page.next } : {}), validators: page.items };
    }
    if (parts[4] === 'l1Validators' && parts.length === 5) {
      const inactive = q.get('includeInactiveL1Validators');
      if (inactive !== null && inactive !== 'true' && inactive !== 'false') {
        throw new HttpProblem(400, ['includeInactiveL1Validators must be a boolean value']);
      }
      const [nodeId, subnetId, validationId] = [q.get('nodeId'), q.get('subnetId'), q.get('l1ValidationId')];
      const list = (ours ? (this.state.l1Validators ?? []) : []).filter(
        (v) =>
          (nodeId === null || v.nodeId === nodeId) &&
          (subnetId === null || v.subnetId === subnetId) &&
          (validationId === null || v.validationId === validationId) &&
          (inactive === 'true' || (v.weight !== 0 && v.remainingBalance !== 0)),
      );
      const page = this.page(list, `${u.pathname}?${nodeId}&${subnetId}&${validationId}&${inactive}`, pageSize, q.get('pageToken'));
      // blockHeight: the P-Chain height the balances were computed at, a decimal string.
      return { validators: page.items, ...(page.next ? { nextPageToken: page.next } : {}), blockHeight: this.state.blocks['p-chain'][0]?.blockNumber ?? '0' };
    }
    if (parts[4] === 'blockchains' && parts[5] !== undefined) {
      const alias = CHAIN_IDS[parts[5]];
      if (!alias) throw new HttpProblem(404, `Blockchain ${parts[5]} not found`);
      if (parts[6] === 'balances' && parts.length === 7)
        return { balances: this.balances(alias, network, ours, q.get('addresses')), chainInfo: chainInfo(alias) };
      let list: FakeDataApiBlock[];
      if (parts[6] === 'blocks' && parts.length === 7) list = ours ? this.state.blocks[alias] : [];
      else if (parts[6] === 'nodes' && parts[7] !== undefined && parts[8] === 'blocks' && parts.length === 9) {
        const byNode = alias === 'p-chain' ? this.state.proposed : this.state.proposedOn?.[alias];
        if (!byNode) throw new HttpProblem(400, `Node blocks are not served for ${alias}`);
        list = ours ? (byNode[parts[7]] ?? []) : [];
      } else throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
      const start = parseTimestamp(q.get('startTimestamp'), 'startTimestamp');
      const end = parseTimestamp(q.get('endTimestamp'), 'endTimestamp');
      const filtered = list.filter((b) => (start === undefined || b.blockTimestamp >= start) && (end === undefined || b.blockTimestamp < end));
      const page = this.page(filtered, `${u.pathname}?${start}&${end}`, pageSize, q.get('pageToken'));
      return { blocks: page.items, ...(page.next ? { nextPageToken: page.next } : {}), chainInfo: chainInfo(alias) };
    }
    throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
  }

  /**
   * Endpoint 5: the balance of every address given, summed per category and asset (the service
   * adds the addresses up). Addresses may carry a `P-`/`X-` prefix; one of another network is a 400.
   * Only the P-Chain holds data here; the X- and C-Chain answer their categories empty.
   */
  private balances(alias: FakeChainAlias, network: string, ours: boolean, addressesParam: string | null): Record<string, FakeBalanceAsset[]> {
    const addresses = (addressesParam ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    if (addresses.length === 0) throw new HttpProblem(400, ['addresses should not be empty']);
    const hrp = network === 'mainnet' ? 'avax' : 'fuji';
    const bare = addresses.map((a) => a.replace(/^[PX]-/, ''));
    const wrong = bare.find((a) => !a.startsWith(`${hrp}1`));
    if (wrong !== undefined) throw new HttpProblem(400, [`Invalid address ${wrong} for network ${network}`]);
    const categories: readonly string[] =
      alias === 'p-chain'
        ? P_CHAIN_BALANCE_CATEGORIES
        : alias === 'x-chain'
          ? ['locked', 'unlocked', 'atomicMemoryUnlocked', 'atomicMemoryLocked']
          : ['atomicMemoryUnlocked', 'atomicMemoryLocked'];
    const out: Record<string, FakeBalanceAsset[]> = Object.fromEntries(categories.map((c) => [c, []]));
    if (!ours || alias !== 'p-chain') return out;
    for (const category of P_CHAIN_BALANCE_CATEGORIES) {
      const byAsset = new Map<string, FakeBalanceAsset>();
      for (const a of bare) {
        for (const e of this.state.pChainBalances?.[a]?.[category] ?? []) {
          const prev = byAsset.get(e.assetId);
          byAsset.set(
            e.assetId,
            prev ? { ...prev, amount: (BigInt(prev.amount) + BigInt(e.amount)).toString(), utxoCount: prev.utxoCount + e.utxoCount } : { ...e },
          );
        }
      }
      out[category] = [...byAsset.values()];
    }
    return out;
  }

  private page<T>(list: readonly T[], listing: string, requested: number, token: string | null): { items: T[]; next: string | undefined } {
    let offset = 0;
    if (token !== null) {
      const t = this.tokens.get(token);
      if (!t || t.listing !== listing) throw new HttpProblem(400, ['Invalid pageToken']);
      offset = t.offset;
    }
    const size = Math.min(requested, this.opts.maxPageSize ?? 100);
    const items = list.slice(offset, offset + size);
    if (offset + size >= list.length) return { items, next: undefined };
    const next = randomUUID();
    if (this.tokens.size > 10_000) this.tokens.clear();
    this.tokens.set(next, { listing, offset: offset + size });
    return { items, next };
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

  private record(call: FakeDataApiCall): void {
    this.calls.push(call);
    const max = this.opts.maxCalls ?? 100_000;
    if (this.calls.length > max + Math.max(16, Math.floor(max / 4))) this.calls.splice(0, this.calls.length - max);
  }

  private send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': JSON_CT, ...headers });
    res.end(body);
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

function parsePageSize(v: string | null): number {
  if (v === null) return 10;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1) throw new HttpProblem(400, ['pageSize must not be less than 1']);
  if (n > 100) throw new HttpProblem(400, ['pageSize must not be greater than 100']);
  return n;
}

function parseTimestamp(v: string | null, name: string): number | undefined {
  if (v === null) return undefined;
  if (!/^\d+$/.test(v)) throw new HttpProblem(400, [`${name} must not be less than 0`]);
  return Number(v);
}
