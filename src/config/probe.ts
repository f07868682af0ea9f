import type { NodeConfig, WatchConfig } from './node.js';
import { formatDuration } from './duration.js';
import { targetKey } from './target-url.js';

/** Default cap on allow-listed URLs polled for `/probe` at the same time. */
export const DEFAULT_PROBE_MAX_TARGETS = 100;
/** Default time a probe-only target is kept without being probed: long enough to outlast a slow scrape interval. */
export const DEFAULT_PROBE_IDLE_TIMEOUT_MS = 5 * 60_000;

/** The `/probe` endpoint's settings. */
export interface ProbeConfig {
  /**
   * URLs beyond the configured nodes that `/probe?target=` may name, each as
   * the node it is polled as (name `host:port`, the global watch settings).
   * One that is also a configured node's URL is left out: that node answers.
   */
  targets: NodeConfig[];
  /** Most probe-only targets polled at once; a probe of one more is refused. */
  maxTargets: number;
  /** A probe-only target not probed for this long is dropped with its state. */
  idleTimeoutMs: number;
}

/** The raw `probe` section, as validated by the schema. */
export interface RawProbeSection {
  targets?: string[] | undefined;
  max_targets?: number | undefined;
  idle_timeout?: number | undefined;
}

/** What the probe section needs of the rest of the configuration. */
export interface ProbeConfigContext {
  /** The configured nodes: their URLs are on the allow-list already. */
  nodes: readonly NodeConfig[];
  /** The global watch settings, which probe-only targets use. */
  watch: WatchConfig;
  pollIntervalMs: number;
  /** The default `node` label of a URL (`host:port`). */
  nameOf: (url: string) => string;
}

/** Applies defaults and cross-field rules to the `probe` section; problems are appended to `problems`. */
export function finalizeProbeConfig(raw: RawProbeSection | undefined, ctx: ProbeConfigContext, problems: string[]): ProbeConfig {
  const nodeKeys = new Set(ctx.nodes.map((n) => targetKey(n.url)));
  const seen = new Map<string, number>();
  const targets: NodeConfig[] = [];
  (raw?.targets ?? []).forEach((url, i) => {
    const key = targetKey(url) as string; // the schema admits http(s) URLs only
    const prev = seen.get(key);
    if (prev !== undefined) {
      problems.push(`probe.targets[${i}]: the same URL as probe.targets[${prev}]`);
      return;
    }
    seen.set(key, i);
    if (nodeKeys.has(key)) return;
    targets.push({
      name: ctx.nameOf(url),
      url: url.replace(/\/+$/, ''),
      headers: {},
      secretHeaders: ['authorization', 'proxy-authorization', 'cookie'],
      watch: { ...ctx.watch, nodeIds: [...ctx.watch.nodeIds], subnetIds: [...ctx.watch.subnetIds] },
    });
  });
  // A target must outlive at least one poll interval, or every probe would start from nothing.
  const idleTimeoutMs = raw?.idle_timeout ?? Math.max(DEFAULT_PROBE_IDLE_TIMEOUT_MS, 4 * ctx.pollIntervalMs);
  if (idleTimeoutMs < ctx.pollIntervalMs) {
    problems.push(`probe.idle_timeout: must be at least poll.interval (${formatDuration(idleTimeoutMs)} < ${formatDuration(ctx.pollIntervalMs)})`);
  }
  return { targets, maxTargets: raw?.max_targets ?? DEFAULT_PROBE_MAX_TARGETS, idleTimeoutMs };
}
