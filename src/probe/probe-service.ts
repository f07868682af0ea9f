import type { Config, NodeConfig } from '../config/load.js';
import { redactUrl } from '../config/load.js';
import { isFresh } from '../config/max-age.js';
import { sameSettings } from '../config/same.js';
import { assembleSamples } from '../exposition/assemble.js';
import type { Sample } from '../metrics/metric-defs.js';
import { ExpositionRenderer, type Exposition } from '../exposition/render.js';
import type { HttpTransport } from '../http/transport.js';
import type { Logger } from '../log.js';
import type { AnySource } from '../sources/source.js';
import type { NodeSourceDef } from '../sources/node/source.js';
import { sourceMinIntervals } from '../sources/catalog.js';
import type { SourceState, StateStore, StateTransition } from '../state/store.js';
import { parseRequestedTarget, targetKey } from '../config/target-url.js';
import { NetworkShared } from '../sources/node/network-shared.js';
import { SLOW_REFRESH_ROUNDS } from '../sources/node/source.js';
import { Limiter, ProbeTarget, settlesWithin } from './probe-target.js';
import { keptAnswer } from './kept-answer.js';

/**
 * Part of Prometheus's scrape timeout a probe leaves unused, so that it answers
 * before Prometheus gives up on it (blackbox_exporter's --timeout-offset default).
 */
export const PROBE_TIMEOUT_OFFSET_MS = 500;

/** What `target=` named: a configured node, a probe-only URL of the allow-list, or nothing allowed. */
export type ProbeResolution = { kind: 'node'; node: NodeConfig } | { kind: 'url'; key: string; node: NodeConfig } | { kind: 'refused'; reason: string };

/**
 * Looks a requested target up: first as a configured node's name (exact),
 * then as a URL whose normal form (origin + path) equals a configured node's
 * URL or a `probe.targets` entry. Anything else is refused; nothing here
 * connects anywhere.
 */
export function resolveProbeTarget(target: string, nodes: readonly NodeConfig[], allowed: readonly NodeConfig[]): ProbeResolution {
  const named = nodes.find((n) => n.name === target);
  if (named) return { kind: 'node', node: named };
  const parsed = parseRequestedTarget(target);
  if (!parsed.ok) return { kind: 'refused', reason: parsed.reason };
  const node = byKey(nodes).get(parsed.key);
  if (node) return { kind: 'node', node };
  const entry = byKey(allowed).get(parsed.key);
  if (entry) return { kind: 'url', key: parsed.key, node: entry };
  return { kind: 'refused', reason: 'not on the allow-list (a configured node name or URL, or probe.targets)' };
}

/** Each list's entries by URL key, made once per list (see byKey). */
const keyIndexes = new WeakMap<readonly NodeConfig[], { length: number; byKey: Map<string, NodeConfig> }>();

/**
 * A list's entries by their URL key, the first of a key winning as find()
 * would. Made once per list: the lists are the configuration's, replaced (not
 * changed) by a reload, and parsing each of 1,000 allowed URLs on every probe
 * cost more than the rest of the lookup.
 */
function byKey(list: readonly NodeConfig[]): Map<string, NodeConfig> {
  let index = keyIndexes.get(list);
  if (index?.length !== list.length) {
    const map = new Map<string, NodeConfig>();
    for (const n of list) {
      const key = targetKey(n.url);
      if (key !== undefined && !map.has(key)) map.set(key, n);
    }
    index = { length: list.length, byKey: map };
    keyIndexes.set(list, index);
  }
  return index.byKey;
}

/** The answer to one probe: an exposition, or a refusal with a short reason. */
export type ProbeOutcome = { status: 200; exposition: Exposition } | { status: 400 | 403 | 503; message: string };

/** What the probe service needs of the daemon. */
export interface ProbeServiceOptions {
  /** The running configuration (it changes on reload). */
  config: () => Config;
  /** The configured nodes, the demo node included. */
  nodes: () => readonly NodeConfig[];
  /** The state the configured nodes' pollers keep. */
  store: StateStore;
  /** The node sources the daemon polls. */
  sources: readonly NodeSourceDef<unknown>[];
  identitySource: string;
  transport: HttpTransport;
  logger: Logger;
  /** Up/down and value changes of probe-only targets, for the daemon's one-line-per-change logging. */
  onTransitions?: (transitions: StateTransition[]) => void;
  /** Called when a probe-only target is added or dropped (the self-metrics changed). */
  onTargetsChanged?: () => void;
  /**
   * Changes whenever the daemon renders /metrics anew (the state may have
   * changed): a configured node's probe answer is rendered once per value and
   * shared, like /metrics. Without it, every probe renders.
   */
  generation?: () => number;
  /** The clock of the refusal log's rate limit (tests move it). */
  now?: () => number;
}

/** Probe answers rendered at once; further renders wait their turn (the scrape path's CPU and memory stay bounded). */
export const MAX_CONCURRENT_PROBE_RENDERS = 2;

/** assembleSamples wants a build identity; probe answers leave the exporter's own series out anyway. */
const NO_BUILD = { version: '', revision: '', nodejs: '' };

/**
 * Refusals logged at warn: a bucket of this many lines, refilled at one a
 * second, so a scraper cannot flood the log and a new refusal is still seen
 * minutes later. Beyond, refusals go to debug and are counted in the next warn.
 */
export const REFUSAL_WARN_BURST = 60;
const REFUSAL_WARN_REFILL_MS = 1_000;
/** The same refusal is warned at most once in this time. */
const REFUSAL_REPEAT_MS = 10 * 60_000;

/**
 * Answers `/probe?target=`: the multi-target exporter pattern of
 * blackbox_exporter. A configured node is answered from the state its poller
 * keeps (no extra upstream call). A `probe.targets` URL gets a poller of its
 * own on first probe, with its own state (so its series never reach
 * `/metrics`); it polls only when probed, at most once per poll interval,
 * concurrent probes share a round, and it is dropped after `probe.idle_timeout`
 * without probes. At most `probe.max_targets` such pollers exist.
 */
export class ProbeService {
  readonly #opts: ProbeServiceOptions;
  readonly #byName: Map<string, AnySource>;
  /** Probe-only targets by URL key. */
  readonly #targets = new Map<string, ProbeTarget>();
  /** When each refusal was last warned, by refusal (bounded). */
  readonly #warned = new Map<string, number>();
  #warnTokens = REFUSAL_WARN_BURST;
  #warnRefilledMs: number | undefined;
  #suppressed = 0;
  readonly #now: () => number;
  #sweeper: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #renderLimit = new Limiter(MAX_CONCURRENT_PROBE_RENDERS);
  /** Configured nodes' answers of the current generation, by node name. */
  readonly #nodeAnswers = new Map<string, Promise<Exposition>>();
  #answersGeneration: number | undefined;
  /** Probe answers rendered so far (a cached answer is not rendered again). */
  renders = 0;
  /** The primary validator set of each network, fetched by one probe-only target and shared by the others while fresh. */
  readonly #network: NetworkShared;

  constructor(opts: ProbeServiceOptions) {
    this.#opts = opts;
    this.#network = new NetworkShared(() => opts.config().poll.intervalMs * SLOW_REFRESH_ROUNDS);
    this.#now = opts.now ?? Date.now;
    this.#byName = new Map(opts.sources.map((s) => [s.name, s]));
  }

  /** Probe-only targets being polled now. */
  get size(): number {
    return this.#targets.size;
  }

  /**
   * Probe-only targets a scraper may probe under the running configuration:
   * the allow-list's, at most probe.max_targets (the server lets that many
   * probes be in flight from one scraper).
   */
  get allowedTargets(): number {
    const { targets, maxTargets } = this.#opts.config().probe;
    return Math.min(targets.length, maxTargets);
  }

  /**
   * Probes `target`. `scrapeTimeoutSeconds` is Prometheus's
   * X-Prometheus-Scrape-Timeout-Seconds: a probe that has to wait for a round
   * answers within it (minus {@link PROBE_TIMEOUT_OFFSET_MS}) with what the
   * round has gathered so far; the round itself goes on to its own deadline
   * and serves the next probe.
   */
  async probe(target: string, scrapeTimeoutSeconds?: number): Promise<ProbeOutcome> {
    const started = performance.now();
    const config = this.#opts.config();
    const found = resolveProbeTarget(target, this.#opts.nodes(), config.probe.targets);
    if (found.kind === 'refused') return this.#refuse(403, found.reason, target);
    if (found.kind === 'node') return { status: 200, exposition: await this.#nodeAnswer(found.node.name, started, config) };
    if (this.#stopped) return { status: 503, message: 'the exporter is shutting down' };
    const nowMs = Date.now();
    let t = this.#targets.get(found.key);
    // A reload changed its settings: it starts again from nothing (the sweeper would drop it soon anyway).
    if (t && (!sameSettings(t.node, found.node) || !sameSettings(t.poll, config.poll))) this.#sweep(nowMs);
    t = this.#targets.get(found.key);
    if (!t) {
      // Full: idle ones may be due to go, which the next sweeper tick would find.
      if (this.#targets.size >= config.probe.maxTargets) this.#sweep(nowMs);
      if (this.#targets.size >= config.probe.maxTargets) this.#evictOneOff(nowMs, config);
      if (this.#targets.size >= config.probe.maxTargets) {
        return this.#refuse(
          503,
          `probe.max_targets (${config.probe.maxTargets}) probe-only targets are polled already; one is dropped after probe.idle_timeout without probes (one probed only once: after poll.interval)`,
          target,
        );
      }
      t = new ProbeTarget(found.node, config.poll, { ...this.#opts, network: this.#network });
      this.#targets.set(found.key, t);
      this.#opts.logger.info({ node: t.node.name, url: redactUrl(t.node.url), targets: this.#targets.size }, 'probe target added');
      this.#startSweeper(config.probe.idleTimeoutMs);
      this.#opts.onTargetsChanged?.();
    }
    t.lastProbeMs = nowMs;
    t.probes++;
    const round = t.refresh(nowMs);
    if (!(await settlesWithin(round, this.#waitBudgetMs(config, scrapeTimeoutSeconds)))) {
      this.#opts.logger.debug({ node: t.node.name }, 'probe answered before its poll round ended (scrape timeout)');
    }
    // Between two rounds the state does not change: one answer serves every probe of it.
    const rounds = t.poller.completedRounds;
    if (!t.polling && t.answer?.rounds === rounds) return { status: 200, exposition: await t.answer.exposition };
    const exposition = this.#render(t.node.name, t.store.all(), started, config).then(keptAnswer);
    t.answer = t.polling ? undefined : { rounds, exposition };
    exposition.catch(() => {
      if (t.answer?.exposition === exposition) t.answer = undefined;
    });
    return { status: 200, exposition: await exposition };
  }

  /**
   * A configured node's answer: rendered once per generation of the daemon's
   * exposition and shared by every probe of it until the next, so its text and
   * gzip are made once, as for /metrics, however many scrapers ask.
   */
  #nodeAnswer(name: string, started: number, config: Config): Promise<Exposition> {
    const render = () =>
      this.#render(
        name,
        this.#opts.store.all().filter((s) => s.node === name),
        started,
        config,
      ).then(keptAnswer);
    const generation = this.#opts.generation?.();
    if (generation === undefined) return render();
    if (generation !== this.#answersGeneration) {
      this.#nodeAnswers.clear();
      this.#answersGeneration = generation;
    }
    let answer = this.#nodeAnswers.get(name);
    if (!answer) {
      answer = render();
      this.#nodeAnswers.set(name, answer);
      // A failed render is not kept: the next probe tries again.
      answer.catch(() => {
        if (this.#nodeAnswers.get(name) === answer) this.#nodeAnswers.delete(name);
      });
    }
    return answer;
  }

  /** Stops every probe-only poller (aborting rounds in flight) and refuses later probe-only probes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    const all = [...this.#targets.values()];
    this.#targets.clear();
    await Promise.all(all.map((t) => t.poller.stop()));
  }

  /** How long a probe may wait for a round: the round's own deadline, or less when Prometheus says so. */
  #waitBudgetMs(config: Config, scrapeTimeoutSeconds: number | undefined): number {
    // A little past the round's deadline: its sources end at the deadline and are recorded right after. (On a saturated
    // loop the deadline may move on, src/http/round-deadline.ts: the probe then answers with what the round has so far.)
    const own = config.poll.timeoutMs + 250;
    if (scrapeTimeoutSeconds === undefined) return own;
    const scrapeMs = scrapeTimeoutSeconds * 1000;
    // Short scrape timeouts keep half of themselves rather than nothing.
    return Math.min(own, Math.max(scrapeMs - PROBE_TIMEOUT_OFFSET_MS, scrapeMs / 2));
  }

  /** The node's series (and only its: every sample whose `node` label is this node) plus the probe's own figures. */
  #render(name: string, states: readonly SourceState[], started: number, config: Config): Promise<Exposition> {
    return this.#renderLimit.run(() => this.#renderNow(name, states, started, config));
  }

  async #renderNow(name: string, states: readonly SourceState[], started: number, config: Config): Promise<Exposition> {
    this.renders++;
    const nowMs = Date.now();
    const maxAgeMs = config.poll.maxAgeMs;
    const extraMaxAgeBySource = sourceMinIntervals(config.poll, this.#opts.sources);
    const samples: Sample[] = assembleSamples({ states, sources: this.#byName, nowMs, maxAgeMs, extraMaxAgeBySource, build: NO_BUILD, ready: true }).filter(
      (s) => s.labels['node'] === name,
    );
    const labels = { node: name };
    const identity = states.find((s) => s.source === this.#opts.identitySource);
    const fresh = identity?.up === true && isFresh(identity.lastSuccessMs, nowMs, maxAgeMs);
    samples.push({ name: 'avax_probe_success', labels, value: fresh ? 1 : 0 });
    if (identity?.lastAttemptMs !== undefined)
      samples.push({ name: 'avax_probe_poll_age_seconds', labels, value: Math.max(0, nowMs - identity.lastAttemptMs) / 1000 });
    samples.push({ name: 'avax_probe_duration_seconds', labels, value: (performance.now() - started) / 1000 });
    const renderer = new ExpositionRenderer();
    const exposition = await renderer.render(samples);
    if (renderer.rejected > 0) this.#opts.logger.error({ rejected: renderer.rejected, node: name }, 'samples did not match their metric definitions');
    return exposition;
  }

  /**
   * Drops probe-only targets that were not probed for `probe.idle_timeout`, or
   * that a reload took off the allow-list or changed (a changed one starts
   * again from nothing on its next probe).
   */
  #sweep(nowMs: number): void {
    const config = this.#opts.config();
    const allowed = new Map(config.probe.targets.map((n) => [targetKey(n.url), n]));
    // A URL that became a configured node's is answered by that node's poller from now on.
    const nodeKeys = new Set(this.#opts.nodes().map((n) => targetKey(n.url)));
    let changed = false;
    for (const [key, t] of this.#targets) {
      const entry = allowed.get(key);
      const why =
        entry === undefined || nodeKeys.has(key)
          ? 'no longer on the allow-list'
          : !sameSettings(entry, t.node) || !sameSettings(config.poll, t.poll)
            ? 'configuration changed'
            : nowMs - t.lastProbeMs > config.probe.idleTimeoutMs
              ? 'not probed for probe.idle_timeout'
              : undefined;
      if (why === undefined) continue;
      this.#targets.delete(key);
      void t.poller.stop();
      changed = true;
      this.#opts.logger.info({ node: t.node.name, url: redactUrl(t.node.url), reason: why, targets: this.#targets.size }, 'probe target dropped');
    }
    if (this.#targets.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    if (changed) this.#opts.onTargetsChanged?.();
  }

  /**
   * Makes room by dropping a one-off: a target probed once, more than a poll
   * interval ago, and not polling now (the least recently probed first). A
   * scraper probes its targets every scrape interval, so a target probed once
   * and not since is not scraped; without this, a client probing each allowed
   * URL once would hold every slot for probe.idle_timeout.
   */
  #evictOneOff(nowMs: number, config: Config): void {
    let victim: [string, ProbeTarget] | undefined;
    for (const entry of this.#targets) {
      const t = entry[1];
      if (t.probes > 1 || t.polling || nowMs - t.lastProbeMs < config.poll.intervalMs) continue;
      if (!victim || t.lastProbeMs < victim[1].lastProbeMs) victim = entry;
    }
    if (!victim) return;
    const [key, t] = victim;
    this.#targets.delete(key);
    void t.poller.stop();
    this.#opts.logger.info(
      { node: t.node.name, url: redactUrl(t.node.url), reason: 'probed once and not since, its place is needed', targets: this.#targets.size },
      'probe target dropped',
    );
    this.#opts.onTargetsChanged?.();
  }

  #startSweeper(idleTimeoutMs: number): void {
    if (this.#sweeper) return;
    // Often enough that an idle target goes soon after its timeout, rarely enough to cost nothing.
    const everyMs = Math.min(30_000, Math.max(100, idleTimeoutMs / 4));
    this.#sweeper = setInterval(() => this.#sweep(Date.now()), everyMs);
    this.#sweeper.unref();
  }

  #refuse(status: 400 | 403 | 503, reason: string, target: string): ProbeOutcome {
    // The target is the client's text: shown shortened, with any password masked.
    const shown = redactUrl(target).slice(0, 200);
    const key = `${status} ${reason} ${shown}`;
    const now = this.#now();
    this.#warnRefilledMs ??= now;
    const refill = Math.floor((now - this.#warnRefilledMs) / REFUSAL_WARN_REFILL_MS);
    if (refill > 0) {
      this.#warnTokens = Math.min(REFUSAL_WARN_BURST, this.#warnTokens + refill);
      this.#warnRefilledMs += refill * REFUSAL_WARN_REFILL_MS;
    }
    const last = this.#warned.get(key);
    const repeated = last !== undefined && now - last < REFUSAL_REPEAT_MS;
    if (!repeated && this.#warnTokens > 0) {
      this.#warnTokens--;
      if (this.#warned.size >= 10_000) this.#warned.clear();
      this.#warned.set(key, now);
      const suppressed = this.#suppressed;
      this.#suppressed = 0;
      this.#opts.logger.warn({ target: shown, status, reason, ...(suppressed ? { suppressed } : {}) }, 'probe refused');
    } else {
      if (!repeated) this.#suppressed++;
      this.#opts.logger.debug({ target: shown, status, reason }, 'probe refused');
    }
    return { status, message: `target refused: ${reason}` };
  }
}
