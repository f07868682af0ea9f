import type { RawConfig } from './schema.js';
import { writeDuration } from './duration.js';
import { DEFAULT_PEERS_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS, DEFAULT_POLL_TIMEOUT_MS } from './defaults.js';
import { defaultMaxAgeMs } from './max-age.js';

/** The `poll` section: how often and how long nodes are polled, and how long their series outlive a failure. */
export interface PollConfig {
  intervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  /**
   * Least time between two info.peers calls to a node (0: every round). The
   * heaviest answer a node gives (about 0.3 KB per peer: 0.6 MB on mainnet)
   * for figures that move over minutes; between calls its last value stands.
   */
  peersIntervalMs: number;
}

/** Applies the section's defaults and rules; `nameOf` names a setting where it was set (a flag, a variable or its YAML path). */
export function finalizePoll(raw: RawConfig['poll'], nameOf: (path: string) => string, problems: string[]): PollConfig {
  const intervalMs = raw?.interval ?? DEFAULT_POLL_INTERVAL_MS;
  const timeoutMs = raw?.timeout ?? Math.min(DEFAULT_POLL_TIMEOUT_MS, intervalMs);
  const maxAgeMs = raw?.max_age ?? defaultMaxAgeMs(intervalMs);
  const peersIntervalMs = raw?.peers_interval ?? DEFAULT_PEERS_INTERVAL_MS;
  if (timeoutMs > intervalMs)
    problems.push(
      `poll.timeout: ${writeDuration(timeoutMs)} must not exceed ${nameOf('poll.interval')} (${writeDuration(intervalMs)}): a round must end before the next begins`,
    );
  if (maxAgeMs < intervalMs)
    problems.push(
      `poll.max_age: ${writeDuration(maxAgeMs)} must be at least ${nameOf('poll.interval')} (${writeDuration(intervalMs)}), or every series would expire between two polls`,
    );
  return { intervalMs, timeoutMs, maxAgeMs, peersIntervalMs };
}

/** The section as `--config.check` prints it. */
export function printPoll(c: PollConfig): Record<string, unknown> {
  return {
    interval: writeDuration(c.intervalMs),
    timeout: writeDuration(c.timeoutMs),
    max_age: writeDuration(c.maxAgeMs),
    peers_interval: writeDuration(c.peersIntervalMs),
  };
}
