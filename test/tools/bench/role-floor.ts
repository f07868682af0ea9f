/**
 * Child role `floor`: the limit a poll round is compared with, measured in a
 * process of its own in the same run. What no exporter can avoid: parsing the
 * answers the round received (each body decoded and JSON.parse'd, as many
 * times as the round received it) and, where the round also renders, writing
 * the same exposition lines from ready strings and gzipping them once (at the
 * daemon's level, 1). CPU from process.cpuUsage (all threads), the median of
 * several batches, each long enough to measure.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { RecordedKind } from './role-fake.js';
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
