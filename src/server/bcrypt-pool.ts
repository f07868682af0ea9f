import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt comparisons in `worker_threads`, off the event loop. bcryptjs in the
 * main thread runs in chunks of up to 100 ms, and Node accepts one connection
 * per loop turn: a few dozen wrong passwords a second kept the accept queue
 * full and every new scrape out (issue 23). In a worker, a comparison costs
 * the loop one message each way.
 *
 * The worker is started from inline code (`eval: true`), not from a file
 * path, so that a bundle or a single executable needs no worker file beside
 * it: the code is bcryptjs's own self-contained UMD build (read once from
 * `node_modules`, or, in a Node single executable, from its `bcryptjs.js`
 * asset) followed by a ten-line message loop.
 */

/** Name of the single-executable asset holding bcryptjs's UMD build (the SEA config must list it). */
export const SEA_BCRYPT_ASSET = 'bcryptjs.js';

/** The text of bcryptjs's UMD build, or undefined when it cannot be found (then comparisons run in-process). */
function bcryptSource(): string | undefined {
  // A single executable has no node_modules: its build embeds the file as an asset. (getBuiltinModule, not an
  // import: node:sea exists only from Node 20.12, and a bundler must leave it alone.)
  const sea = process.getBuiltinModule?.('node:sea') as { isSea?: () => boolean; getAsset?: (k: string, enc: string) => string } | undefined;
  if (sea?.isSea?.()) {
    try {
      return sea.getAsset?.(SEA_BCRYPT_ASSET, 'utf8');
    } catch {
      return undefined;
    }
  }
  try {
    // The `require` condition of bcryptjs's exports is its UMD build (umd/index.js). import.meta.url is
    // empty in a CommonJS bundle: resolve from the working directory then.
    const from = typeof import.meta.url === 'string' && import.meta.url !== '' ? import.meta.url : `${process.cwd()}/`;
    return readFileSync(createRequire(from).resolve('bcryptjs'), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The worker's code: bcryptjs in a CommonJS wrapper, then one comparison per
 * message. It uses no `require` of its own (an eval worker is an ES module
 * when the process runs with `--input-type=module`): builtins come from
 * process.getBuiltinModule, which is all bcryptjs asks for (`crypto`).
 */
function workerCode(source: string): string {
  return `'use strict';
const builtin = (id) => process.getBuiltinModule(id.startsWith('node:') ? id : 'node:' + id);
const { parentPort } = builtin('worker_threads');
const bcryptModule = { exports: {} };
(function (exports, module, require) {
${source}
})(bcryptModule.exports, bcryptModule, builtin);
const bcrypt = bcryptModule.exports;
parentPort.on('message', (m) => {
  const t0 = performance.now();
  let ok = false;
  try { ok = bcrypt.compareSync(m.password, m.hash); } catch { ok = false; }
  parentPort.postMessage({ id: m.id, ok, ms: performance.now() - t0 });
});
`;
}

/** One comparison's outcome and how long bcrypt took, in ms. */
export interface Comparison {
  ok: boolean;
  ms: number;
}

interface Job {
  id: number;
  resolve: (c: Comparison) => void;
  reject: (e: Error) => void;
}

/** One worker and the comparison it runs (one at a time: bcrypt is CPU-bound). */
class Slot {
  readonly worker: Worker;
  job: Job | undefined;
  constructor(code: string, onExit: (slot: Slot) => void) {
    this.worker = new Worker(code, { eval: true, name: 'avax-exporter-bcrypt' });
    // The pool must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (m: { id: number; ok: boolean; ms: number }) => {
      const job = this.job;
      if (!job || job.id !== m.id) return;
      this.job = undefined;
      job.resolve({ ok: m.ok, ms: m.ms });
    });
    const fail = (err: Error) => {
      const job = this.job;
      this.job = undefined;
      job?.reject(err);
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('bcrypt worker exited')));
  }
}

/**
 * A fixed number of bcrypt workers, started on first use. Callers bound the
 * work they hand it (see BasicAuth): {@link compare} runs at once when a
 * worker is free and otherwise waits in an unbounded FIFO.
 */
export class BcryptPool {
  readonly #size: number;
  #code: string | undefined | null = null;
  readonly #slots: Slot[] = [];
  readonly #waiting: { password: string; hash: string; resolve: (c: Comparison) => void; reject: (e: Error) => void }[] = [];
  #nextId = 1;
  #closed = false;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** Whether comparisons run in workers (false when bcryptjs's source could not be found: then they run in-process). */
  get threaded(): boolean {
    if (this.#code === null) {
      const source = bcryptSource();
      this.#code = source === undefined ? undefined : workerCode(source);
    }
    return this.#code !== undefined;
  }

  /** Compares `password` with `hash` in a worker. */
  compare(password: string, hash: string): Promise<Comparison> {
    if (!this.threaded) {
      const t0 = performance.now();
      // Loaded here, not at start-up: only basic auth compares, and then normally in workers (~1-2 MB otherwise held for nothing).
      return import('bcryptjs')
        .then(({ default: bcrypt }) => bcrypt.compare(password, hash))
        .then(
          (ok) => ({ ok, ms: performance.now() - t0 }),
          () => ({ ok: false, ms: performance.now() - t0 }),
        );
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ password, hash, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (!this.#closed && this.#waiting.length > 0) {
      let slot = this.#slots.find((s) => s.job === undefined);
      if (!slot && this.#slots.length < this.#size) {
        slot = new Slot(this.#code as string, (dead) => {
          const i = this.#slots.indexOf(dead);
          if (i >= 0) this.#slots.splice(i, 1);
          this.#dispatch();
        });
        this.#slots.push(slot);
      }
      if (!slot) return;
      const next = this.#waiting.shift();
      if (!next) return;
      const id = this.#nextId++;
      slot.job = {
        id,
        resolve: (c) => {
          next.resolve(c);
          this.#dispatch();
        },
        reject: (e) => {
          next.reject(e);
          this.#dispatch();
        },
      };
      slot.worker.postMessage({ id, password: next.password, hash: next.hash });
    }
  }

  /** Stops the workers; comparisons in flight fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#waiting.splice(0)) w.reject(new Error('bcrypt pool closed'));
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
