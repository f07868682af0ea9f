import type { Exposition } from '../exposition/render.js';
import type { StateStore } from '../state/store.js';
import type { PollerHandle } from '../scheduler.js';

/**
 * What tests, soak runs and the benchmark reach inside a running daemon,
 * beyond what operators get: its state, its pollers, and ways to drive
 * rounds and renders. Obtained with {@link testHandle}; not part of the
 * public `Daemon`.
 */
export interface DaemonTestHandle {
  readonly store: StateStore;
  /** Node pollers first, in config order, then any other poller (changes on reload). */
  readonly pollers: readonly PollerHandle[];
  /** Renders the current state again with a fresh renderer, as of the served exposition's time (for checking the cache). */
  renderFresh(): Promise<Exposition>;
  /** Renders the current state again with the daemon's own (caching) renderer, without serving it: the cost of a render when nothing changed. */
  renderCached(): Promise<Exposition>;
  /** Runs one round of every node now and resolves once its render is served. */
  pollNow(): Promise<void>;
  /** Resolves after the next render that follows `rounds` more completed rounds of every node. */
  waitForRounds(rounds?: number): Promise<void>;
  /**
   * How fresh /metrics is: for each recent render that followed a completed
   * round (the last 1,024), the milliseconds from the end of the earliest
   * round it took in to the moment it was served, oldest first.
   */
  freshnessLagsMs(): readonly number[];
  /** Probe answers rendered so far (a configured node's is rendered once per /metrics render, however many probes ask). */
  probeRenders(): number;
}

const handles = new WeakMap<object, DaemonTestHandle>();

/** Records the test handle of a daemon (called by `startDaemon` only). */
export function registerTestHandle(daemon: object, handle: DaemonTestHandle): void {
  handles.set(daemon, handle);
}

/** The test handle of a daemon that `startDaemon` returned. */
export function testHandle(daemon: object): DaemonTestHandle {
  const handle = handles.get(daemon);
  if (!handle) throw new Error('not a daemon started by startDaemon');
  return handle;
}
