import type { ValidationLookup } from './validation-lookup.js';
/** A current validator as the exporter keeps it. */
export interface ValidatorRecord {
  nodeId: string;
  weight: bigint;
  startTime: number;
  endTime: number | undefined;
  validationId: string | undefined;
  balance: bigint | undefined;
  potentialReward: bigint | undefined;
  delegationFeeRatio: number | undefined;
  uptimeRatio: number | undefined;
  connected: boolean | undefined;
  delegatorCount: number | undefined;
  delegatorWeight: bigint | undefined;
  /** Auto-renewed validations: seconds of the next cycle, 0 when the validation stops at `endTime`; undefined for other validations. */
  nextPeriod: number | undefined;
  /** Auto-renewed validations: share of rewards restaked at each cycle's end, in millionths. */
  autoCompoundRewardShares: number | undefined;
}

/** The current validators of one subnet, and which ids were asked for. */
export interface SubnetValidators {
  subnetId: string;
  validators: ValidatorRecord[];
  /** Watched node ids that must be reported even when absent (active 0). */
  watched: string[];
  /** Validators left out because the set is larger than --watch.max-validators. */
  omitted: number;
}

/** The validator sets this node reports for what is watched. */
export interface ValidatorsValue {
  subnets: SubnetValidators[];
  /** Unix seconds when the sets were polled: the "now" of the downtime budget (collectors read no clock). */
  observedAt?: number;
  /** Activation of the upgrade that raises the reward uptime requirement (from the info source), undefined while unscheduled. */
  rewardUptimeUpgradeTime?: number;
  /** L1 validator fee (platform.getValidatorFeeState price), nAVAX per second per active L1 validator; polled only when subnets or validations are watched. */
  feePriceNavaxPerSecond?: number;
  /**
   * The primary-network ids the operator watches: the explicit --watch.node-id
   * list, or, by default, the node's own id (`ownIdByDefault`), which counts
   * as watched only while it validates. Alerts are for these ids only;
   * everyone else (--watch.all-validators) is exported for dashboards.
   */
  operatorWatched?: { ids: string[]; ownIdByDefault: boolean };
  /** Each watched validation id (--watch.validation-id) and whether platform.getL1Validator knows it (see validation-lookup.ts). */
  validations?: ValidationLookup[];
}
