/**
 * The demo node's health API: `/ext/health` (and its readiness and liveness reports, by GET or
 * the `health.*` JSON-RPC methods) computed from the node's state as AvalancheGo computes it
 * (api/health: checks by tag, readiness monotonic, the `bootstrapped` check from the chains
 * still bootstrapping, no check for a chain not created yet), and the health worker's way of
 * failing and passing a check. It also holds the rule of which chains the node has created
 * ({@link chainCreated}), which the routes and info.isBootstrapped read too.
 *
 * @packageDocumentation
 */
import { PRIMARY_NETWORK_ID } from './fixture-world.js';
import type { FakeCheck, FakeNodeState } from './node-state.js';
import { compareBytes, isPlainObject, optStringArray, rfc3339Nano, sortKeysDeep, type Handler } from './wire.js';

/** Which of the node's three health reports. */
export type HealthReport = 'health' | 'readiness' | 'liveness';

function checkWire(c: FakeCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.message !== undefined) out['message'] = sortKeysDeep(c.message);
  if (c.error !== undefined) out['error'] = c.error;
  out['timestamp'] = c.timestamp;
  out['duration'] = c.duration;
  if (c.contiguousFailures !== undefined && c.contiguousFailures !== 0) out['contiguousFailures'] = c.contiguousFailures;
  if (c.timeOfFirstFailure !== undefined) out['timeOfFirstFailure'] = c.timeOfFirstFailure;
  return out;
}

/**
 * Whether the node runs the chain at all (a state key: P, X, C or an L1 chain id): P, X, C and every
 * L1 chain in `state.bootstrapped`, but not X and C under `--partial-sync-primary-network`
 * (vms/platformvm/vm.go initBlockchains skips the primary network's chains, so they are never even queued).
 */
function chainRun(state: FakeNodeState, key: string): boolean {
  if (state.partialSync && (key === 'X' || key === 'C')) return false;
  return key === 'P' || key === 'X' || key === 'C' || Object.hasOwn(state.bootstrapped, key);
}

/**
 * Whether the node has created the chain (a state key: P, X, C or an L1 chain id), and so has its
 * routes, its health check and its id as an alias. The one place the fake decides it: the routes
 * (node-server.ts), the health report (here) and info.isBootstrapped (rpc-info.ts) all read it.
 *
 * The P-Chain is created at start-up; every other chain only once the P-Chain has bootstrapped:
 * chains/manager.go StartChainCreator creates P synchronously, and dispatchChainCreator waits on
 * `unblockChainCreatorCh`, which only the P-Chain's bootstrap closes, before it creates the chains
 * queued meanwhile. So while P bootstraps the real v1.14.2 answers 404 on /ext/bc/X and
 * /ext/bc/C/rpc and lists no X, C or L1 check (seen on the stuck node of
 * test/real-network/conformance.test.ts). Never X and C under partial sync.
 */
export function chainCreated(state: FakeNodeState, key: string): boolean {
  if (key === 'P') return true;
  return chainRun(state, key) && state.bootstrapped['P'] !== false;
}

/**
 * Whether the chain has a health check: once created, and also once its creation failed (chains/manager.go
 * createChain registers a failing check under it then), which likewise happens only after the P-Chain has
 * bootstrapped.
 */
function chainHasCheck(state: FakeNodeState, key: string): boolean {
  return chainCreated(state, key) || (Object.hasOwn(state.failedChains ?? {}, key) && state.bootstrapped['P'] !== false);
}

/**
 * The chain a check is the health check of (its state key), or undefined for a check that names no
 * chain: P, X, C, an L1 chain's primary alias (`--chain-aliases-file`) or id, a chain that failed to
 * start (its failing check stands under its id).
 */
function chainOfCheck(state: FakeNodeState, name: string): string | undefined {
  if (name === 'P' || name === 'X' || name === 'C') return name;
  const aliased = state.chainAliases?.[name];
  if (aliased !== undefined) return aliased;
  if (Object.hasOwn(state.bootstrapped, name) || Object.hasOwn(state.failedChains ?? {}, name)) return name;
  return undefined;
}

/**
 * A created chain's check while it bootstraps: the bootstrapper is the chain's engine then, and its
 * part of the check reads `consensus: {}` (snow/engine/snowman/bootstrap/bootstrapper.go
 * HealthCheck; snow/networking/handler/health.go puts it under `engine`), with no height and no
 * processing blocks. The rest (the VM's part, `networking`) stays as stored.
 */
function bootstrappingCheck(stored: FakeCheck): FakeCheck {
  if (!isPlainObject(stored.message) || !isPlainObject(stored.message['engine'])) return stored;
  return { ...stored, message: { ...stored.message, engine: { ...stored.message['engine'], consensus: {} } } };
}

/**
 * The tag a health check is registered under: a chain's check (P, X, C, an L1 chain's id or
 * primary alias, created or failed) under its chain's subnet id (chains/manager.go
 * `RegisterHealthCheck(primaryAlias, h, ctx.SubnetID.String())`, and the failing check of a
 * chain that could not be created likewise); another check under the tag `healthTags` gives
 * it; undefined for an application-wide check (node/node.go, `health.ApplicationTag`).
 */
function checkTag(state: FakeNodeState, name: string): string | undefined {
  if (name === 'P' || name === 'X' || name === 'C') return PRIMARY_NETWORK_ID;
  const id = state.chainAliases?.[name] ?? name;
  const subnet = state.blockchains.find((b) => b.id === id)?.subnetId ?? Object.entries(state.subnets).find(([, sn]) => sn.chains.includes(id))?.[0];
  if (subnet !== undefined) return subnet;
  return Object.entries(state.healthTags).find(([, names]) => names.includes(name))?.[0];
}

/**
 * Subnets with a chain still bootstrapping, sorted: the primary network for P, X and C, else the
 * subnet the chain belongs to. A chain is bootstrapping when `state.bootstrapped[chain] === false`,
 * and so is every chain the node runs while the P-Chain bootstraps: the P-Chain's Initialize queued
 * them (vms/platformvm/vm.go initBlockchains, chains/manager.go QueueChainCreation, which adds each
 * to its subnet's bootstrapping set: subnets/subnet.go AddChain), and none is created before P is
 * done (see {@link chainCreated}). A chain whose creation failed stays listed for good: only a
 * finished bootstrap removes it (chains/manager.go createChain returns on the error without doing so).
 */
function bootstrappingSubnets(state: FakeNodeState): string[] {
  const out = new Set<string>();
  for (const chain of Object.keys(state.failedChains ?? {})) {
    out.add(state.blockchains.find((b) => b.id === chain)?.subnetId ?? chain);
  }
  for (const [chain, done] of Object.entries(state.bootstrapped)) {
    if (!chainRun(state, chain)) continue;
    if (done && chainCreated(state, chain)) continue;
    if (chain === 'P' || chain === 'X' || chain === 'C') {
      out.add(PRIMARY_NETWORK_ID);
      continue;
    }
    const subnet =
      state.blockchains.find((b) => b.id === chain)?.subnetId ??
      Object.entries(state.subnets).find(([, sn]) => sn.chains.includes(chain))?.[0] ??
      Object.entries(state.healthTags).find(([, names]) => names.includes(chain))?.[0] ??
      // A chain of no known subnet still fails the check; name it by itself.
      chain;
    out.add(subnet);
  }
  return [...out].sort(compareBytes);
}

/**
 * The `bootstrapped` check (health and readiness) consistent with `state.bootstrapped`, as
 * AvalancheGo's `Subnets.Bootstrapping()` (chains/manager.go) reports it: while any chain
 * bootstraps it fails with `subnets not bootstrapped` and lists the subnets still
 * bootstrapping (the fixture's `unhealthy-bootstrapping-503` variant); once all are done the
 * stored check is served as it is (passing with `[]` by default, but a test may store a
 * failing one, e.g. "not yet run").
 */
function bootstrappedCheck(state: FakeNodeState, stored: FakeCheck): FakeCheck {
  const subnets = bootstrappingSubnets(state);
  if (subnets.length === 0) return stored;
  const failing = stored.error !== undefined;
  return {
    ...stored,
    message: subnets,
    error: 'subnets not bootstrapped',
    contiguousFailures: failing ? (stored.contiguousFailures ?? 1) : 1,
    timeOfFirstFailure: (failing ? stored.timeOfFirstFailure : undefined) ?? stored.timestamp,
  };
}

/** Fails a check as the health worker does: shared by the demo simulation, the modes and the fake node. */
export function failCheckIn(state: FakeNodeState, name: string, error: string): void {
  const now = rfc3339Nano();
  const check = state.health[name] ?? { timestamp: now, duration: 0 };
  check.error = error;
  check.contiguousFailures = (check.contiguousFailures ?? 0) + 1;
  check.timeOfFirstFailure ??= now;
  check.timestamp = now;
  state.health[name] = check;
}

/** Passes a check again: shared by the demo simulation, the modes and the fake node. */
export function passCheckIn(state: FakeNodeState, name: string): void {
  const check = state.health[name];
  if (!check) return;
  delete check.error;
  delete check.contiguousFailures;
  delete check.timeOfFirstFailure;
  check.timestamp = rfc3339Nano();
}

/**
 * Shared by the node servers' `setChainNetworking`. Keeps the rest of the check's message (the
 * engine part) and creates the chain check, shaped like the fixtures' (`engine` then
 * `networking`), if it does not exist.
 */
export function setChainNetworkingIn(state: FakeNodeState, chain: string, disconnectedValidators: string[], percentConnected?: number): void {
  const check = state.health[chain] ?? { message: { engine: { consensus: {}, vm: null } }, timestamp: rfc3339Nano(), duration: 0 };
  const message = isPlainObject(check.message) ? check.message : {};
  const previous = isPlainObject(message['networking']) ? message['networking'] : {};
  // A Go set: sorted, without duplicates.
  message['networking'] = {
    ...previous,
    disconnectedValidators: [...new Set(disconnectedValidators)].sort(),
    ...(percentConnected === undefined ? {} : { percentConnected }),
  };
  check.message = message;
  state.health[chain] = check;
}

/** Builds the `{checks, healthy}` reply; `tags` keep only those subnets' checks plus application-wide ones. */
export function healthReply(s: FakeNodeState, which: HealthReport, tags: string[]): { checks: Record<string, unknown>; healthy: boolean } {
  const source = which === 'health' ? s.health : which === 'readiness' ? s.readiness : s.liveness;
  let names = Object.keys(source);
  if (tags.length > 0) {
    // api/health/worker.go Results: the checks of the asked tags plus the application-wide
    // ones (the application tag is always added); a chain's check is tagged with its subnet.
    const asked = new Set(tags);
    names = names.filter((n) => {
      const tag = checkTag(s, n);
      return tag === undefined || asked.has(tag);
    });
  }
  names.sort(compareBytes);
  const checks: Record<string, unknown> = {};
  let healthy = true;
  for (const n of names) {
    const stored = source[n];
    if (!stored) continue;
    // A chain not created yet has registered no check (chains/manager.go registers it in createChain).
    const chain = chainOfCheck(s, n);
    if (chain !== undefined && !chainHasCheck(s, chain)) continue;
    // Readiness registers the same check under the same name; liveness has none.
    let c = n === 'bootstrapped' && which !== 'liveness' ? bootstrappedCheck(s, stored) : stored;
    if (chain !== undefined && s.bootstrapped[chain] === false) c = bootstrappingCheck(c);
    if (which === 'readiness') {
      // Monotonic (api/health/worker.go RegisterMonotonicCheck): once passed, the passing result stays.
      const passed = s.readinessPassed?.[n];
      if (passed) c = passed;
      else if (c.error === undefined) s.readinessPassed = { ...s.readinessPassed, [n]: c };
    }
    if (c.error !== undefined) healthy = false;
    checks[n] = checkWire(c);
  }
  return { checks, healthy };
}

// -------------------------------------------------------------------------------------------

/** The `health` service's JSON-RPC methods (health.health, health.readiness, health.liveness). */
export function healthHandlers(state: FakeNodeState): Record<string, Handler> {
  const report =
    (which: HealthReport): Handler =>
    (args) => {
      const tags = optStringArray(args, 'tags');
      return () => healthReply(state, which, tags);
    };
  return { Health: report('health'), Readiness: report('readiness'), Liveness: report('liveness') };
}
