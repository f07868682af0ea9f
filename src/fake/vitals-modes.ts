/**
 * Real-behaviour modes of the fake node for the node's vitals: what the
 * details of AvalancheGo's own health checks say about its disk, a chain's
 * consensus and its network, and whether the check fails, computed from the
 * figures the way AvalancheGo computes them (ava-labs/avalanchego, master at
 * 1cf1fc3d, the commit the reference fixtures were read at). Each function
 * sets the figures as of now; a caller that wants them to move (the
 * detection matrix, the demo) calls it again as time passes.
 */
import type { FakeNodeState } from './fake-node.js';
import { failCheckIn, passCheckIn, rfc3339Nano } from './fake-node.js';

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
function setCheck(state: FakeNodeState, name: string, error: string | undefined): void {
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

/** What a chain's consensus is deciding. */
export interface Processing {
  /** Blocks processing (0: none, and the age is then 0). */
  blocks: number;
  /** Age of the oldest of them, seconds. */
  oldestSeconds: number;
  /** --snow-max-time-processing (snow/consensus/snowball/parameters.go, default 30 s). */
  maxProcessingSeconds?: number;
  /** MaxOutstandingItems (snow/consensus/snowball/parameters.go, default 1024). */
  maxOutstanding?: number;
}

/**
 * A chain's `engine.consensus` details as snow/consensus/snowman/topological.go
 * HealthCheck reports them (`processingBlocks`, `longestProcessingBlock` as a
 * Go duration string), and the chain's check failing as it does: "block
 * processing too long: 5m0s > 30s" beyond the processing time, "too many
 * processing blocks: N > M" beyond the outstanding items (joined by a newline,
 * errors.Join); the handler passes the engine's error on as the chain's
 * (snow/networking/handler/health.go). The chain must have a check.
 */
export function processingMode(state: FakeNodeState, chain: string, p: Processing): FakeNodeState {
  const msg = state.health[chain]?.message as { engine?: { consensus?: Record<string, unknown> } } | undefined;
  const consensus = msg?.engine?.consensus;
  if (!consensus) throw new Error(`chain ${chain} has no consensus health details in the fake`);
  const age = p.blocks > 0 ? p.oldestSeconds : 0;
  consensus['processingBlocks'] = p.blocks;
  consensus['longestProcessingBlock'] = formatGoDuration(age);
  const maxTime = p.maxProcessingSeconds ?? 30;
  const maxItems = p.maxOutstanding ?? 1024;
  const errors: string[] = [];
  if (p.blocks > maxItems) errors.push(`too many processing blocks: ${p.blocks} > ${maxItems}`);
  if (age > maxTime) errors.push(`block processing too long: ${formatGoDuration(age)} > ${formatGoDuration(maxTime)}`);
  setCheck(state, chain, errors.length > 0 ? errors.join('\n') : undefined);
  return state;
}

/** The node's traffic with its peers. */
export interface NetworkActivity {
  /** Seconds since the last message received; undefined: none received since start. */
  receivedAgoSeconds: number | undefined;
  /** Seconds since the last message sent; undefined: none sent since start. */
  sentAgoSeconds: number | undefined;
  /** The decaying average share of failed sends. */
  sendFailRate: number;
  /** --network-health-max-time-since-msg-received and -sent (utils/constants/networking.go, default 1 minute). */
  maxSilenceSeconds?: number;
  /** --network-health-max-send-fail-rate (default 0.9). */
  maxSendFailRate?: number;
}

/**
 * The `network` check as network/network.go HealthCheck computes it from the
 * node's traffic: `timeSinceLastMsgReceived` and `timeSinceLastMsgSent` (Go
 * duration strings, left out until a first message), `sendFailRate`, and the
 * check failing with "network layer is unhealthy reason: …" naming each
 * limit passed ("no messages from network received in 3m0s > 1m0s"). The
 * peer count (`connectedPeers`) and the validator details stay as they are,
 * and count as healthy.
 */
export function networkActivityMode(state: FakeNodeState, a: NetworkActivity): FakeNodeState {
  const check = state.health['network'] ?? { message: {}, timestamp: rfc3339Nano(), duration: 2333 };
  const msg = (check.message ?? {}) as Record<string, unknown>;
  const maxSilence = a.maxSilenceSeconds ?? 60;
  const maxFail = a.maxSendFailRate ?? 0.9;
  const reasons: string[] = [];
  if (a.receivedAgoSeconds === undefined) {
    delete msg['timeSinceLastMsgReceived'];
    reasons.push('no messages received from network');
  } else {
    msg['timeSinceLastMsgReceived'] = formatGoDuration(a.receivedAgoSeconds);
    if (a.receivedAgoSeconds > maxSilence)
      reasons.push(`no messages from network received in ${formatGoDuration(a.receivedAgoSeconds)} > ${formatGoDuration(maxSilence)}`);
  }
  if (a.sentAgoSeconds === undefined) {
    delete msg['timeSinceLastMsgSent'];
    reasons.push('no messages sent to network');
  } else {
    msg['timeSinceLastMsgSent'] = formatGoDuration(a.sentAgoSeconds);
    if (a.sentAgoSeconds > maxSilence) reasons.push(`no messages from network sent in ${formatGoDuration(a.sentAgoSeconds)} > ${formatGoDuration(maxSilence)}`);
  }
  msg['sendFailRate'] = a.sendFailRate;
  if (a.sendFailRate > maxFail) reasons.push(`messages failure send rate ${a.sendFailRate} > ${maxFail}`);
  check.message = msg;
  state.health['network'] = check;
  setCheck(state, 'network', reasons.length > 0 ? `network layer is unhealthy reason: ${reasons.join(', ')}` : undefined);
  return state;
}
