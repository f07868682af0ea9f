/**
 * The benchmark's process plumbing: every measured server (the daemon, the
 * per-scrape prom-client baseline, the static reference) and the fake nodes run
 * in child processes of their own, so each one's CPU accounting is its own and
 * never includes the load client or the upstream. The parent talks to them over
 * the IPC channel with numbered requests, each with a timeout, and kills every
 * child it started when it ends, on success, error or signal.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A request from the parent. */
export interface IpcRequest {
  id: number;
  cmd: string;
  args?: unknown;
}

/** A child's answer to one request. */
export type IpcReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** The first message of a child: started (with what it wants the parent to know) or failed. */
export type IpcHello = { hello: true; ok: true; info: unknown } | { hello: true; ok: false; error: string };

/** What every child answers to `usage`: its own CPU and memory accounting. */
export interface Usage {
  /** process.cpuUsage(): user and system CPU of the whole process (all threads), microseconds. */
  cpuUserUs: number;
  cpuSystemUs: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** Peak resident set size since the process started. */
  maxRssBytes: number;
  /** performance.now() in the child (ms), to pair CPU with wall time. */
  atMs: number;
}

/**
 * Time the process's main thread (the event loop) spent runnable but waiting
 * for a CPU (ms), from /proc/<pid>/schedstat; undefined where that is not
 * available. On a shared machine this says how much of a window's wall-clock
 * figures (latency, event-loop delay) is the machine's doing, not the program's.
 */
export function procRunQueueWaitMs(pid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a process (all its threads) as the kernel accounts it, in ms;
 * undefined off Linux. Read from outside, so it does not depend on the child's
 * event loop being free to answer: the sum of each thread's on-CPU nanoseconds
 * (/proc/<pid>/task/<tid>/schedstat), or utime + stime from /proc/<pid>/stat
 * (10 ms ticks) where schedstat is not available.
 */
export function procCpuMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // no schedstat: fall back to /proc/<pid>/stat
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ is 100 on every Linux architecture Node supports.
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** How children are started: the compiled child entry with plain node (default), or the TypeScript one through tsx. */
let childEntry = { file: fileURLToPath(new URL('./child.ts', import.meta.url)), execArgv: ['--import', tsxLoader()] };

/** Starts children from compiled JavaScript (as the exporter runs in production: no loader thread, no transpiler). */
export function useCompiledChildren(childJs: string): void {
  childEntry = { file: childJs, execArgv: [] };
}

function tsxLoader(): string {
  try {
    return import.meta.resolve('tsx');
  } catch {
    return 'tsx';
  }
}

/** Every child started and not yet reaped, for the last-resort cleanup. */
const live = new Set<BenchChild>();

/** Kills every child still running (SIGKILL, by pid). Synchronous, so it can run in an 'exit' handler. */
export function killAllChildren(): void {
  for (const c of live) c.kill();
}

/** Options of {@link BenchChild.spawn}. */
export interface SpawnOptions {
  /** Directory for the child's stdout/stderr log. */
  logDir: string;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** How long the child may take to say hello. */
  startTimeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

/** One child process running a role of test/tools/bench/child.ts. */
export class BenchChild {
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  #exited = false;
  readonly exited: Promise<void>;

  private constructor(
    readonly role: string,
    readonly proc: ChildProcess,
    readonly logFile: string,
  ) {
    this.exited = new Promise<void>((resolve) => {
      proc.once('exit', () => {
        this.#exited = true;
        live.delete(this);
        for (const [, p] of this.#pending) {
          clearTimeout(p.timer);
          p.reject(new Error(`${role} child exited (log: ${logFile})`));
        }
        this.#pending.clear();
        resolve();
      });
    });
    proc.on('message', (m: unknown) => {
      const r = m as Partial<IpcReply>;
      if (typeof r.id !== 'number') return;
      const p = this.#pending.get(r.id);
      if (!p) return;
      this.#pending.delete(r.id);
      clearTimeout(p.timer);
      if (r.ok) p.resolve((r as { result: unknown }).result);
      else p.reject(new Error(`${role}: ${(r as { error: string }).error}`));
    });
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** Starts `role` with `args` and waits for its hello; returns the child and what it reported. */
  static async spawn<I>(role: string, args: unknown, opts: SpawnOptions): Promise<{ child: BenchChild; info: I }> {
    const logFile = join(opts.logDir, `${role}.log`);
    const fd = openSync(logFile, 'a');
    let proc: ChildProcess;
    try {
      proc = fork(childEntry.file, [role, JSON.stringify(args)], {
        execArgv: [...childEntry.execArgv, ...(opts.nodeArgs ?? [])],
        stdio: ['ignore', fd, fd, 'ipc'],
        env: { ...process.env, NODE_ENV: 'production', ...opts.env },
      });
    } finally {
      closeSync(fd);
    }
    const child = new BenchChild(role, proc, logFile);
    live.add(child);
    const timeoutMs = opts.startTimeoutMs ?? 60_000;
    try {
      const info = await new Promise<I>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${role} child did not start within ${timeoutMs} ms (log: ${logFile})`)), timeoutMs);
        proc.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`${role} child exited during start-up (code ${code}, signal ${signal}; log: ${logFile})`));
        });
        const onHello = (m: unknown) => {
          const h = m as Partial<IpcHello>;
          if (h.hello !== true) return;
          proc.off('message', onHello);
          clearTimeout(timer);
          if (h.ok) resolve((h as { info: I }).info);
          else reject(new Error(`${role} child failed to start: ${(h as { error: string }).error} (log: ${logFile})`));
        };
        proc.on('message', onHello);
      });
      return { child, info };
    } catch (err) {
      child.kill();
      throw err;
    }
  }

  /** Sends a command and waits for its answer (rejects after `timeoutMs`). */
  request<T>(cmd: string, args?: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.#exited) return Promise.reject(new Error(`${this.role} child is not running (log: ${this.logFile})`));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.role}: '${cmd}' got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.proc.send({ id, cmd, args } satisfies IpcRequest);
    });
  }

  /** The child's own CPU and memory accounting. */
  usage(timeoutMs = 30_000): Promise<Usage> {
    return this.request<Usage>('usage', undefined, timeoutMs);
  }

  /** The child's CPU time so far (ms): from the kernel's accounting when it can be read, else the child's own process.cpuUsage(). */
  async cpuMs(): Promise<number> {
    const fromProc = procCpuMs(this.pid);
    if (fromProc !== undefined) return fromProc;
    const u = await this.usage(120_000);
    return (u.cpuUserUs + u.cpuSystemUs) / 1000;
  }

  /** Time the child's event-loop thread waited for a CPU so far (ms); NaN where it cannot be read. */
  runQueueWaitMs(): number {
    return procRunQueueWaitMs(this.pid) ?? NaN;
  }

  /** Asks the child to exit (so --cpu-prof can write its profile), then kills it if it has not within `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.#exited) return;
    this.request('exit', undefined, graceMs).catch(() => undefined);
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGKILL, now. */
  kill(): void {
    if (this.#exited) return;
    try {
      this.proc.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
