/**
 * The Data API's world as the demo's Data API (and the tests' fake, built on it) serves it:
 * wire-shaped objects (the reference fixtures' `dataapi.*` shapes) that are serialised as they
 * are, so extra fields added to them are sent and removed optional ones are not; and the
 * builders of the blocks, validations and L1 validations the demo derives from its node.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { FIXTURE_IDS, PRIMARY_NETWORK_ID } from './fixture-world.js';
import { idFrom } from './ids.js';

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

function hashFor(alias: FakeChainAlias, height: bigint): string {
  return alias === 'c-chain' ? `0x${createHash('sha256').update(`c/${height}`).digest('hex')}` : idFrom(`${alias}/${height}`);
}

/** The BLS credentials of the fixture validator. */
export const FIXTURE_BLS = {
  publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
  proofOfPossession:
    '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98',
};
/** The fixture validator's reward address. */
export const FIXTURE_REWARD_ADDRESS = 'avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5';

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
    blsCredentials: { ...FIXTURE_BLS },
    delegatorCount: 0,
    amountDelegated: '0',
    rewards: {
      validationRewardAmount: '118004212871',
      delegationRewardAmount: '0',
      rewardAddresses: [FIXTURE_REWARD_ADDRESS],
      rewardTxHash: 'hhVikvW9TDYkNmjSVWZ2b4DbRp7hYHygmfaU9Y7KQCFqPaxQr',
    },
    validationStatus: 'completed',
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
    transactions: [alias === 'c-chain' ? `0x${createHash('sha256').update(`tx/${height}`).digest('hex')}` : idFrom(`${alias}/tx/${height}`)],
    blockSizeBytes: 640,
  };
  if (alias === 'p-chain') Object.assign(b, { l1ValidatorsAccruedFees: 52371237109, activeL1Validators: 1203, currentSupply: '459857431284419581' });
  if (proposerNodeId !== undefined) {
    b.proposerDetails = {
      proposerId: idFrom(`proposer/${alias}/${height}`),
      proposerParentId: idFrom(`proposer/${alias}/${height - 1n}`),
      proposerNodeId,
      proposerPChainHeight: Number(height) - 5,
      proposerTimestamp: timestamp,
    };
  }
  return b;
}

/** An L1 the fixture node once validated (inactive in the fake's default world). */
export const FAKE_OTHER_L1_SUBNET_ID = idFrom('l1/other-subnet');
/** The fixture node's inactive validation of {@link FAKE_OTHER_L1_SUBNET_ID}. */
export const FAKE_OTHER_L1_VALIDATION_ID = idFrom('l1/other-validation');
