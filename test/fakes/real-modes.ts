/**
 * Real-behaviour modes of the fake node: each function turns a fake node's
 * state into one way real AvalancheGo nodes behave that the fixture world
 * alone does not show. Each cites the AvalancheGo source it follows
 * (ava-labs/avalanchego, master at 1cf1fc3d, the commit the reference
 * fixtures were read at). Tests and the detection matrix build their
 * deployments from these, so the exporter is tested against what a real node
 * does, not only against its wire shapes. The modes the demo uses too are in
 * src/demo/modes.ts, re-exported here.
 */
import type { FakeCheck, FakeL1Uptime, FakeNodeState } from '../../src/demo/node-state.js';
import { createPrng, idFrom, randomNodeId } from '../../src/demo/ids.js';
import { rfc3339Nano } from '../../src/demo/wire.js';

// The modes the demo uses live with it (src/demo/modes.ts); the tests find them here too.
export { autoRenewing, partialSyncMode, pluginVmMode } from '../../src/demo/modes.js';

/**
 * An L1 chain with a primary alias (`--chain-aliases-file`): chains/manager.go
 * names the chain's health check by `PrimaryAliasOrDefault(chainID)` (the
 * alias, not the id) and tags it with its subnet id; the chain's APIs answer
 * under /ext/bc/<alias> as under /ext/bc/<id>; info.getBlockchainID resolves
 * the alias (api/info/service.go).
 */
export function aliasChain(state: FakeNodeState, chainId: string, alias: string): FakeNodeState {
  state.chainAliases = { ...state.chainAliases, [alias]: chainId };
  const check = state.health[chainId];
  if (check) {
    delete state.health[chainId];
    state.health[alias] = check;
  }
  for (const [tag, names] of Object.entries(state.healthTags)) state.healthTags[tag] = names.map((n) => (n === chainId ? alias : n));
  return state;
}

/**
 * An L1 chain still bootstrapping: its APIs answer 503 "API call rejected
 * because chain is not done bootstrapping" (api/server/server.go, the
 * handler a chain gets before it is done), and the `bootstrapped` check fails
 * listing its subnet (chains/manager.go Subnets.Bootstrapping).
 */
export function bootstrappingChain(state: FakeNodeState, chainId: string): FakeNodeState {
  state.bootstrapped[chainId] = false;
  return state;
}

/**
 * An L1 validator whose balance ran out: the P-Chain deactivates it and
 * reports `balance "0"` (vms/platformvm/api/validator.go BaseL1Validator:
 * "If the validator is inactive, the balance will be 0"), and Subnet-EVM's
 * validators API reports `isActive false` for it
 * (graft/subnet-evm/plugin/evm/service.go, from the P-Chain's view).
 */
export function inactiveL1Validator(state: FakeNodeState, validationId: string): FakeNodeState {
  for (const sub of Object.values(state.subnets)) {
    for (const v of sub.validators) if ('validationId' in v && v.validationId === validationId) v.balance = 0n;
  }
  for (const list of Object.values(state.l1Uptimes)) for (const v of list) if (v.validationId === validationId) v.isActive = false;
  return state;
}

/**
 * Adds a chain to an L1 the node tracks: the chain's health check, tagged
 * with its subnet id and named by its id (chains/manager.go), and its
 * Subnet-EVM validators API answering `validators` (its uptimes). Returns the
 * new chain's id (derived from `name`).
 */
export function addL1Chain(state: FakeNodeState, subnetId: string, name: string, validators: FakeL1Uptime[]): string {
  const id = idFrom(`chain:${name}`);
  state.blockchains.push({ id, name, subnetId, vmId: state.blockchains.find((b) => b.subnetId === subnetId)?.vmId ?? idFrom('vm:subnet-evm') });
  state.bootstrapped[id] = true;
  state.health[id] = {
    message: {
      engine: { consensus: { lastAcceptedHeight: 1, processingBlocks: 0 }, vm: null },
      networking: { disconnectedValidators: [], percentConnected: 1 },
    },
    timestamp: rfc3339Nano(),
    duration: 1000,
  };
  state.healthTags[subnetId] = [...(state.healthTags[subnetId] ?? []), id];
  state.l1Uptimes[id] = validators;
  state.heights[id] = 1n;
  const sub = state.subnets[subnetId];
  if (sub) sub.chains.push(id);
  return id;
}

/**
 * A validator that was offline for `offlineSeconds` and has just restarted,
 * as the restarted node itself reports it: snow/uptime/manager.go
 * CalculateUptime credits every validator, itself included, with the time
 * since its last update as "online" until tracking starts (StartTracking),
 * and a node is always connected to itself. So its own view of its uptime
 * (getCurrentValidators `uptime`, `connected`) stays where it was, near
 * 100 %. Only the network saw the outage: the peers' observed uptime of this
 * node (info.peers `observedUptime`) and info.uptime (api/info/service.go:
 * the stake-weighted average of what the peers observe, and the share of the
 * stake that sees it above the reward requirement) drop by the offline share
 * of the time since the validation started.
 */
export function restartedAfterOutage(state: FakeNodeState, offlineSeconds: number, nowSec = Math.floor(Date.now() / 1000), requirement = 0.8): FakeNodeState {
  const self = state.primaryValidators.find((v) => v.nodeId === state.nodeId);
  if (!self) throw new Error('the restarted node must be a primary validator in the fake state');
  self.uptime = Math.max(self.uptime, 99.9);
  self.connected = true;
  const seen = networkViewAfterOutage(self.startTime, offlineSeconds, nowSec);
  // A world that computes info.uptime (network/network.go NodeUptime) derives it from the peers' views set here.
  if (state.uptime !== 'computed') state.uptime = { weightedAveragePercentage: seen * 100, rewardingStakePercentage: seen >= requirement ? 100 : 0 };
  for (const p of state.peers) p.observedUptime = Math.floor(seen * 100);
  return state;
}

/**
 * The same outage as another node saw it: that node tracked the validator as
 * disconnected while it was offline, so its view of the validator's uptime
 * (getCurrentValidators `uptime` on the observer) drops, and `connected` is
 * false while `stillOffline`.
 */
export function observedOutage(
  state: FakeNodeState,
  nodeId: string,
  offlineSeconds: number,
  stillOffline: boolean,
  nowSec = Math.floor(Date.now() / 1000),
): FakeNodeState {
  const v = state.primaryValidators.find((x) => x.nodeId === nodeId);
  if (!v) throw new Error(`no primary validator ${nodeId} in the fake state`);
  v.uptime = networkViewAfterOutage(v.startTime, offlineSeconds, nowSec) * 100;
  v.connected = !stillOffline;
  return state;
}

/** Uptime since `startTime` with `offlineSeconds` of it offline (0..1). */
function networkViewAfterOutage(startTime: number, offlineSeconds: number, nowSec: number): number {
  const elapsed = Math.max(1, nowSec - startTime);
  return Math.max(0, Math.min(1, (elapsed - offlineSeconds) / elapsed));
}

/**
 * The node's public IP changed while it runs (a new address from the cloud
 * provider, a moved instance): utils/dynamicip/updater.go re-resolves the
 * public IP every `--public-ip-resolution-frequency` and sets the value that
 * api/info/service.go GetNodeIP reads (`i.myIP.Get()`), so info.getNodeIP
 * answers the new `ip:port` from then on, with the port unchanged.
 */
export function ipChangedMode(state: FakeNodeState, newIp: string): FakeNodeState {
  const port = /:(\d+)$/.exec(state.nodeIp)?.[1] ?? '9651';
  state.nodeIp = `${newIp.includes(':') ? `[${newIp}]` : newIp}:${port}`;
  return state;
}

/**
 * A node that does not track a subnet (no `--track-subnets` entry for it):
 * the chain manager never creates its chains (chains/manager.go), so there is
 * no route under /ext/bc/<chain>, no health check tagged with the subnet, and
 * platform.getBlockchainStatus answers `Created` for each of them: the chain is
 * in the accepted P-Chain state but not aliased on this node
 * (vms/platformvm/service.go GetBlockchainStatus). platform.getBlockchains
 * still lists them: it reads the P-Chain state, not the node's chains. The
 * node stays in the subnet's validator set if it was in it: an L1 validator in
 * this state pays its fee and validates nothing.
 */
export function untrackedSubnet(state: FakeNodeState, subnetId: string): FakeNodeState {
  const chains = new Set([...state.blockchains.filter((b) => b.subnetId === subnetId).map((b) => b.id), ...(state.subnets[subnetId]?.chains ?? [])]);
  const aliases = Object.entries(state.chainAliases ?? {})
    .filter(([, id]) => chains.has(id))
    .map(([a]) => a);
  for (const c of chains) {
    delete state.bootstrapped[c];
    delete state.health[c];
  }
  for (const a of aliases) {
    delete state.health[a];
    if (state.chainAliases) delete state.chainAliases[a];
  }
  delete state.healthTags[subnetId];
  return state;
}

/**
 * A node that runs a subnet's chains without being a validator of the
 * subnet: platform.getBlockchainStatus answers `Syncing` for them
 * (vms/platformvm/service.go GetBlockchainStatus: the chain is aliased but
 * nodeValidates finds no validator entry for the node). Removes the node's
 * own entries from the subnet's validator set.
 */
export function chainSyncing(state: FakeNodeState, subnetId: string): FakeNodeState {
  const sub = state.subnets[subnetId];
  if (sub) sub.validators = sub.validators.filter((v) => v.nodeId !== state.nodeId);
  return state;
}

/**
 * An L1 validation its validator manager removed: a SetL1ValidatorWeightTx
 * with weight 0 deletes the L1 validator from the P-Chain state and refunds
 * its remaining balance (vms/platformvm/txs/executor/standard_tx_executor.go
 * SetL1ValidatorWeightTx, `msg.Weight == 0`). From then on
 * platform.getCurrentValidators does not list it, platform.getL1Validator
 * answers "not found", and the L1's validators API (Subnet-EVM, from the
 * P-Chain's view) no longer lists it. Nothing reports it as inactive: it is
 * simply gone.
 */
export function removedL1Validation(state: FakeNodeState, validationId: string): FakeNodeState {
  for (const sub of Object.values(state.subnets)) sub.validators = sub.validators.filter((v) => !('validationId' in v) || v.validationId !== validationId);
  for (const [chain, list] of Object.entries(state.l1Uptimes)) state.l1Uptimes[chain] = list.filter((v) => v.validationId !== validationId);
  return state;
}

/**
 * A permissioned (PoA) subnet, not converted to an L1, whose validators are
 * legacy stakers with an end time (AddSubnetValidatorTx). When the P-Chain's
 * time passes a staker's end time it is removed without a reward
 * (vms/platformvm/txs/executor/state_changes.go AdvanceTimeTo: "Remove any
 * current stakers whose [EndTime] <= [newChainTime]", permissioned stakers
 * first); the fake's P-Chain clock (`pChainClock`, advancePChain in
 * p-chain-clock.ts) does the same. Adds the subnet with the node as a staker
 * ending at `endTime` and another staker; returns the subnet id.
 */
export function poaSubnet(state: FakeNodeState, name: string, endTime: number, nowSec = Math.floor(Date.now() / 1000)): string {
  const subnetId = idFrom(`poa-subnet:${name}`);
  const staker = (nodeId: string, end: number) => ({
    txId: idFrom(`poa-staker:${name}:${nodeId}`),
    nodeId,
    startTime: nowSec - 30 * 86_400,
    endTime: end,
    weight: 100n,
  });
  state.subnets[subnetId] = {
    l1: false,
    chains: [],
    validators: [staker(state.nodeId, endTime), staker(randomNodeId(createPrng(name.length + 4242)), nowSec + 200 * 86_400)],
  };
  return subnetId;
}

// ---------------------------------------------------------------------------
// Issue 22 (points 2, 5, 6): L1 health apart from the node's, chains that
// failed to start, restarts, stalls. Kept as one block.
// ---------------------------------------------------------------------------

/**
 * An L1 chain whose creation failed: the plugin is missing, or speaks another
 * RPCChainVM protocol after an upgrade. chains/manager.go createChain logs
 * "error creating chain" and returns before `m.chains[id] = …` and before
 * `m.Alias(id, id.String())`, so:
 * - the chain has no alias and no route (404 under /ext/bc/<id>), and
 *   info.isBootstrapped answers "there is no chain with alias/ID"
 *   (api/info/service.go, chainManager.Lookup fails);
 * - platform.getBlockchainStatus answers `Created` (vms/platformvm/service.go:
 *   Lookup fails, the accepted P-Chain state has the chain);
 * - a health check that always fails, "failed to create chain on subnet
 *   <subnet>: <cause>", without a message, is registered under
 *   `PrimaryAliasOrDefault(id)` (the id here: no `--chain-aliases-file` entry)
 *   and tagged with the subnet id;
 * - the subnet stays in the `bootstrapped` check's list for good (its chain
 *   was added as bootstrapping by QueueChainCreation and is never finished),
 *   so readiness never passes and /ext/health answers 503.
 */
export function failedChainStart(state: FakeNodeState, chainId: string, cause = 'plugin not found'): FakeNodeState {
  const subnetId = state.blockchains.find((b) => b.id === chainId)?.subnetId;
  if (subnetId === undefined) throw new Error(`no chain ${chainId} on the P-Chain of the fake state`);
  delete state.bootstrapped[chainId];
  delete state.l1Uptimes[chainId];
  delete state.heights[chainId];
  for (const [alias, id] of Object.entries(state.chainAliases ?? {})) {
    if (id !== chainId) continue;
    delete state.health[alias];
    if (state.chainAliases) delete state.chainAliases[alias];
  }
  const now = rfc3339Nano();
  state.health[chainId] = {
    error: `failed to create chain on subnet ${subnetId}: ${cause}`,
    timestamp: now,
    duration: 1000,
    contiguousFailures: 1,
    timeOfFirstFailure: now,
  };
  state.failedChains = { ...state.failedChains, [chainId]: cause };
  return state;
}

/**
 * The node restarted and bootstraps `chains` again (P, X and C by default):
 * a new process starts its health results over, so the readiness checks,
 * monotonic within one process (api/health/worker.go
 * RegisterMonotonicCheck), must pass anew; each chain answers 503 on its
 * APIs until it is done (see bootstrappingChain), and the `bootstrapped`
 * check fails listing the primary network meanwhile. While P bootstraps,
 * no other chain is created yet (chains/manager.go: the chain creator waits
 * for the P-Chain's bootstrap; chainCreated in src/demo/health.ts): X, C and
 * the L1 chains answer 404, have no health check, and their subnets are
 * listed as bootstrapping, as on the real v1.14.2. Set
 * `state.bootstrapped[chain] = true` to finish.
 */
export function restartBootstrapping(state: FakeNodeState, chains: readonly string[] = ['P', 'X', 'C']): FakeNodeState {
  delete state.readinessPassed;
  for (const c of chains) state.bootstrapped[c] = false;
  return state;
}

/**
 * Validators of a subnet gone offline, as this node's chains of the subnet
 * see it: each chain's health check reports the share of the chain's
 * validator stake it is connected to (snow/networking/handler/health.go
 * networkHealthCheck: `percentConnected`, `disconnectedValidators`) and fails
 * below MinPercentConnectedHealthy, 80 % with the default parameters
 * (snow/consensus/snowball/parameters.go: alpha 15 of k 20, buffer 0.2).
 * The set is the subnet's active validators (an L1 validator with balance 0
 * is inactive and not in it); the node is always connected to itself. The
 * Subnet-EVM validators API reports `isConnected false` for them.
 */
export function subnetValidatorsOffline(state: FakeNodeState, subnetId: string, nodeIds: readonly string[]): FakeNodeState {
  const sub = state.subnets[subnetId];
  if (!sub) throw new Error(`no subnet ${subnetId} in the fake state`);
  const offline = new Set(nodeIds);
  for (const chain of sub.chains) for (const v of state.l1Uptimes[chain] ?? []) if (offline.has(v.nodeId)) v.isConnected = false;
  const set = sub.validators.filter((v) => !('validationId' in v) || v.balance > 0n);
  const total = set.reduce((a, v) => a + Number(v.weight), 0);
  for (const chain of sub.chains) {
    const check = state.health[chain];
    if (!check) continue;
    const seen = new Set((state.l1Uptimes[chain] ?? []).filter((u) => !u.isConnected).map((u) => u.nodeId));
    for (const id of offline) seen.add(id);
    seen.delete(state.nodeId);
    const disconnected = set.filter((v) => seen.has(v.nodeId));
    const connected = total === 0 ? 1 : (total - disconnected.reduce((a, v) => a + Number(v.weight), 0)) / total;
    const message = (check.message ?? {}) as Record<string, unknown>;
    message['networking'] = { disconnectedValidators: disconnected.map((v) => v.nodeId).sort(), percentConnected: connected };
    check.message = message;
    setCheckError(
      check,
      connected < 0.8 ? `not connected to enough stake: connected to ${(connected * 100).toFixed(6)}%; required at least 80.000000%` : undefined,
    );
  }
  return state;
}

/**
 * An L1 chain that stalls: blocks are issued but none is accepted, so they
 * pile up as processing and the consensus health check fails once the oldest
 * has been processing longer than MaxItemProcessingTime, 30 s by default
 * (snow/consensus/snowman/topological.go HealthCheck: `processingBlocks`,
 * `longestProcessingBlock`, "block processing too long"; the engine's error
 * is the chain check's error, snow/networking/handler/health.go). The last
 * accepted height no longer moves.
 */
export function stalledChain(state: FakeNodeState, chainId: string, processingBlocks: number, longestSeconds: number): FakeNodeState {
  const check = state.health[chainId];
  if (!check) throw new Error(`no health check for chain ${chainId} in the fake state`);
  const message = (check.message ?? {}) as { engine?: { consensus?: Record<string, unknown> } };
  const consensus = { ...message.engine?.consensus, processingBlocks, longestProcessingBlock: `${longestSeconds}s` };
  check.message = { ...message, engine: { ...message.engine, consensus } };
  const engineError = longestSeconds > 30 ? `block processing too long: ${longestSeconds}s > 30s` : undefined;
  // The handler joins the engine's and the networking's errors when both fail.
  const networkingError = check.error?.startsWith('not connected to enough stake') ? check.error : undefined;
  setCheckError(check, engineError && networkingError ? `engine: ${engineError}; networking: ${networkingError}` : (engineError ?? networkingError));
  return state;
}

/** Sets or clears a stored check's error as the health worker would (api/health/worker.go runCheck). */
function setCheckError(check: FakeCheck, error: string | undefined): void {
  const now = rfc3339Nano();
  if (error === undefined) {
    delete check.error;
    delete check.contiguousFailures;
    delete check.timeOfFirstFailure;
  } else {
    check.error = error;
    check.contiguousFailures = (check.contiguousFailures ?? 0) + 1;
    check.timeOfFirstFailure ??= now;
  }
  check.timestamp = now;
}
