import type { DataApiNetwork } from '../../../data-api/client.js';
import type { PrimaryChain } from '../common/chains.js';

/** Validation statuses of the service, the `status` label values. */
export const VALIDATION_STATUSES = ['active', 'pending', 'completed', 'removed'] as const;

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
