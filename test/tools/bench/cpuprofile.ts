/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by
 * where the code lives (a package, a file of ours, Node internals, GC), so the
 * benchmark can say where the time goes. Also runnable on its own:
 * `node --import tsx test/tools/bench/cpuprofile.ts <file.cpuprofile> [top]`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** One line of a summary. */
export interface ProfileEntry {
  name: string;
  ms: number;
  share: number;
}

/** Self time of a profile, by function and by place. */
export interface ProfileSummary {
  totalMs: number;
  /** Time not idle (program + GC + native). */
  busyMs: number;
  byFunction: ProfileEntry[];
  byPlace: ProfileEntry[];
}

function placeOf(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'native/program';
  if (url === '') return fn.startsWith('(') ? fn : 'native (builtins)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  return src !== -1 ? url.slice(src + 1) : url;
}

/** Summarises a profile; `top` entries per list. */
export function summarizeProfile(profile: Profile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] as number;
    self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  const fn = new Map<string, number>();
  const place = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (!n) continue;
    total += us;
    const f = n.callFrame;
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
    fn.set(key, (fn.get(key) ?? 0) + us);
    const p = placeOf(f.url, f.functionName);
    place.set(p, (place.get(p) ?? 0) + us);
  }
  const busy = total - idle;
  const list = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, byFunction: list(fn), byPlace: list(place) };
}

/** Reads and summarises a .cpuprofile file. */
export function summarizeProfileFile(path: string, top = 15): ProfileSummary {
  return summarizeProfile(JSON.parse(readFileSync(path, 'utf8')) as Profile, top);
}

/** Plain-text rendering of a summary. */
export function formatProfileSummary(s: ProfileSummary): string {
  const lines = [`busy ${s.busyMs.toFixed(0)} ms of ${s.totalMs.toFixed(0)} ms sampled`, '', 'self time by place:'];
  for (const e of s.byPlace) lines.push(`  ${(e.share * 100).toFixed(1).padStart(5)} %  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`);
  lines.push('', 'self time by function:');
  for (const e of s.byFunction) lines.push(`  ${(e.share * 100).toFixed(1).padStart(5)} %  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: cpuprofile.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatProfileSummary(summarizeProfileFile(file, Number(process.argv[3] ?? 25)))}\n`);
}
