/**
 * Real-behaviour modes of the fake node for the node's vitals: what the
 * details of AvalancheGo's own health checks say about its disk, a chain's
 * consensus and its network, and whether the check fails, computed from the
 * figures the way AvalancheGo computes them (ava-labs/avalanchego, master at
 * 1cf1fc3d, the commit the reference fixtures were read at). Each function
 * sets the figures as of now; a caller that wants them to move (the
 * detection matrix) calls it again as time passes. The disk mode the demo
 * uses is in src/demo/modes.ts, re-exported here.
 */
import type { FakeNodeState } from '../../src/demo/node-state.js';
import { formatGoDuration, setCheck } from '../../src/demo/modes.js';
import { rfc3339Nano } from '../../src/demo/wire.js';

// The modes the demo uses live with it (src/demo/modes.ts); the tests find them here too.
export { diskSpaceMode, formatGoDuration } from '../../src/demo/modes.js';

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
