/** One health check as exported. */
export interface HealthCheck {
  name: string;
  passing: boolean;
  contiguousFailures: number;
  /** Unix seconds of the first failure, only while failing. */
  failingSince: number | undefined;
}

/**
 * What a chain's health check says about the chain's validators
 * (`message.networking` of the checks keyed `P`, `X`, `C` or an L1's
 * blockchain id; AvalancheGo's snow/networking/handler/health.go).
 */
export interface ChainNetworking {
  /** The check's name: the chain's primary alias or blockchain id. */
  chain: string;
  /** Share of the chain's validator stake this node is connected to (0..1; `percentConnected`, already a fraction). */
  connectedStakeRatio: number | undefined;
  /** Validators of the chain this node is not connected to; undefined before AvalancheGo v1.11.11, which did not list them. */
  disconnectedCount: number | undefined;
  /** Each watched node id and whether the check lists it as disconnected; empty when the check lists nothing. */
  watched: { nodeId: string; disconnected: boolean }[];
}

/**
 * What the `futureupgrade` health check tells (node/node.go): the latest
 * upgrade time this node's version knows, and the upgrade time most of the
 * primary-network stake among its peers runs (each peer reports its own
 * `upgradeTime` in the handshake). AvalancheGo fails the check from a day
 * before that time when the node does not know it; these figures show it
 * coming weeks ahead.
 */
export interface FutureUpgrade {
  /** `localUpgradeTime`, Unix seconds. */
  localTime: number | undefined;
  /** `modeUpgradeTime`: the upgrade time with the most stake, Unix seconds. */
  stakeModeTime: number | undefined;
  /** `modeUpgradeWeightPercentage` / 100: that upgrade time's share of the stake (0..1). */
  stakeModeRatio: number | undefined;
  /** `numUpgradeTimes`: distinct upgrade times among the validator peers. */
  distinctTimes: number | undefined;
}

/** What the health source reports. */
export interface HealthValue {
  healthy: boolean;
  /** The node runs only the P-Chain of the primary network (`--partial-sync-primary-network`; see isPartialSyncReport). */
  partialSync: boolean;
  ready: boolean;
  live: boolean;
  checks: HealthCheck[];
  /** The `futureupgrade` check's details, when it has any. */
  futureUpgrade?: FutureUpgrade;
  /**
   * The node's own health, apart from the L1s it tracks: every application-wide
   * check and every primary-network chain check passes (/ext/health?tag=<primary
   * network id>), the `bootstrapped` check counted only while it lists the
   * primary network. Undefined when that report could not be read.
   */
  primaryHealthy?: boolean;
  /**
   * The subnets the `bootstrapped` check lists as having a chain still
   * bootstrapping (chains/manager.go Subnets.Bootstrapping; the primary
   * network for P, X and C), sorted; empty when it passes. A subnet with a
   * chain that failed to start stays listed for good. Undefined when the
   * check is absent or says nothing readable.
   */
  bootstrappingSubnets?: string[];
  /** Per chain check, the networking details (set by the poll, which knows the watched ids). */
  networking?: ChainNetworking[];
}
