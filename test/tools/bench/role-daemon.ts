/**
 * Child role `daemon`: the real exporter (startDaemon, the same code as the
 * CLI) in a process of its own, plus the commands the benchmark needs: wait for
 * the first round, run poll rounds back to back, read the event-loop delay.
 */
import { PerformanceObserver, constants as perfConstants, monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { ExpositionRenderer } from '../../../src/exposition/render.js';
import { ConfigError, buildConfig } from '../../../src/config/load.js';
import { parseJsonBody } from '../../../src/http/json-rpc.js';
import { toRecord, validatorSchema } from '../../../src/sources/node/validators/index.js';
import { readValidatorEntry } from '../../../src/sources/node/validators/validator-entry.js';
import { SCAN_SLICE, splitJsonArray } from '../../../src/http/json-array-split.js';
import { peersResult } from '../../../src/sources/node/peers/index.js';
import { startDaemon, testHandle } from '../../../src/daemon.js';
import { createLogger } from '../../../src/log.js';
import { tuneHeap } from '../../../src/runtime/heap-tuning.js';
import type { Role } from './child.js';
import { askBody, rpcRequest } from './replay.js';

/** Arguments of the daemon role (file-shaped config pieces). */
export interface DaemonArgs {
  nodes: { name: string; url: string; watch?: { all_validators?: boolean; subnet_ids?: string[] } }[];
  interval: string;
  timeout: string;
  /** poll.peers_interval; the daemon's default when absent. */
  peersInterval?: string;
  /** The Data API's base URL (a fake one); without it the Data API is off (only loopback traffic). */
  dataApiUrl?: string;
  /** data_api.interval; the daemon's default when absent. */
  dataApiInterval?: string;
  /** probe.targets: URLs /probe may name (probe mode); max_targets is set to their number. */
  probeTargets?: string[];
}

/** What the daemon role reports at start. */
export interface DaemonInfo {
  url: string;
}

/** The daemon's state, as the benchmark checks it. */
export interface DaemonStatus {
  ready: boolean;
  /** Renders started so far. */
  renders: number;
  rounds: number;
  /** Rounds of the configured nodes' pollers only (not the Data API's). */
  nodeRounds: number;
  series: number;
  textBytes: number;
  gzipBytes: number;
  sources: number;
  sourcesDown: string[];
  polls: number;
  failures: number;
}

/** Event-loop delay over a window, ms (perf_hooks.monitorEventLoopDelay, less the timer's own interval). */
export interface EldStats {
  resolutionMs: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Where the memory is: V8's heap spaces (committed size) and memory outside the heap, bytes. */
export interface MemoryBreakdown {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  /** Committed size of each V8 space (new_space, old_space, code_space, large_object_space, ...). */
  spaces: Record<string, number>;
  external: number;
  arrayBuffers: number;
}

/** The memory of this process now. */
export function memoryBreakdown(): MemoryBreakdown {
  const m = process.memoryUsage();
  const spaces: Record<string, number> = {};
  for (const s of getHeapSpaceStatistics()) spaces[s.space_name] = s.space_size;
  return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, spaces, external: m.external, arrayBuffers: m.arrayBuffers };
}

/** Renders started since the process started (counted on the renderer's prototype: no cost, no timer). */
let rendersStarted = 0;
{
  // renderGroups: every render (render() included) goes through it.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- taken unbound on purpose: the wrapper applies it with each renderer as `this`.
  const render = ExpositionRenderer.prototype.renderGroups;
  ExpositionRenderer.prototype.renderGroups = function countedRender(this: ExpositionRenderer, ...args: Parameters<typeof render>) {
    rendersStarted++;
    return render.apply(this, args);
  };
}

/** CPU and wall time of one render of the current state (a fresh renderer, as the daemon's own). */
export interface RenderCost {
  renders: number;
  /** A render with nothing cached (every value collected and formatted). */
  cpuMsPerRender: number;
  wallMsPerRender: number;
  /** A render of the same state by the daemon's own renderer: every source value's series cached, as after a round that changed nothing. */
  cachedCpuMsPerRender: number;
}

/**
 * The synchronous steps a poll runs on a large answer, each timed alone (median
 * of several runs, ms): between two awaits nothing else can run, so the
 * longest step is the longest event-loop block a poll causes.
 */
export interface SyncSteps {
  validatorsBytes: number;
  /** splitJsonArray over the whole body; it yields every SCAN_SLICE bytes. */
  validatorsScan: number;
  /** The scan's share of one slice between two yields. */
  validatorsScanSlice: number;
  /** One batch of callArray: decode + JSON.parse of 200 items, the fast reader (zod and toRecord for what it defers). */
  validatorsBatch: number;
  peersBytes: number;
  peersDecodeParse: number;
  peersValidate: number;
}

function medianMs(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  fn();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** Garbage-collection pauses over a window (PerformanceObserver 'gc' entries). */
export interface GcStats {
  count: number;
  totalMs: number;
  maxMs: number;
  /** Mark-compact (full) collections. */
  majorCount: number;
  majorMaxMs: number;
}

/** Records GC pauses until stopped. */
function watchGc(): () => GcStats {
  const stats: GcStats = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0, majorMaxMs: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      stats.count++;
      stats.totalMs += e.duration;
      stats.maxMs = Math.max(stats.maxMs, e.duration);
      const kind = ((e as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
        stats.majorCount++;
        stats.majorMaxMs = Math.max(stats.majorMaxMs, e.duration);
      }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    obs.disconnect();
    return stats;
  };
}

/** p50 / p99 / max of a set of figures, and how many there were. */
export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Percentiles of unsorted figures. */
export function percentiles(xs: readonly number[]): Percentiles {
  const sorted = [...xs].sort((a, b) => a - b);
  return { count: sorted.length, p50: pct(sorted, 50), p99: pct(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
}

/** Result of `rounds`. */
export interface RoundsResult {
  rounds: number;
  wallMs: number;
  /** CPU of the whole process over the rounds. */
  cpuMs: number;
  /** CPU from a round's start to its end (requests, parsing, validation, state). */
  pollCpuMs: number;
  /** CPU from a round's end to the end of the render that follows it (collect, render, gzip). */
  renderCpuMs: number;
  roundWallP50: number;
  roundWallP99: number;
  /** From a round's end to its render served and the first gzip scrape's compression done. */
  renderWallP50: number;
  renderWallP99: number;
  /** The daemon's own freshness lags (DaemonTestHandle.freshnessLagsMs) of these rounds: round end to the new exposition served. */
  freshness: Percentiles;
  eld: EldStats;
  gc: GcStats;
  renders: number;
  memory: MemoryBreakdown;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  maxRssBytes: number;
  failures: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * The histogram holds the intervals between the monitor's timer ticks, so an
 * idle loop reads about `resolution`; the delay is what exceeds it.
 */
function eldStats(h: IntervalHistogram, resolutionMs: number): EldStats {
  const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  return {
    resolutionMs,
    samples: h.count,
    p50: ms(h.percentile(50)),
    p99: ms(h.percentile(99)),
    max: ms(h.max),
    mean: ms(h.mean),
  };
}

export async function startDaemonRole(input: unknown): Promise<Role> {
  const args = input as DaemonArgs;
  const fileShaped = {
    web: { listen_address: '127.0.0.1:0' },
    poll: { interval: args.interval, timeout: args.timeout, ...(args.peersInterval ? { peers_interval: args.peersInterval } : {}) },
    nodes: args.nodes,
    log: { level: 'warn', format: 'json' },
  };
  // Only loopback traffic: the Data API poller (a public service) is switched off. A
  // configuration schema without the data_api section has no such poller at all.
  // With a fake Data API (dataApiUrl), the exporter reads it as it reads the real one.
  const probe = args.probeTargets?.length ? { probe: { targets: args.probeTargets, max_targets: args.probeTargets.length } } : {};
  const dataApi = args.dataApiUrl
    ? { enabled: true, url: args.dataApiUrl, ...(args.dataApiInterval ? { interval: args.dataApiInterval } : {}) }
    : { enabled: false };
  let config: ReturnType<typeof buildConfig>;
  try {
    config = buildConfig({ ...fileShaped, ...probe, data_api: dataApi });
  } catch (err) {
    if (args.dataApiUrl || !(err instanceof ConfigError) || !err.problems.some((p) => p.includes('data_api'))) throw err;
    config = buildConfig({ ...fileShaped, ...probe });
  }
  // As cli.ts does before it starts the daemon: the benchmark measures the daemon as it runs.
  tuneHeap();
  const daemon = await startDaemon(config, { logger: createLogger({ level: 'warn', format: 'json' }) });
  const hooks = testHandle(daemon);

  const totals = () => {
    let polls = 0;
    let failures = 0;
    for (const s of hooks.store.all()) {
      polls += s.polls;
      for (const n of Object.values(s.failures)) failures += n;
    }
    return { polls, failures };
  };
  // Asked and not up. A source not asked yet is pending, not down: a large fleet asks info.peers first within its first minute.
  const sourcesDown = () =>
    hooks.store
      .all()
      .filter((s) => s.up !== true && s.lastAttemptMs !== undefined)
      .map((s) => `${s.node}/${s.source}: ${s.lastError?.message ?? 'no answer yet'}`);
  const status = async (): Promise<DaemonStatus> => {
    const exp = daemon.exposition();
    const states = hooks.store.all();
    const gz = await exp.gzip();
    return {
      ready: daemon.ready(),
      renders: rendersStarted,
      rounds: hooks.pollers.reduce((n, p) => n + p.completedRounds, 0),
      nodeRounds: hooks.pollers.slice(0, config.nodes.length).reduce((n, p) => n + p.completedRounds, 0),
      series: exp.series,
      // From the gzip trailer (ISIZE, the text's length mod 2^32), not exp.text: the text is joined only when a
      // scraper asks for it uncompressed, and joining it here kept every block's bytes in the RSS being measured
      // (18 KB per node of F), which a Prometheus asking for gzip never makes the daemon hold.
      textBytes: gz.readUInt32LE(gz.length - 4),
      gzipBytes: gz.length,
      sources: states.length,
      sourcesDown: sourcesDown(),
      ...totals(),
    };
  };

  let eld: { h: IntervalHistogram; resolutionMs: number } | undefined;

  return {
    info: { url: daemon.url } satisfies DaemonInfo,
    handlers: {
      status,
      /** Waits until every node's first round is on /metrics; bounded by timeoutMs. */
      async waitReady(a: unknown) {
        const { timeoutMs } = a as { timeoutMs: number };
        const end = Date.now() + timeoutMs;
        while (!daemon.ready()) {
          if (Date.now() > end) throw new Error(`not ready after ${timeoutMs} ms: ${sourcesDown().slice(0, 5).join('; ')}`);
          await new Promise((r) => setTimeout(r, 20));
        }
        return status();
      },
      memory: () => memoryBreakdown(),
      /** Percentiles of the daemon's last `last` freshness lags (round end to render served). */
      freshness(a: unknown): Percentiles {
        const { last } = a as { last: number };
        return percentiles(last > 0 ? hooks.freshnessLagsMs().slice(-last) : []);
      },
      /** Times the poll's synchronous steps on the first node's real answers (call with polling idle). */
      async syncSteps(): Promise<SyncSteps> {
        const node = args.nodes[0];
        if (!node) throw new Error('no node');
        const v = await askBody(rpcRequest(`${node.url}/ext/bc/P`, 'platform.getCurrentValidators'));
        const p = await askBody(rpcRequest(`${node.url}/ext/info`, 'info.peers'));
        const split = await splitJsonArray(v, ['result', 'validators'], async () => {});
        if (!split) throw new Error('getCurrentValidators: no validators array');
        const batchEnd = split.spans[Math.min(split.spans.length / 2, 200) * 2 - 1] as number;
        const batch = () => {
          const items = JSON.parse(`[${v.toString('utf8', split.spans[0], batchEnd)}]`) as unknown[];
          // As callWithArray reads them in the validators source: the fast reader, zod only when it defers.
          return items.map((item) => readValidatorEntry(item) ?? toRecord(validatorSchema.parse(item)));
        };
        const pResult = (parseJsonBody(p, 'peers') as { result: unknown }).result;
        const runs = 9;
        const scans: number[] = [];
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          await splitJsonArray(v, ['result', 'validators'], async () => {});
          scans.push(performance.now() - t);
        }
        const scan = scans.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
        return {
          validatorsBytes: v.length,
          validatorsScan: scan,
          validatorsScanSlice: (scan * Math.min(SCAN_SLICE, v.length)) / v.length,
          validatorsBatch: medianMs(runs, batch),
          peersBytes: p.length,
          peersDecodeParse: medianMs(runs, () => parseJsonBody(p, 'peers')),
          peersValidate: medianMs(runs, () => peersResult.safeParse(pResult)),
        };
      },
      /**
       * Renders the current state `count` times with a fresh renderer, then with the daemon's own (everything cached); CPU and wall per render.
       * Polling is stopped first (this is the end of a measurement), so no round runs meanwhile.
       */
      async renderCost(a: unknown): Promise<RenderCost> {
        const { count } = a as { count: number };
        await Promise.all(hooks.pollers.map((p) => p.stop()));
        await hooks.renderFresh();
        const c0 = cpuMs();
        const t0 = performance.now();
        for (let i = 0; i < count; i++) await hooks.renderFresh();
        const fresh = { cpu: (cpuMs() - c0) / count, wall: (performance.now() - t0) / count };
        await hooks.renderCached();
        const c1 = cpuMs();
        for (let i = 0; i < count; i++) await hooks.renderCached();
        return { renders: count, cpuMsPerRender: fresh.cpu, wallMsPerRender: fresh.wall, cachedCpuMsPerRender: (cpuMs() - c1) / count };
      },
      eldStart(a: unknown) {
        const { resolutionMs } = a as { resolutionMs: number };
        eld?.h.disable();
        const h = monitorEventLoopDelay({ resolution: resolutionMs });
        h.enable();
        eld = { h, resolutionMs };
        return true;
      },
      eldStop(): EldStats {
        if (!eld) throw new Error('eldStart first');
        eld.h.disable();
        const out = eldStats(eld.h, eld.resolutionMs);
        eld = undefined;
        return out;
      },
      /**
       * Runs `count` poll rounds of the first node back to back (each followed by
       * its render and one scrape's text join and gzip), stopping early at `maxMs`. The scheduler's own next round is
       * an interval away, so nothing overlaps.
       */
      async rounds(a: unknown): Promise<RoundsResult> {
        const { count, gapMs, maxMs, eldResolutionMs } = a as { count: number; gapMs: number; maxMs: number; eldResolutionMs: number };
        const poller = hooks.pollers[0] as unknown as { runRound?: () => Promise<void> } | undefined;
        const runRound = poller?.runRound?.bind(poller);
        if (!runRound) throw new Error('the first poller has no runRound()');
        const before = totals();
        const h = monitorEventLoopDelay({ resolution: eldResolutionMs });
        const roundWall: number[] = [];
        const renderWall: number[] = [];
        let pollCpu = 0;
        let renderCpu = 0;
        const stopGc = watchGc();
        const cpu0 = cpuMs();
        const t0 = performance.now();
        h.enable();
        let n = 0;
        const renders0 = rendersStarted;
        for (; n < count && performance.now() - t0 < maxMs; n++) {
          const rendered = hooks.waitForRounds(1);
          const c0 = cpuMs();
          const r0 = performance.now();
          await runRound();
          const c1 = cpuMs();
          const r1 = performance.now();
          await rendered;
          // What the first scrape after the round costs on top: the text joined and gzipped once (a
          // Prometheus server scrapes once per interval, so a real round is always followed by one).
          await daemon.exposition().gzip();
          const c2 = cpuMs();
          roundWall.push(r1 - r0);
          renderWall.push(performance.now() - r1);
          pollCpu += c1 - c0;
          renderCpu += c2 - c1;
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        }
        h.disable();
        const wallMs = performance.now() - t0;
        // Each render that followed a round recorded one lag (rounds that ended together share one);
        // nothing else rendered meanwhile. The daemon keeps its last 1,024.
        const rendered = rendersStarted - renders0;
        const freshness = percentiles(rendered > 0 ? hooks.freshnessLagsMs().slice(-rendered) : []);
        // Let the observer deliver the last entries.
        await new Promise((r) => setImmediate(r));
        const gc = stopGc();
        const cpu = cpuMs() - cpu0;
        const mem = process.memoryUsage();
        roundWall.sort((x, y) => x - y);
        renderWall.sort((x, y) => x - y);
        return {
          rounds: n,
          wallMs,
          cpuMs: cpu,
          pollCpuMs: pollCpu,
          renderCpuMs: renderCpu,
          roundWallP50: pct(roundWall, 50),
          roundWallP99: pct(roundWall, 99),
          renderWallP50: pct(renderWall, 50),
          renderWallP99: pct(renderWall, 99),
          freshness,
          eld: eldStats(h, eldResolutionMs),
          gc,
          renders: rendersStarted - renders0,
          memory: memoryBreakdown(),
          rssBytes: mem.rss,
          heapUsedBytes: mem.heapUsed,
          heapTotalBytes: mem.heapTotal,
          maxRssBytes: process.resourceUsage().maxRSS * 1024,
          failures: totals().failures - before.failures,
        };
      },
    },
    close: () => daemon.stop(),
  };
}
