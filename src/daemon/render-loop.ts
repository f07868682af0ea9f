import type { Logger } from '../log.js';
import { SampleAssembler } from '../exposition/assemble.js';
import { ExpositionRenderer, type Exposition } from '../exposition/render.js';
import type { MetricDef, SampleGroup } from '../metrics/metric-defs.js';
import { LATE_SLICE_MS, SLICE_MS, type SlicePolicy } from '../exposition/time-slice.js';

/** The moment a render is of: its clock, whether every node had completed a round, and the previous exposition's series count. */
export interface RenderMoment {
  nowMs: number;
  ready: boolean;
  prevSeries: number;
}

/** What the render loop renders: the state and the fleet's progress, as the rest of the daemon keeps them. */
export interface RenderInput {
  /** Completed rounds of each node poller (not the Data API's: readiness and round waits are about the nodes). */
  nodeRounds(): readonly number[];
  /** Drops values too old to serve as of `nowMs`; called before each render. */
  expire(nowMs: number): void;
  /** The samples of the state as of `at`, in groups, assembled by `assembler` (which may keep what it made for unchanged values). */
  assemble(at: RenderMoment, assembler: SampleAssembler): SampleGroup[];
}

/** Freshness lags kept for {@link RenderLoop.freshnessLagsMs}. */
const MAX_FRESHNESS_LAGS = 1_024;

/**
 * Renders of an exposition smaller than this are never held back: a few
 * nodes' state renders in a millisecond or two, and a reload's outcome or a
 * round's change is served at once. Above it (a fleet of about 20 mainnet
 * nodes and more) a render costs the whole fleet's series walked, while one
 * node's round changes only that node's: at 1,000 nodes, 67 rounds end every
 * second, and a render after each would cost the fleet's size squared.
 */
export const PAUSED_RENDER_SERIES = 5_000;

/**
 * Above that size, a render waits until this many times the last one's
 * duration has passed since it started: renders (their gzip included) then
 * take at most a twentieth of the time however often rounds end.
 */
export const RENDER_GAP_FACTOR = 19;

/**
 * Above that size and with several nodes, renders also start at least this
 * far apart: each render compresses again the runs of series the rounds
 * since the last one changed, and the rounds of a fleet's nodes, started one
 * after another, change neighbouring runs, so a render that gathers a few
 * rounds compresses little more than one that shows one.
 */
export const FLEET_RENDER_GAP_MS = 500;

/** The longest pause, so a round's change is served well within a second. */
export const MAX_RENDER_GAP_MS = 600;

/**
 * A render is late once the oldest round it serves ended this long ago: past
 * the longest pause, so only a render that a saturated loop held up (a
 * thousand nodes' polls, a burst of collections) gets there. A late render
 * runs longer slices between its yields, so it ends within a few of the
 * loop's turns rather than dozens, and the change is served within a second.
 */
export const LATE_RENDER_MS = 700;

/** The slice length of a render whose oldest round ended `lateByMs` ago (undefined: it serves no round). Pure. */
export function renderSliceMs(lateByMs: number | undefined): number {
  return lateByMs !== undefined && lateByMs >= LATE_RENDER_MS ? LATE_SLICE_MS : SLICE_MS;
}

/**
 * Owns the served exposition: renders after poll rounds, coalescing rounds
 * that end together, or close after one another, into one render; makes its
 * gzip before serving it, so a scrape never waits for a compression;
 * measures how fresh /metrics is; answers readiness (the served exposition
 * holds every node's first round) and resolves waiters on renders and on
 * rounds.
 */
export class RenderLoop {
  // Both keep what they made for unchanged source values, so a render after one node's round formats that node only.
  readonly #renderer: ExpositionRenderer;
  readonly #assembler = new SampleAssembler();
  readonly #extraMetrics: Readonly<Record<string, MetricDef>> | undefined;
  readonly #logger: Logger;
  #input: RenderInput | undefined;
  #exposition: Exposition | undefined;
  #rendering: Promise<void> | undefined;
  /** Whether the render in flight has not started yet (it waits out the pause after the last one, and will see every change until it starts). */
  #pausing = false;
  #dirty = false;
  /** When the last render started and how long it took (performance.now() ms), for the pause before the next. */
  #lastStartMs = 0;
  #lastDurationMs = 0;
  /** Each node poller's completed rounds as of the last render's start. */
  #roundsAtLast: readonly number[] = [];
  #renders = 0;
  // performance.now() at the end of the earliest round that no served render includes yet.
  #unservedRoundEnd: number | undefined;
  readonly #freshnessLags: number[] = [];
  readonly #renderWaiters: { afterRender: number; resolve: () => void }[] = [];
  readonly #roundWaiters: { target: number; resolve: () => void }[] = [];
  // Ready only once the served exposition contains every node's first round,
  // so a scraper told "ready" never gets the empty start-up exposition.
  #servedReady = false;
  #lastRender: RenderMoment = { nowMs: 0, ready: false, prevSeries: 0 };

  /** @param extraMetrics definitions of metrics outside the product's contract (sources' `metrics`). */
  constructor(logger: Logger, extraMetrics?: Readonly<Record<string, MetricDef>>) {
    this.#logger = logger;
    this.#extraMetrics = extraMetrics;
    this.#renderer = new ExpositionRenderer(extraMetrics);
  }

  /** Renders `input` for the first time; from then on, {@link requestRender} renders it again. */
  async start(input: RenderInput): Promise<void> {
    this.#input = input;
    await this.#renderNow();
  }

  /** The exposition currently served. */
  get exposition(): Exposition {
    if (!this.#exposition) throw new Error('the render loop has not rendered yet');
    return this.#exposition;
  }

  /** Renders completed so far (failed ones included): a generation number of the served exposition. */
  get renders(): number {
    return this.#renders;
  }

  /** True once the served exposition holds every node's first round. */
  readonly ready = (): boolean => this.#servedReady;

  /** The render in flight, if any (one that a change during it asked for may follow). */
  get inFlight(): Promise<void> | undefined {
    return this.#rendering;
  }

  /** Marks a round's end: the next render served makes it visible, and its lag is measured from now. */
  roundEnded(): void {
    this.#unservedRoundEnd ??= performance.now();
  }

  /** After a round's end is handled: hands round waiters over to the render that will hold it, and asks for that render. */
  roundsAdvanced(): void {
    const minRounds = this.#minRounds();
    // A render waiting out its pause has not started: it will hold these rounds.
    const nextRender = this.#renders + 1 + (this.#rendering && !this.#pausing ? 1 : 0);
    for (const w of this.#roundWaiters.splice(0)) {
      if (minRounds >= w.target) this.#renderWaiters.push({ afterRender: nextRender, resolve: w.resolve });
      else this.#roundWaiters.push(w);
    }
    this.requestRender();
  }

  /**
   * Renders again soon; changes that arrive while a render waits to start are
   * in it, and those that arrive while one runs are coalesced into one more.
   * When the served exposition has PAUSED_RENDER_SERIES series or more, a
   * render waits out a pause since the last one started (RENDER_GAP_FACTOR
   * times its duration, with several nodes FLEET_RENDER_GAP_MS at least, at
   * most MAX_RENDER_GAP_MS), unless every node has completed a round since:
   * then everything it shows is new (one node polled back to back), and
   * waiting would only make it late.
   */
  readonly requestRender = (): void => {
    // Before start() there is nothing to render yet; start() renders anyway.
    if (!this.#input) return;
    if (this.#rendering) {
      if (!this.#pausing) this.#dirty = true;
      return;
    }
    const waitMs = this.#everyNodeAdvanced() ? 0 : this.#lastStartMs + this.#pauseMs() - performance.now();
    const render =
      waitMs >= 1
        ? ((this.#pausing = true),
          new Promise<void>((resolve) => setTimeout(resolve, waitMs)).then(() => {
            this.#pausing = false;
            return this.#renderNow();
          }))
        : this.#renderNow();
    this.#rendering = render
      .catch((err: unknown) => {
        // The last good exposition stays served; nobody waits forever for this one.
        this.#logger.error({ err }, 'render failed');
        this.#renders++;
        for (const w of this.#renderWaiters.splice(0)) w.resolve();
      })
      .finally(() => {
        this.#rendering = undefined;
        if (this.#dirty) {
          this.#dirty = false;
          this.requestRender();
        }
      });
  };

  /** Resolves once no render runs (a chain of coalesced ones included). */
  async settle(): Promise<void> {
    while (this.#rendering) await this.#rendering;
  }

  /** Resolves after the next render that follows `rounds` more completed rounds of every node. */
  waitForRounds(rounds = 1): Promise<void> {
    const target = this.#minRounds() + rounds;
    return new Promise<void>((resolve) => this.#roundWaiters.push({ target, resolve }));
  }

  /** For each recent render that followed a completed round (the last 1,024), the milliseconds from that round's end to the render served, oldest first. */
  freshnessLagsMs(): readonly number[] {
    return this.#freshnessLags.slice();
  }

  /** Renders the served exposition's moment again with a fresh renderer and assembler: nothing cached, to check the cached path against. */
  renderFresh(): Promise<Exposition> {
    return new ExpositionRenderer(this.#extraMetrics).renderGroups(this.#inputOf().assemble(this.#lastRender, new SampleAssembler()), false);
  }

  /** Renders the served exposition's moment again with the loop's own caching renderer, without serving it: the cost of a render when nothing changed. */
  renderCached(): Promise<Exposition> {
    return this.#renderer.renderGroups(this.#inputOf().assemble(this.#lastRender, this.#assembler));
  }

  #inputOf(): RenderInput {
    if (!this.#input) throw new Error('the render loop has not started');
    return this.#input;
  }

  #minRounds(): number {
    return Math.min(...this.#inputOf().nodeRounds());
  }

  /** The pause after the last render's start before the next (see requestRender). */
  #pauseMs(): number {
    if ((this.#exposition?.series ?? 0) < PAUSED_RENDER_SERIES) return 0;
    const fleet = this.#inputOf().nodeRounds().length > 1 ? FLEET_RENDER_GAP_MS : 0;
    return Math.min(MAX_RENDER_GAP_MS, Math.max(fleet, RENDER_GAP_FACTOR * this.#lastDurationMs));
  }

  /** Whether every node poller has completed a round since the last render started. */
  #everyNodeAdvanced(): boolean {
    const rounds = this.#inputOf().nodeRounds();
    const last = this.#roundsAtLast;
    if (rounds.length === 0 || rounds.length !== last.length) return rounds.length > 0;
    for (let i = 0; i < rounds.length; i++) if ((rounds[i] as number) <= (last[i] as number)) return false;
    return true;
  }

  async #renderNow(): Promise<void> {
    const startMs = performance.now();
    try {
      await this.#renderAndServe();
    } finally {
      this.#lastStartMs = startMs;
      this.#lastDurationMs = performance.now() - startMs;
    }
  }

  async #renderAndServe(): Promise<void> {
    const input = this.#inputOf();
    this.#roundsAtLast = input.nodeRounds().slice();
    const covers = this.#unservedRoundEnd;
    this.#unservedRoundEnd = undefined;
    const nowMs = Date.now();
    const ready = input.nodeRounds().every((r) => r > 0);
    input.expire(nowMs);
    // The series count of the exposition being replaced: the new one's is only known once it is rendered.
    const prevSeries = this.#exposition?.series ?? 0;
    const sliceMs: SlicePolicy = () => renderSliceMs(covers === undefined ? undefined : performance.now() - covers);
    try {
      const exposition = await this.#renderer.renderGroups(input.assemble({ nowMs, ready, prevSeries }, this.#assembler), true, sliceMs);
      // Its gzip first, so no scrape waits for it; without one (zlib out of memory) it is served all the same, and a gzip scrape makes it again or gets the text.
      await exposition.gzip(sliceMs).catch((err: unknown) => this.#logger.warn({ err }, 'gzip of the exposition failed'));
      this.#exposition = exposition;
    } catch (err) {
      // Nothing new was served: the next render is still the one that makes these rounds visible.
      if (covers !== undefined) this.#unservedRoundEnd = Math.min(covers, this.#unservedRoundEnd ?? covers);
      throw err;
    }
    this.#lastRender = { nowMs, ready, prevSeries };
    this.#servedReady = ready;
    if (covers !== undefined) {
      this.#freshnessLags.push(performance.now() - covers);
      if (this.#freshnessLags.length > MAX_FRESHNESS_LAGS) this.#freshnessLags.splice(0, this.#freshnessLags.length - MAX_FRESHNESS_LAGS);
    }
    if (this.#renderer.rejected > 0) this.#logger.error({ rejected: this.#renderer.rejected }, 'samples did not match their metric definitions');
    this.#renders++;
    for (const w of this.#renderWaiters.splice(0)) {
      if (this.#renders >= w.afterRender) w.resolve();
      else this.#renderWaiters.push(w);
    }
  }
}
