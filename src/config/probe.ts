import type { NodeConfig, WatchConfig } from './node.js';
import type { RawConfig } from './schema.js';
import { writeDuration } from './duration.js';
import { targetKey } from './target-url.js';
import { ALWAYS_SECRET_HEADERS, DEFAULT_PROBE_IDLE_TIMEOUT_MS, DEFAULT_PROBE_MAX_TARGETS } from './defaults.js';
import { redactUrlText } from './problems.js';

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
export function finalizeProbeConfig(raw: RawConfig['probe'], ctx: ProbeConfigContext, problems: string[]): ProbeConfig {
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
      secretHeaders: [...ALWAYS_SECRET_HEADERS],
      watch: { ...ctx.watch, nodeIds: [...ctx.watch.nodeIds], subnetIds: [...ctx.watch.subnetIds] },
    });
  });
  // A target must outlive at least one poll interval, or every probe would start from nothing.
  const idleTimeoutMs = raw?.idle_timeout ?? Math.max(DEFAULT_PROBE_IDLE_TIMEOUT_MS, 4 * ctx.pollIntervalMs);
  if (idleTimeoutMs < ctx.pollIntervalMs) {
    problems.push(`probe.idle_timeout: must be at least poll.interval (${writeDuration(idleTimeoutMs)} < ${writeDuration(ctx.pollIntervalMs)})`);
  }
  return { targets, maxTargets: raw?.max_targets ?? DEFAULT_PROBE_MAX_TARGETS, idleTimeoutMs };
}

/** The section as `--config.check` prints it: a URL's password as `<redacted>`. */
export function printProbe(c: ProbeConfig): Record<string, unknown> {
  return { targets: c.targets.map((t) => redactUrlText(t.url)), max_targets: c.maxTargets, idle_timeout: writeDuration(c.idleTimeoutMs) };
}
