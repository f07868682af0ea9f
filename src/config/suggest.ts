/**
 * "Did you mean …": the known name closest to a mistyped one, for unknown
 * flags, variables and YAML keys. Names are compared case-blind with `.`, `-`
 * and `_` as one separator (so `poll-interval`, `POLL_INTERVAL` and
 * `poll.interval` are the same name), by edit distance (a swap of two
 * neighbours counts once). Pure.
 */

function normal(s: string): string {
  return s.toLowerCase().replace(/[._-]+/g, '_');
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const prev = rows[i - 1] as number[];
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(v);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate `name` most likely stands for, or undefined when none is close:
 * the same name written differently, then the nearest within a third of its
 * length (at least 1, at most 3 edits), then the one candidate it begins or
 * ends with, then the one candidate it is a suffix of (`rate_limit` for
 * `data_api.rate_limit`).
 */
export function suggest(name: string, candidates: readonly string[]): string | undefined {
  const n = normal(name);
  if (n === '') return undefined;
  const same = candidates.find((c) => normal(c) === n);
  if (same !== undefined) return same;
  const limit = Math.min(3, Math.max(1, Math.floor(n.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = distance(n, normal(c));
    if (dist <= limit && dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  if (best !== undefined) return best;
  // A word written out in full or cut short (`warning` for warn), when only one candidate fits.
  const stem = candidates.filter((c) => {
    const k = normal(c);
    return Math.min(k.length, n.length) >= 4 && (n.startsWith(k) || k.startsWith(n));
  });
  if (stem.length === 1) return stem[0];
  const within = candidates.filter((c) => n.length >= 4 && (normal(c).endsWith(`_${n}`) || normal(c).endsWith(n)));
  return within.length === 1 ? within[0] : undefined;
}
