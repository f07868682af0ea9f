/**
 * The real-behaviour modes the demo uses: each function turns a node's state into one way real
 * AvalancheGo nodes behave that the fixture world alone does not show, citing the AvalancheGo
 * source it follows (ava-labs/avalanchego, master at 1cf1fc3d, the commit the reference fixtures
 * were read at). The demo's L1 validator runs partial sync, its second validator renews itself,
 * its nodes run the Subnet-EVM plugin, and its disk fills; the tests' other modes are in
 * test/fakes/real-modes.ts and test/fakes/vitals-modes.ts.
 *
 * @packageDocumentation
 */
import { PRIMARY_NETWORK_ID } from './fixture-world.js';
import { failCheckIn, passCheckIn } from './health.js';
import type { FakeCheck, FakeNodeState } from './node-state.js';
import { rfc3339Nano } from './wire.js';

/**
 * `--partial-sync-primary-network`, the usual setup of an L1 validator: the
 * node runs the P-Chain only.
 * - vms/platformvm/vm.go initBlockchains: "skipping primary network chain
 *   creation": no X- or C-Chain, so no route under /ext/bc/X or /ext/bc/C
 *   (404), no X or C health check, and info.isBootstrapped says false for
 *   them (chains/manager.go IsBootstrapped: the chain does not exist), while
 *   the aliases X and C still resolve (node/node.go, from the genesis).
 * Unless `primaryValidator` is set, the node is not a primary-network
 * validator, as in the healthy setup.
 * - chains/manager.go registerBootstrappedHealthChecks: the application-wide
 *   check `validation` is registered in this mode only. It passes with "node
 *   is not a primary network validator" and fails with "partial sync should
 *   not be configured for a validator" when the node is one.
 */
export function partialSyncMode(state: FakeNodeState, opts: { primaryValidator?: boolean } = {}): FakeNodeState {
  state.partialSync = true;
  if (!opts.primaryValidator) {
    // The healthy setup: an L1 validator that does not validate the primary
    // network (info.uptime then answers "node is not a validator").
    state.primaryValidators = state.primaryValidators.filter((v) => v.nodeId !== state.nodeId);
    state.uptime = null;
  }
  delete state.health['X'];
  delete state.health['C'];
  const primary = state.healthTags[PRIMARY_NETWORK_ID];
  if (primary) state.healthTags[PRIMARY_NETWORK_ID] = primary.filter((n) => n !== 'X' && n !== 'C');
  const isPrimaryValidator = state.primaryValidators.some((v) => v.nodeId === state.nodeId);
  const check: FakeCheck = isPrimaryValidator
    ? {
        message: 'node is a primary network validator',
        error: 'partial sync should not be configured for a validator',
        timestamp: rfc3339Nano(),
        duration: 2000,
        contiguousFailures: 1,
        timeOfFirstFailure: rfc3339Nano(),
      }
    : { message: 'node is not a primary network validator', timestamp: rfc3339Nano(), duration: 2000 };
  state.health['validation'] = check;
  // A node that runs no C-Chain has no C-Chain balances to answer for.
  if (state.evmBalances) delete state.evmBalances['C'];
  return state;
}

/**
 * An auto-renewing (ACP-236 style, Helicon) primary-network validation:
 * vms/platformvm/service.go getCurrentValidators adds `validatorAuthority`,
 * `nextPeriod` (seconds of the next cycle; 0 means it stops at this cycle's
 * end) and `autoCompoundRewardShares` (millionths, reward.PercentDenominator)
 * for validators added by an AddAutoRenewedValidatorTx; `endTime` is the end
 * of the current cycle only.
 */
export function autoRenewing(state: FakeNodeState, nodeId: string, nextPeriodSeconds: number, autoCompoundRewardShares: number): FakeNodeState {
  const v = state.primaryValidators.find((x) => x.nodeId === nodeId);
  if (!v) throw new Error(`no primary validator ${nodeId} in the fake state`);
  v.autoRenew = {
    validatorAuthority: { locktime: 0, threshold: 1, addresses: ['P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5'] },
    nextPeriod: nextPeriodSeconds,
    autoCompoundRewardShares,
  };
  return state;
}

/**
 * A plugin VM (Subnet-EVM) installed on the node: vms/manager.go Versions
 * keys `vmVersions` by the VM's primary alias, which for a plugin without an
 * entry in `--vm-aliases-file` is its VM id, and the value is whatever the
 * plugin reports (Subnet-EVM: `v0.7.3`). api/info/service.go GetNodeVersion
 * returns that map.
 */
export function pluginVmMode(state: FakeNodeState, vm: string, version: string): FakeNodeState {
  state.vmVersions = { ...state.vmVersions, [vm]: version };
  return state;
}

/** Whole digits of `n / div` and its fraction without trailing zeros, as Go's Duration.String prints them. */
function fracString(n: number, div: number): string {
  const whole = Math.floor(n / div);
  const frac = String(n % div)
    .padStart(String(div).length - 1, '0')
    .replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/**
 * Seconds as Go's `time.Duration.String()` prints them (`0s`, `850ns`,
 * `812.5µs`, `12.04ms`, `1.5s`, `5m0s`, `2h0m3s`): the form every duration in
 * AvalancheGo's health details takes (network/network.go,
 * snow/networking/router/chain_router.go, snow/consensus/snowman/topological.go).
 * Rounded to the nanosecond. Pure.
 */
export function formatGoDuration(seconds: number): string {
  let ns = Math.round(Math.abs(seconds) * 1e9);
  const sign = seconds < 0 && ns > 0 ? '-' : '';
  if (ns === 0) return '0s';
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${fracString(ns, 1e3)}µs`;
  if (ns < 1e9) return `${sign}${fracString(ns, 1e6)}ms`;
  const h = Math.floor(ns / 3.6e12);
  ns -= h * 3.6e12;
  const m = Math.floor(ns / 6e10);
  ns -= m * 6e10;
  return `${sign}${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${fracString(ns, 1e9)}s`;
}

/** Fails `name` with `error` or passes it; a check already failing keeps its first failure time and count. */
export function setCheck(state: FakeNodeState, name: string, error: string | undefined): void {
  const check = state.health[name];
  if (error === undefined) {
    passCheckIn(state, name);
  } else if (check?.error === undefined) {
    failCheckIn(state, name, error);
  } else {
    check.error = error;
    check.timestamp = rfc3339Nano();
  }
}

/** A node's database volume and its AvalancheGo flags. */
export interface DiskSpace {
  totalBytes: number;
  availableBytes: number;
  /** --system-tracker-disk-required-available-space-percentage (config/flags.go, default 3). */
  requiredPercent?: number;
  /** --system-tracker-disk-warning-available-space-percentage (config/flags.go, default 10). */
  warningPercent?: number;
}

/**
 * The `diskspace` check as node/node.go computes it: the message has
 * `availableDiskBytes` and `availableDiskPercentage`, the whole percent
 * Bavail × 100 / Blocks rounded down (utils/storage/storage_unix.go); the
 * check fails under the warning percentage ("is below warning threshold")
 * and under the required one ("is below minimum required"), where the real
 * node also shuts itself down (`go n.Shutdown(1)`): a test that goes there
 * stops the fake node itself.
 */
export function diskSpaceMode(state: FakeNodeState, disk: DiskSpace): FakeNodeState {
  const required = disk.requiredPercent ?? 3;
  const warning = disk.warningPercent ?? 10;
  const available = Math.max(0, Math.round(disk.availableBytes));
  const pct = Math.floor((available * 100) / disk.totalBytes);
  const check = state.health['diskspace'] ?? { timestamp: rfc3339Nano(), duration: 3042 };
  check.message = { availableDiskBytes: available, availableDiskPercentage: pct };
  state.health['diskspace'] = check;
  setCheck(
    state,
    'diskspace',
    pct < required
      ? `remaining available disk space percentage (${pct}%) is below minimum required available space percentage (${required}%)`
      : pct < warning
        ? `remaining available disk space percentage (${pct}%) is below warning threshold available space percentage (${warning}%)`
        : undefined,
  );
  return state;
}
