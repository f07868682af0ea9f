/**
 * The fixture world: the state of a mainnet v1.14.2 validator taken from the reference fixtures,
 * written as TypeScript literals because the runtime image does not ship the fixtures. The demo
 * builds its nodes from it; the tests' fake node answers from it by default.
 *
 * @packageDocumentation
 */
import type { FakeBlsSigner, FakeCheck, FakeNodeState, FakeOwner } from './node-state.js';

/** The primary network's subnet ID, which is also the P-Chain's blockchain ID on every network. */
import { PRIMARY_NETWORK_ID } from '../domain/ids.js';
export { PRIMARY_NETWORK_ID };

/** Mainnet blockchain IDs of the primary chains. */
export const MAINNET_CHAIN_IDS = {
  P: PRIMARY_NETWORK_ID,
  X: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
  C: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
} as const;

/** IDs of the fixture world, exported so tests and the demo can refer to them by name. */
export const FIXTURE_IDS = {
  /** The node itself (a primary-network validator). */
  nodeId: 'NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD',
  /** A primary-network validator that is disconnected (uptime 0). */
  disconnectedValidatorNodeId: 'NodeID-PtGRyk3H8tq5BYupng51dfnFXpwJMRvjp',
  /** The L1 subnet the node validates. */
  l1SubnetId: '2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91',
  /** The L1's Subnet-EVM chain. */
  l1ChainId: 'E6u8tgmrdLbw7Q35UpAccW88XC5nAKbiKADbqZ8ZXhbMEd6vk',
  /** This node's L1 validation ID. */
  l1ValidationId: '2wTscvX3JUsMbZHFRd9t8Ywz2q9j2BmETg8cTvgUHgawjbSvZX',
  /** The inactive (balance 0) L1 validator. */
  l1InactiveNodeId: 'NodeID-JBJCCt8J7Ww5MWPxYdrepWDs9xa1y42mq',
  /** A legacy permissioned subnet the node validates. */
  legacySubnetId: '2SjTv8xi4MayzPvgmmhQXbw3ZMdDnEauNqbJUpkh3wPEHR15Kd',
  /** The subnet-evm VM ID. */
  subnetEvmVmId: 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy',
} as const;

/** Unix seconds of the fixtures' capture time (2026-08-22T15:40:31Z); generators use it as "now" by default. */
export const FIXTURE_NOW = 1787413231;

/** Unix seconds of the Granite upgrade, what up-to-date peers report as `upgradeTime`. */
export const GRANITE_TIME = 1763568000;

// ---------------------------------------------------------------------------------------------
// The fixture world
// ---------------------------------------------------------------------------------------------

// Functions rather than shared constants: structuredClone keeps shared references shared, and a
// test mutating one validator's owner must not change another's.
const selfPop = (): FakeBlsSigner => ({
  publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
  proofOfPossession:
    '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98',
});
const rewardOwner = (): FakeOwner => ({ locktime: 0, threshold: 1, addresses: ['P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5'] });
const l1Owner = (): FakeOwner => ({ locktime: 0, threshold: 1, addresses: ['P-avax1ywzvrftfqexh5g6qa9zyrytj6pqdfetz3cnlnv'] });
const emptyOwner = (): FakeOwner => ({ locktime: 0, threshold: 0, addresses: [] });

const CHECK_TIME = '2026-08-22T15:40:31.201342108Z';
const DISCONNECTED = ['NodeID-2qttvwJUvXYidkULychAeWAjabr2bX9nr', 'NodeID-NSdwQKfN7mYeepf1jKqAHn9o3UjhhVFju'];

/**
 * What a chain check's `engine.vm` holds: null for the primary network's chains, which run in the node's own process
 * and report no VM health; for a chain whose VM is a plugin (every L1's), the plugin's report as the rpcchainvm
 * server writes it (vms/rpcchainvm/vm_server.go Health: `{"database": <its database's health>, "health": <the VM's>}`),
 * here Subnet-EVM's, whose HealthCheck returns nil (graft/subnet-evm/plugin/evm/health.go).
 */
const PLUGIN_VM_HEALTH = { database: null, health: null };

function chainCheck(
  height: number,
  lastAcceptedId: string,
  avgAcceptanceTime: string,
  duration: number,
  disconnected = DISCONNECTED,
  vm: typeof PLUGIN_VM_HEALTH | null = null,
): FakeCheck {
  return {
    message: {
      engine: {
        consensus: {
          avgAcceptanceTime,
          lastAcceptedHeight: height,
          lastAcceptedID: lastAcceptedId,
          longestProcessingBlock: '0s',
          processingBlocks: 0,
        },
        vm,
      },
      networking: { disconnectedValidators: [...disconnected], percentConnected: disconnected.length === 0 ? 1 : 0.9987321843 },
    },
    timestamp: CHECK_TIME,
    duration,
  };
}

/** Built once; {@link defaultFakeState} hands out deep copies. */
const BASE_STATE: FakeNodeState = {
  nodeId: FIXTURE_IDS.nodeId,
  nodePop: selfPop(),
  networkId: 1,
  version: 'avalanchego/1.14.2',
  databaseVersion: 'v1.4.5',
  gitCommit: '6e5acf909c7a16b991142d6b3979bac5699bdb68',
  rpcProtocolVersion: 45,
  vmVersions: { avm: 'avalanchego/1.14.2', evm: 'v1.14.2', platform: 'avalanchego/1.14.2' },
  vms: {
    jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq: ['avm'],
    mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6: ['evm'],
    rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT: ['platform'],
  },
  fxs: {
    spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ: 'secp256k1fx',
    qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT: 'nftfx',
    rXJsCSEYXg2TehWxCEEGj6JU2PWKTkd6cBdNLjoe2SpsKD9cy: 'propertyfx',
  },
  nodeIp: '203.0.113.10:9651',
  chainIds: { ...MAINNET_CHAIN_IDS },
  evmChainIds: { C: 43114, [FIXTURE_IDS.l1ChainId]: 8021 },
  blockchains: [
    { id: MAINNET_CHAIN_IDS.X, name: 'X-Chain', subnetId: PRIMARY_NETWORK_ID, vmId: 'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq' },
    { id: MAINNET_CHAIN_IDS.C, name: 'C-Chain', subnetId: PRIMARY_NETWORK_ID, vmId: 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6' },
    { id: FIXTURE_IDS.l1ChainId, name: 'fixture-l1', subnetId: FIXTURE_IDS.l1SubnetId, vmId: FIXTURE_IDS.subnetEvmVmId },
  ],
  bootstrapped: { P: true, X: true, C: true, [FIXTURE_IDS.l1ChainId]: true },
  health: {
    C: chainCheck(71234567, '25nATv9xurAk8278QJmUfXgrEHqsWeFhBwZtjT3KSq438wyZ6V', '1.612347819s', 20375),
    P: chainCheck(23797323, '2Ho4bSVomxApQiMSiKPsZqW2im8SESkTNeupMbCwCPxEDF1dAu', '2.004117s', 8750),
    X: chainCheck(5094088, '2SadG71yK5JDTiCUwLNaKkeuyDzEQrtCS7ZcsZW4o6dzBuv7zZ', '1.0873s', 23291),
    // AvalancheGo v1.14.2 writes avgAcceptanceTime in every snowman chain's check, an L1's too
    // (snow/consensus/snowman/topological.go HealthCheck); the local network's nodes show it.
    [FIXTURE_IDS.l1ChainId]: chainCheck(184467, '291tJrHp7cUmpFrsp79StaRwsS7gx1zDfA5SqtS9FpuQAWF2hs', '2.931s', 14102, [], PLUGIN_VM_HEALTH),
    bls: { message: 'node has the correct BLS key', timestamp: CHECK_TIME, duration: 8792 },
    bootstrapped: { message: [], timestamp: CHECK_TIME, duration: 3375 },
    database: { timestamp: CHECK_TIME, duration: 1959 },
    diskspace: {
      message: { availableDiskBytes: 812345671680, availableDiskPercentage: 61 },
      timestamp: CHECK_TIME,
      duration: 3042,
    },
    futureupgrade: {
      message: {
        localUpgradeTime: '2025-11-19T16:00:00Z',
        modeUpgradeTime: '2025-11-19T16:00:00Z',
        modeUpgradeWeightPercentage: 99.41236417,
        numUpgradeTimes: 2,
      },
      timestamp: CHECK_TIME,
      duration: 6504333,
    },
    network: {
      message: {
        connectedPeers: 1784,
        'primary network validator health': { ingressConnectionCount: 812, primaryNetworkValidator: true },
        sendFailRate: 0.0004127,
        timeSinceLastMsgReceived: '12.04ms',
        timeSinceLastMsgSent: '3.301ms',
      },
      timestamp: CHECK_TIME,
      duration: 2333,
    },
    router: {
      message: { longestRunningRequest: '281.559ms', outstandingRequests: 14 },
      timestamp: CHECK_TIME,
      duration: 3542,
    },
  },
  healthTags: {
    [PRIMARY_NETWORK_ID]: ['C', 'P', 'X'],
    [FIXTURE_IDS.l1SubnetId]: [FIXTURE_IDS.l1ChainId],
  },
  readiness: { bootstrapped: { message: [], timestamp: CHECK_TIME, duration: 2834 } },
  liveness: {},
  peers: [
    {
      nodeId: 'NodeID-8PYXX47kqLDe2wD4oPbvRRchcnSzMA4J4',
      ip: '206.189.137.87:9651',
      publicIp: '206.189.137.87:9651',
      version: 'avalanchego/1.14.2',
      upgradeTime: GRANITE_TIME,
      observedUptime: 99,
      trackedSubnets: [],
      benched: [],
      lastSent: new Date('2026-08-22T15:40:31Z'),
      lastReceived: new Date('2026-08-22T15:40:30Z'),
    },
    {
      nodeId: 'NodeID-C14fr1n8EYNKyDfYixJ3rxSAVqTY3a8BP',
      ip: '158.255.67.151:41840',
      publicIp: '158.255.67.151:9651',
      version: 'avalanchego/1.14.1',
      upgradeTime: GRANITE_TIME,
      observedUptime: 75,
      trackedSubnets: ['29uVeLPJB1eQJkzRemU8g8wZDw5uJRqpab5U2mX9euieVwiEbL'],
      benched: ['C'],
      lastSent: new Date('2026-08-22T15:40:31Z'),
      lastReceived: new Date('2026-08-22T15:40:29Z'),
    },
    {
      nodeId: 'NodeID-LPbcSMGJ4yocxYxvS2kBJ6umWeeFbctYZ',
      ip: '[2001:db8::17]:9651',
      publicIp: '[2001:db8::17]:9651',
      version: 'avalanchego/1.14.2',
      upgradeTime: GRANITE_TIME,
      observedUptime: 0,
      trackedSubnets: [],
      benched: [],
      lastSent: new Date('2026-08-22T15:40:31Z'),
      lastReceived: new Date('2026-08-22T15:40:31Z'),
    },
  ],
  uptime: { rewardingStakePercentage: 100, weightedAveragePercentage: 99.7214 },
  upgrades: {
    apricotPhase1Time: '2021-03-31T14:00:00Z',
    apricotPhase2Time: '2021-05-10T11:00:00Z',
    apricotPhase3Time: '2021-08-24T14:00:00Z',
    apricotPhase4Time: '2021-09-22T21:00:00Z',
    apricotPhase4MinPChainHeight: 793005,
    apricotPhase5Time: '2021-12-02T18:00:00Z',
    apricotPhasePre6Time: '2022-09-05T01:30:00Z',
    apricotPhase6Time: '2022-09-06T20:00:00Z',
    apricotPhasePost6Time: '2022-09-07T03:00:00Z',
    banffTime: '2022-10-18T16:00:00Z',
    cortinaTime: '2023-04-25T15:00:00Z',
    cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
    durangoTime: '2024-03-06T16:00:00Z',
    etnaTime: '2024-12-16T17:00:00Z',
    fortunaTime: '2025-04-08T15:00:00Z',
    graniteTime: '2025-11-19T16:00:00Z',
    graniteEpochDuration: 300000000000,
    heliconTime: '9999-12-01T00:00:00Z',
  },
  acps: {},
  txFees: {
    txFee: 1000000n,
    createAssetTxFee: 10000000n,
    createSubnetTxFee: 1000000000n,
    transformSubnetTxFee: 10000000000n,
    createBlockchainTxFee: 1000000000n,
    addPrimaryNetworkValidatorFee: 0n,
    addPrimaryNetworkDelegatorFee: 0n,
    addSubnetValidatorFee: 1000000n,
    addSubnetDelegatorFee: 1000000n,
  },
  primaryValidators: [
    {
      txId: '2NNkpYTGfTFLSGXJcHtVv6drwVU2cczhmjK2uhvwDyxwsjzZMm',
      nodeId: FIXTURE_IDS.nodeId,
      startTime: 1751400000,
      endTime: 1782936000,
      weight: 2000000000000n,
      validationRewardOwner: rewardOwner(),
      delegationRewardOwner: rewardOwner(),
      potentialReward: 117431493426n,
      accruedDelegateeReward: 1834190n,
      delegationFee: 2,
      uptime: 99.8712,
      connected: true,
      signer: selfPop(),
      delegators: [
        {
          txId: 'Bbai8nzGVcyn2VmeYcbS74zfjJLjDacGNVuzuvAQkHn1uWfoV',
          startTime: 1755000000,
          endTime: 1767000000,
          weight: 25000000000n,
          rewardOwner: rewardOwner(),
          potentialReward: 11743144774n,
        },
      ],
    },
    {
      txId: '2Uhk3dioe41RX6jTC133Zi51xpQDj4UyLnnXcMBKRpiz5GHD49',
      nodeId: FIXTURE_IDS.disconnectedValidatorNodeId,
      startTime: 1754000000,
      endTime: 1785536000,
      weight: 3000000000000n,
      validationRewardOwner: rewardOwner(),
      delegationRewardOwner: rewardOwner(),
      potentialReward: 176147240139n,
      accruedDelegateeReward: 0n,
      delegationFee: 5,
      uptime: 0,
      connected: false,
      signer: {
        publicKey: '0xa4a3a62917f1761ad082f8373acf9eef13c889331b842c3a0e30c2da18ce5b36a12cd4f605e96afd883f5394842d2143',
        proofOfPossession:
          '0x6f19994b6b04b52bfaec772f2aad7e6c0a08e7415b8278ed9791c35dcb51bc0eb287f190210e4798a3c26385efa0168a7bd6fd692afcb016bc12dd5dc18c6f44ccabad863881e19ed601e5da09e16b1d2281f118b8fd9c4d5927bc0e843ad033',
      },
      delegators: [],
    },
  ],
  subnets: {
    [FIXTURE_IDS.l1SubnetId]: {
      l1: true,
      chains: [FIXTURE_IDS.l1ChainId],
      validators: [
        {
          nodeId: FIXTURE_IDS.nodeId,
          weight: 20n,
          startTime: 1734034648,
          validationId: FIXTURE_IDS.l1ValidationId,
          publicKey: '0x91951771ff32b1a985a4936592bce8512a986353c4c2eb5a0f12dbb76bda3a0a0c975e26413ff44c0ee9d8d689eff8ed',
          remainingBalanceOwner: l1Owner(),
          deactivationOwner: l1Owner(),
          minNonce: 0n,
          balance: 8780477952n,
        },
        {
          nodeId: FIXTURE_IDS.l1InactiveNodeId,
          weight: 20n,
          startTime: 1734034700,
          validationId: 'H7Fjzmi4BY6PA9QaNF9GnuMDojjzZ3mcSu5k1z3R4pD6Exj7c',
          publicKey: '0x7c6fb47fde3fbd64aa08cb01d30450ee7cbf6e217a14475468ac81c1388ee10beb3938f6af1db5dfe1f443f2e611ed03',
          remainingBalanceOwner: emptyOwner(),
          deactivationOwner: emptyOwner(),
          minNonce: 2n,
          balance: 0n,
        },
      ],
    },
    [FIXTURE_IDS.legacySubnetId]: {
      l1: false,
      chains: [],
      validators: [
        {
          txId: 'iXrPvoJuA8RgGU27jRa5uASjivnyXewQEC9FTwiu9AyuNrF1q',
          startTime: 1740000000,
          endTime: 1800000000,
          weight: 20n,
          nodeId: FIXTURE_IDS.nodeId,
        },
      ],
    },
  },
  l1Uptimes: {
    [FIXTURE_IDS.l1ChainId]: [
      {
        validationId: FIXTURE_IDS.l1ValidationId,
        nodeId: FIXTURE_IDS.nodeId,
        weight: 20,
        startTimestamp: 1734034648,
        isActive: true,
        isL1Validator: true,
        isConnected: true,
        uptimePercentage: 99.98,
        uptimeSeconds: 22636544,
      },
      {
        validationId: 'H7Fjzmi4BY6PA9QaNF9GnuMDojjzZ3mcSu5k1z3R4pD6Exj7c',
        nodeId: FIXTURE_IDS.l1InactiveNodeId,
        weight: 20,
        startTimestamp: 1734034700,
        isActive: false,
        isL1Validator: true,
        isConnected: false,
        uptimePercentage: 61.2,
        uptimeSeconds: 13852210,
      },
    ],
  },
  heights: { P: 23797323n, X: 5094088n, C: 0x43ef8a7n, [FIXTURE_IDS.l1ChainId]: 184467n },
  validatorFeeState: { excess: 26956, price: 512, timestamp: new Date('2026-08-22T15:40:29Z') },
  currentSupply: 459857431284419581n,
};

/**
 * The fixture world: node NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD, a mainnet v1.14.2 primary
 * validator with two primary validators in view (one disconnected), the L1 subnet
 * {@link FIXTURE_IDS.l1SubnetId} with its Subnet-EVM chain and two L1 validators (one inactive),
 * a legacy permissioned subnet, the three fixture peers and all checks healthy.
 *
 * @returns a fresh deep copy on every call, so tests can mutate it freely.
 */
export function defaultFakeState(): FakeNodeState {
  return structuredClone(BASE_STATE);
}
