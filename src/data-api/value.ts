import type { DataApiNetwork } from './client.js';

/** The chains the core calls P, X and C, by the service's blockchain aliases. */
export const DATA_API_CHAINS = [
  { chain: 'P', alias: 'p-chain' },
  { chain: 'X', alias: 'x-chain' },
  { chain: 'C', alias: 'c-chain' },
] as const;

/** Validation statuses of the service, the `status` label values. */
export const VALIDATION_STATUSES = ['active', 'pending', 'completed', 'removed'] as const;

/** A primary-network chain as labelled in the core (`P`, `X`, `C`). */
export type PrimaryChain = (typeof DATA_API_CHAINS)[number]['chain'];

/** One validation status. */
export type ValidationStatus = (typeof VALIDATION_STATUSES)[number];

/** One validation of a node as the exporter keeps it. */
export interface DataApiValidation {
  txHash: string;
  subnetId: string;
  status: ValidationStatus;
  startTimestamp: number;
  endTimestamp: number;
  /** nAVAX on the primary network; raw weight on a permissioned subnet. */
  amountStaked: bigint;
  amountDelegated?: bigint | undefined;
  delegationCapacity?: bigint | undefined;
  delegatorCount?: number | undefined;
  /** 0..1 */
  uptimeRatio?: number | undefined;
  version?: string | undefined;
  potentialValidationReward?: bigint | undefined;
  potentialDelegationReward?: bigint | undefined;
  /** 0..1 */
  reachabilityRatio?: number | undefined;
  /** Benched request share per chain, 0..1. */
  benchedRatio?: Partial<Record<PrimaryChain, number>> | undefined;
  /** Completed: the validation reward paid, nAVAX; 0 when it was denied. */
  validationReward?: bigint | undefined;
  /** Completed: the delegation fees paid to the validator, nAVAX. */
  delegationReward?: bigint | undefined;
  /** Removed (permissioned subnets): when the validator was removed, Unix seconds. */
  removeTimestamp?: number | undefined;
}

/** The validations of the watched nodes (newest first, as the service lists them). */
export interface DataApiValidatorsValue {
  network: DataApiNetwork;
  nodes: { nodeId: string; validations: DataApiValidation[] }[];
}

/** What is known of the blocks one validator proposed on one chain. */
export interface ProposerState {
  nodeId: string;
  chain: PrimaryChain;
  /** New proposed blocks seen since this exporter started watching (0 on the first poll). */
  count: number;
  /** The newest proposed block seen, if the node ever proposed one. */
  last?: { height: bigint; timestampSeconds: number } | undefined;
  /** Unix seconds of the first poll: for a node that had proposed nothing then, blocks from this time on are new. */
  sinceSeconds: number;
}

/** Proposed-block state of every watched node id. */
export interface DataApiNodeBlocksValue {
  network: DataApiNetwork;
  proposers: ProposerState[];
}

/** The latest block of a chain as the service has indexed it. */
export interface ChainHead {
  chain: PrimaryChain;
  height: bigint;
  timestampSeconds: number;
  /** P-Chain: active L1 validators after this block, when the service gave it. */
  activeL1Validators?: number | undefined;
  /** P-Chain: L1 validator fees accrued since Etna after this block, nAVAX, when the service gave it. */
  l1ValidatorsAccruedFeesNavax?: number | undefined;
}

/** Heads of the primary chains. */
export interface DataApiBlocksValue {
  network: DataApiNetwork;
  heads: ChainHead[];
}
