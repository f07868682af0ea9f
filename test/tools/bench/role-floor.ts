/**
 * Child role `floor`: the limit a poll round is compared with, measured in a
 * process of its own in the same run. What no exporter can avoid: parsing the
 * answers the round received (each body decoded and JSON.parse'd, as many
 * times as the round received it) and, where the round also renders, writing
 * the same exposition lines from ready strings and gzipping them once (at the
 * daemon's level, 1). CPU from process.cpuUsage (all threads), the median of
 * several batches, each long enough to measure.
 *
 * Beside it, a reference that counts the exchange too (`exchange`): the same
 * calls asked again of the same fake servers by a bare node:http client
 * (keep-alive, four connections per origin as the exporter's transport) and
 * their answers parsed. It is what any Node.js poller spends on those calls
 * before doing anything with them; the parse-only floor leaves out the
 * requests themselves, which on a small round cost several times the parsing.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Agent } from 'node:http';
import type { RecordedKind } from './role-fake.js';
import { askBody } from './replay.js';
import type { Role } from './child.js';

/** The floor's parts, ms of CPU. */
export interface ParseFloor {
  /** Parsing every answer received, once per time it was received. */
  parseMs: number;
  /** The bytes those answers came to. */
  bytes: number;
  /** Per kind of call: ms per parse of one answer. */
  perKind: { kind: string; count: number; bytes: number; msPerParse: number }[];
}

/** Writing an exposition's lines from ready strings (joined) and gzipping the result once, ms of CPU. */
export interface WriteFloor {
  bytes: number;
  lines: number;
  joinMs: number;
  gzipMs: number;
}

/** The exchange floor: CPU of a bare client asking the calls again and parsing their answers. */
export interface ExchangeFloor {
  /** CPU ms for every call received (the replayed ones scaled up to the count received). */
  exchangeMs: number;
  /** Calls received. */
  calls: number;
  /** Calls asked again (at most the `maxCalls` asked for, spread over the kinds by their counts). */
  replayed: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms of one `fn()`: the median over `batches` batches of `reps` runs each (after one warm-up run). */
function cpuPerRun(fn: () => unknown, reps: number, batches = 5): number {
  fn();
  const per: number[] = [];
  for (let b = 0; b < batches; b++) {
    const c0 = cpuMs();
    for (let i = 0; i < reps; i++) fn();
    per.push((cpuMs() - c0) / reps);
  }
  per.sort((x, y) => x - y);
  return per[Math.floor(per.length / 2)] as number;
}

/** Repetitions so one batch handles about 4 MB (a batch of a few ms at least). */
const repsFor = (bytes: number) => Math.max(1, Math.min(2_000, Math.ceil(4_000_000 / Math.max(1, bytes))));

/** Runs `tasks` with at most `width` of them at once. */
async function pooled(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

export function startFloorRole(): Promise<Role> {
  return Promise.resolve({
    info: {},
    handlers: {
      /** Parses each kind's recorded answer; the CPU of parsing every answer received (count × one parse). */
      parse(a: unknown): ParseFloor {
        const { kinds } = a as { kinds: RecordedKind[] };
        let parseMs = 0;
        let bytes = 0;
        const perKind: ParseFloor['perKind'] = [];
        for (const k of kinds) {
          const body = readFileSync(k.file);
          // An answer that is not JSON (a 404 page for a route the node does not have) is not parsed by the daemon either.
          if (!isJson(body)) {
            perKind.push({ kind: `${k.kind} (not JSON: not parsed)`, count: k.count, bytes: body.length, msPerParse: 0 });
            continue;
          }
          const ms = cpuPerRun(() => JSON.parse(body.toString('utf8')), repsFor(body.length));
          perKind.push({ kind: k.kind, count: k.count, bytes: body.length, msPerParse: ms });
          parseMs += ms * k.count;
          bytes += body.length * k.count;
        }
        return { parseMs, bytes, perKind };
      },
      /**
       * Asks the recorded calls again with a bare node:http client and parses
       * the answers: as many of each kind as were received, or, past
       * `maxCalls`, that many spread over the kinds by their counts (the CPU
       * then scaled up to every call received). The calls of all kinds are
       * interleaved, four at a time per origin, after one warm-up pass.
       */
      async exchange(a: unknown): Promise<ExchangeFloor> {
        const { kinds, maxCalls } = a as { kinds: RecordedKind[]; maxCalls: number };
        const calls = kinds.reduce((n, k) => n + k.count, 0);
        const scale = Math.min(1, maxCalls / Math.max(1, calls));
        const agent = new Agent({ keepAlive: true, maxSockets: 4 });
        const json = kinds.map((k) => isJson(readFileSync(k.file)));
        const ask = (i: number) => async () => {
          const body = await askBody((kinds[i] as RecordedKind).request, agent);
          if (json[i]) JSON.parse(body.toString('utf8'));
        };
        // One of each first: connections open and code warm, as in a daemon that has run a while.
        await pooled(
          kinds.map((_, i) => ask(i)),
          4,
        );
        // Round-robin over the kinds, each until its share is asked.
        const left = kinds.map((k) => Math.max(1, Math.round(k.count * scale)));
        const tasks: (() => Promise<void>)[] = [];
        for (let more = true; more;) {
          more = false;
          for (let i = 0; i < kinds.length; i++) {
            if ((left[i] as number) > 0) {
              left[i] = (left[i] as number) - 1;
              tasks.push(ask(i));
              more = true;
            }
          }
        }
        const c0 = cpuMs();
        await pooled(tasks, 4 * new Set(kinds.map((k) => new URL(k.request.url).origin)).size);
        const spent = cpuMs() - c0;
        agent.destroy();
        return { exchangeMs: (spent * calls) / tasks.length, calls, replayed: tasks.length };
      },
      /** The exposition in `file` as ready lines: joined, then gzipped once. */
      write(a: unknown): WriteFloor {
        const { file } = a as { file: string };
        const text = readFileSync(file, 'utf8');
        const lines = text.split('\n');
        const joined = lines.join('\n');
        const reps = repsFor(joined.length);
        return {
          bytes: Buffer.byteLength(joined),
          lines: lines.length,
          joinMs: cpuPerRun(() => Buffer.from(lines.join('\n'), 'utf8'), reps),
          gzipMs: cpuPerRun(() => gzipSync(joined, { level: 1 }), Math.max(1, Math.ceil(reps / 4))),
        };
      },
    },
  });
}
