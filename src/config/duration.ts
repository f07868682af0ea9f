/**
 * Prometheus-style durations: `500ms`, `15s`, `2m`, `1h30m`, `1d`. A bare
 * number is rejected so that `15` is never silently read as 15 ms.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses a duration string into milliseconds; returns undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '' || s === '0') return s === '0' ? 0 : undefined;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    consumed = re.lastIndex;
  }
  return consumed === s.length ? Math.round(total) : undefined;
}

/**
 * Writes milliseconds as a duration setting: the shortest string that parses
 * back to it (`1h30m`, `1m0s500ms` never: `1m500ms`). Not for people reading a
 * page: status-kit's formatDuration rounds seconds to two units (`3d 4h`).
 */
export function writeDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}
