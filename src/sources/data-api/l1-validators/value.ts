import type { DataApiNetwork } from '../../../data-api/client.js';

/** One L1 validation as the Data API lists it (`GET /v1/networks/{network}/l1Validators`). */
export interface DataApiL1Validation {
  validationId: string;
  nodeId: string;
  subnetId: string;
  /** Consensus weight (0 once the validator is removed). */
  weight: number;
  /** nAVAX left to pay the continuous fee, as of the answer's P-Chain height. */
  remainingBalanceNavax: number;
  /** Unix seconds of the registration, when given. */
  creationTimestamp?: number | undefined;
  /**
   * Whether the validator is active: weight and balance both non-zero, the
   * P-Chain's own rule (AvalancheGo `vms/platformvm/state/l1_validator.go`
   * `IsActive`: `Weight != 0 && EndAccumulatedFee != 0`; a balance used up
   * leaves EndAccumulatedFee at 0).
   */
  active: boolean;
}

/** The L1 validations of every watched node id, active and inactive. */
export interface DataApiL1ValidatorsValue {
  network: DataApiNetwork;
  nodes: { nodeId: string; validations: DataApiL1Validation[] }[];
}
