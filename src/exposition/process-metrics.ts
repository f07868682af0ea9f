import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { Registry, collectDefaultMetrics } from 'prom-client';

const gzipAsync = promisify(gzip);

const LINT_FAILURES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** A rendered block of process metrics. */
export interface ProcessBlock {
  text: Buffer;
  gzip: Buffer;
}

/**
 * The process_* and nodejs_* metrics from prom-client. They change all the
 * time, so they are not part of the exposition rendered after each poll;
 * instead a small block is rendered at most once per `maxAgeMs` and appended
 * to every scrape. Its gzip form is a separate gzip member: a gzip stream may
 * hold several members back to back, which every gzip reader accepts.
 */
class ProcessMetrics {
  readonly #registry = new Registry();
  #block: ProcessBlock = { text: Buffer.alloc(0), gzip: Buffer.alloc(0) };
  #renderedAt = 0;
  #refreshing: Promise<void> | undefined;

  constructor(private readonly maxAgeMs = 1_000) {
    // A 100 ms loop-lag sampler instead of the 10 ms default: the same picture for a scrape every 15 s, a tenth of the idle CPU.
    collectDefaultMetrics({ register: this.#registry, eventLoopMonitoringPrecision: 100 });
    // These prom-client gauges carry a `_total` suffix, which the naming rules
    // (and promtool) reserve for counters; the un-suffixed gauges say the same.
    for (const name of LINT_FAILURES) this.#registry.removeSingleMetric(name);
  }

  /** Renders the block now. */
  async refresh(): Promise<ProcessBlock> {
    const text = Buffer.from(await this.#registry.metrics(), 'utf8');
    this.#block = { text, gzip: await gzipAsync(text) };
    this.#renderedAt = Date.now();
    return this.#block;
  }

  /** The current block; starts a background refresh when it is older than the max age. */
  current(): ProcessBlock {
    if (Date.now() - this.#renderedAt > this.maxAgeMs && !this.#refreshing) {
      this.#refreshing = this.refresh()
        .catch(() => undefined)
        .then(() => {
          this.#refreshing = undefined;
        });
    }
    return this.#block;
  }
}

let shared: ProcessMetrics | undefined;

/**
 * The process's one block. Every daemon of a process describes the same
 * process, so they share it: a second daemon (the tests start dozens in one
 * process) would otherwise collect the same figures again on each scrape and
 * start another loop-lag sampler that nothing ever stops.
 */
export function processMetricsOfThisProcess(): ProcessMetrics {
  shared ??= new ProcessMetrics();
  return shared;
}
