/**
 * The simulated node's state model: the plain mutable object `--demo` (and the tests' fake node,
 * built on the demo's) drive. A module of types only, so the world, clock, modes and server
 * modules all use it and none of them imports another to reach it.
 *
 * @packageDocumentation
 */

// ---------------------------------------------------------------------------------------------
// State model
// ---------------------------------------------------------------------------------------------

/** An `OutputOwners` (locktime, threshold, addresses), as used for reward and balance owners. */
export interface FakeOwner {
  /** Unix seconds; serialised as a decimal string. */
  locktime: number;
  /** Serialised as a decimal string. */
  threshold: number;
  /** Bech32 P-Chain addresses (`P-avax1…`). */
  addresses: string[];
}

/** BLS key and proof of possession, both `0x` lowercase hex. */
export interface FakeBlsSigner {
  publicKey: string;
  proofOfPossession: string;
}

/** One delegation to a primary-network validator. Its node ID is the validator's. */
export interface FakeDelegator {
  txId: string;
  /** Unix seconds. */
  startTime: number;
  /** Unix seconds. */
  endTime: number;
  /** Stake in nAVAX. */
  weight: bigint;
  /** Emitted only in the single-nodeID form of `platform.getCurrentValidators`. */
  rewardOwner?: FakeOwner;
  /** nAVAX. */
  potentialReward: bigint;
}

/**
 * Fields of an auto-renewed validator (AvalancheGo master only, not v1.14.2). When set, the
 * validator object carries `validatorAuthority`, `nextPeriod` and `autoCompoundRewardShares`.
 */
export interface FakeAutoRenew {
  validatorAuthority: FakeOwner;
  /** Seconds. */
  nextPeriod: number;
  /** Millionths. */
  autoCompoundRewardShares: number;
}

/** A primary-network validator as returned by `platform.getCurrentValidators`. */
export interface FakeValidator {
  txId: string;
  nodeId: string;
  /** Unix seconds. */
  startTime: number;
  /** Unix seconds. */
  endTime: number;
  /** The validator's own stake in nAVAX (delegations are separate). */
  weight: bigint;
  validationRewardOwner?: FakeOwner;
  delegationRewardOwner?: FakeOwner;
  /** nAVAX. */
  potentialReward: bigint;
  /** nAVAX. */
  accruedDelegateeReward: bigint;
  /** Percent 0–100, serialised with 4 decimals. */
  delegationFee: number;
  /** Percent 0–100 as seen by this node, serialised with 4 decimals. */
  uptime: number;
  connected: boolean;
  /** Omitted from the wire when absent (validator without a BLS key). */
  signer?: FakeBlsSigner;
  autoRenew?: FakeAutoRenew;
  /** `delegatorCount`/`delegatorWeight` are derived from this list. */
  delegators: FakeDelegator[];
}

/** A validator of an L1 (a subnet converted with ConvertSubnetToL1Tx). Discriminated by `validationId`. */
export interface FakeL1Validator {
  validationId: string;
  nodeId: string;
  /** Serialised as a decimal string. */
  weight: bigint;
  /** Unix seconds. */
  startTime: number;
  /** 48-byte compressed BLS key, `0x` hex. */
  publicKey: string;
  remainingBalanceOwner: FakeOwner;
  deactivationOwner: FakeOwner;
  minNonce: bigint;
  /** nAVAX left for the continuous fee; 0 when inactive. */
  balance: bigint;
}

/** A pre-L1 (permissioned) subnet staker: bare `{txID,startTime,endTime,weight,nodeID}` on the wire. */
export interface FakeLegacyStaker {
  txId: string;
  nodeId: string;
  startTime: number;
  endTime: number;
  weight: bigint;
}

/** A subnet known to the P-Chain. */
export interface FakeSubnet {
  /** True once converted to an L1. */
  l1: boolean;
  /** L1 validators (with `validationId`) and/or legacy stakers, in wire order. */
  validators: Array<FakeL1Validator | FakeLegacyStaker>;
  /** Blockchain IDs of the subnet's chains. */
  chains: string[];
  /** Answer of `platform.getCurrentSupply` for this subnet; absent → "not found" error like a real node. */
  supply?: bigint;
}

/** A blockchain as listed by `platform.getBlockchains`. */
export interface FakeBlockchain {
  id: string;
  name: string;
  subnetId: string;
  vmId: string;
}

/**
 * One health check result. Keys are serialised in Go's order: message, error, timestamp,
 * duration, contiguousFailures, timeOfFirstFailure; absent optional keys are omitted.
 */
export interface FakeCheck {
  /** Any JSON value (object keys are emitted sorted, as Go maps are). Omitted when undefined. */
  message?: unknown;
  error?: string;
  /** RFC3339Nano string (kept as a string because Go emits nanoseconds). */
  timestamp: string;
  /** Nanoseconds. */
  duration: number;
  contiguousFailures?: number;
  timeOfFirstFailure?: string;
}

/** A connected peer as listed by `info.peers`. */
export interface FakePeer {
  nodeId: string;
  /** Remote socket address (`ip:port`, `[v6]:port`). */
  ip: string;
  /** Signed claimed IP; `''` when unknown (the key is always emitted). */
  publicIp: string;
  /** `avalanchego/1.14.2`. */
  version: string;
  /** Unix seconds of the last upgrade the peer claims (a JSON number on the wire). */
  upgradeTime: number;
  /** Integer percent 0–100: this node's uptime as observed by the peer. */
  observedUptime: number;
  trackedSubnets: string[];
  supportedAcps?: number[];
  objectedAcps?: number[];
  /** Primary aliases of chains on which the peer is benched. */
  benched: string[];
  lastSent: Date;
  lastReceived: Date;
}

/** This node's own uptime (`info.uptime`), percent 0–100. */
export interface FakeUptime {
  rewardingStakePercentage: number;
  weightedAveragePercentage: number;
}

/** One entry of the Subnet-EVM `validators.getCurrentValidators` API (plain JSON numbers on the wire). */
export interface FakeL1Uptime {
  validationId: string;
  nodeId: string;
  weight: number;
  /** Unix seconds. */
  startTimestamp: number;
  isActive: boolean;
  isL1Validator: boolean;
  isConnected: boolean;
  /** Percent 0–100 (a float number, not a 4-decimal string). */
  uptimePercentage: number;
  uptimeSeconds: number;
}

/** The `info.upgrades` reply, serialised in insertion order (times are RFC3339 strings). */
export interface FakeUpgrades {
  apricotPhase1Time: string;
  apricotPhase2Time: string;
  apricotPhase3Time: string;
  apricotPhase4Time: string;
  apricotPhase4MinPChainHeight: number;
  apricotPhase5Time: string;
  apricotPhasePre6Time: string;
  apricotPhase6Time: string;
  apricotPhasePost6Time: string;
  banffTime: string;
  cortinaTime: string;
  cortinaXChainStopVertexID: string;
  durangoTime: string;
  etnaTime: string;
  fortunaTime: string;
  graniteTime: string;
  /** Nanoseconds. */
  graniteEpochDuration: number;
  heliconTime: string;
}

/** One ACP tally of `info.acps`. */
export interface FakeAcp {
  supportWeight: bigint;
  supporters: string[];
  objectWeight: bigint;
  objectors: string[];
  abstainWeight: bigint;
}

/** The deprecated `info.getTxFee` reply, nAVAX. */
export interface FakeTxFees {
  txFee: bigint;
  createAssetTxFee: bigint;
  createSubnetTxFee: bigint;
  transformSubnetTxFee: bigint;
  createBlockchainTxFee: bigint;
  addPrimaryNetworkValidatorFee: bigint;
  addPrimaryNetworkDelegatorFee: bigint;
  addSubnetValidatorFee: bigint;
  addSubnetDelegatorFee: bigint;
}

/** Last accepted heights: P, X, C and optionally L1 chains keyed by blockchain ID (for `/ext/bc/<id>/rpc`). */
export interface FakeHeights {
  P: bigint;
  X: bigint;
  C: bigint;
  [chainId: string]: bigint;
}

/** The P-Chain L1 validator fee state (`platform.getValidatorFeeState`). */
export interface FakeValidatorFeeState {
  excess: number;
  /** nAVAX per second per active L1 validator. */
  price: number;
  /** P-Chain time; serialised as whole-second RFC3339. */
  timestamp: Date;
}

/**
 * Everything the fake node answers from. Mutate freely between (or during) requests: every
 * request reads it fresh.
 */
export interface FakeNodeState {
  nodeId: string;
  /** `info.getNodeID` `nodePOP`; null for a node without a BLS signer. */
  nodePop: FakeBlsSigner | null;
  networkId: number;
  /** Overrides the name derived from {@link FakeNodeState.networkId} (mainnet, fuji, local, `network-<id>`). */
  networkName?: string;
  version: string;
  databaseVersion: string;
  gitCommit: string;
  rpcProtocolVersion: number;
  vmVersions: Record<string, string>;
  /** VM ID → aliases (`info.getVMs`). */
  vms: Record<string, string[]>;
  /** Fx ID → name (`info.getVMs`). */
  fxs: Record<string, string>;
  /** `ip:port`. */
  nodeIp: string;
  /** Blockchain IDs of the primary chains; P is the primary network ID on every network. */
  chainIds: { P: string; X: string; C: string };
  /** EVM chain IDs for `eth_chainId`, keyed by 'C' or an L1 blockchain ID. */
  evmChainIds: Record<string, number>;
  /** Chains known to the P-Chain (`platform.getBlockchains`, P excluded). */
  blockchains: FakeBlockchain[];
  /**
   * Chains this node runs, keyed 'P', 'X', 'C' or an L1 blockchain ID. A chain set to false
   * answers 503 on its `/ext/bc/…` routes, its health check reads `consensus: {}`, and the
   * `bootstrapped` health and readiness checks fail listing its subnet; an L1 chain that is not a
   * key here does not exist. While 'P' is false no other chain is created yet (chainCreated in
   * health.ts): their routes answer 404, they have no health check, info.isBootstrapped says false
   * for X and C and knows no chain by its id, and every subnet the node runs is listed as bootstrapping.
   */
  bootstrapped: Record<string, boolean>;
  /** Health checks of `/ext/health` and `health.health`, by name. */
  health: Record<string, FakeCheck>;
  /**
   * Subnet ID → names of checks registered under that tag. A chain's check (named P, X, C, an L1
   * chain's id or its primary alias) is tagged with its chain's subnet whatever this lists: the
   * fake computes that from `blockchains` and `subnets` as chains/manager.go does; this only
   * places checks that name no chain. Checks under no tag are application-wide.
   */
  healthTags: Record<string, string[]>;
  /**
   * L1 chains whose creation failed (plugin missing, RPCChainVM protocol mismatch), chain id →
   * the cause. See failedChainStart in test/fakes/real-modes.ts: such a chain is not created (no alias, no
   * route, info.isBootstrapped errors), a failing check stands under its name, and its subnet
   * stays in the `bootstrapped` check's list for good (chains/manager.go createChain).
   */
  failedChains?: Record<string, string>;
  /**
   * Readiness checks that have passed since the node (re)started, with the passing result:
   * api/health/health.go registers readiness checks with RegisterMonotonicCheck
   * (api/health/worker.go), so once one passes it passes for good, until a restart.
   */
  readinessPassed?: Record<string, FakeCheck>;
  /** Readiness checks (`/ext/health/readiness`). */
  readiness: Record<string, FakeCheck>;
  /** Liveness checks (`/ext/health/liveness`); empty on a real node. */
  liveness: Record<string, FakeCheck>;
  peers: FakePeer[];
  /**
   * info.uptime. `'computed'`: computed from the peers and the validator set as AvalancheGo's
   * network/network.go NodeUptime does (see nodeUptime in p-chain-clock.ts; "not a validator"
   * when the node is not in the set); the live worlds of the tests and the matrix use it. A
   * value: the answer recorded in the reference fixtures (a mainnet node's, whose 1,700 peers
   * the fixture world does not hold); null = this node is not a validator (info.uptime errors).
   */
  uptime: FakeUptime | null | 'computed';
  /**
   * The P-Chain's time moves with the clock: validations past their end time leave the set,
   * renew, or are removed (ACP-236 abort), as advancePChain in p-chain-clock.ts computes them
   * before each request. Off in the fixture world, whose validations ended months ago.
   */
  pChainClock?: boolean;
  upgrades: FakeUpgrades;
  /** ACP number (as a string key) → tally. Empty at v1.14.2. */
  acps: Record<string, FakeAcp>;
  txFees: FakeTxFees;
  primaryValidators: FakeValidator[];
  /** Subnet ID → subnet. The primary network is not listed here (see primaryValidators). */
  subnets: Record<string, FakeSubnet>;
  /** Blockchain ID → Subnet-EVM validators API entries. A chain listed here serves `/ext/bc/<id>/validators`. */
  l1Uptimes: Record<string, FakeL1Uptime[]>;
  heights: FakeHeights;
  validatorFeeState: FakeValidatorFeeState;
  /** Primary network `platform.getCurrentSupply`, nAVAX. */
  currentSupply: bigint;
  /**
   * `--partial-sync-primary-network`: the node runs only the P-Chain of the primary network
   * (vms/platformvm/vm.go initBlockchains skips the primary network's chains), so `/ext/bc/X`
   * and `/ext/bc/C/*` answer 404 (no route was ever registered) while the aliases X and C still
   * resolve (node/node.go registers them from the genesis) and info.isBootstrapped says false for
   * them (chains/manager.go IsBootstrapped: no such chain), while their ids name no chain (a chain's
   * id becomes an alias when it is created). See chainCreated in health.ts and partialSyncMode in modes.ts,
   * which also shapes the health report.
   */
  partialSync?: boolean;
  /**
   * Primary aliases of L1 chains (`--chain-aliases-file`), alias → blockchain id. The chain's
   * health check is named by its primary alias (chains/manager.go `PrimaryAliasOrDefault`), its
   * API answers under both names, and info.getBlockchainID resolves the alias. See aliasChain in
   * test/fakes/real-modes.ts.
   */
  chainAliases?: Record<string, string>;
  /**
   * Native balances in wei for `eth_getBalance`, keyed by 'C' or an L1 blockchain ID, then by
   * lower-case `0x` address. An address not listed has 0, as on a real chain.
   */
  evmBalances?: Record<string, Record<string, bigint>>;
}
