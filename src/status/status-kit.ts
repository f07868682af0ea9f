/**
 * The status page's toolkit: levels (OK, WARN, CRIT) with the thresholds they
 * follow, formatting and escaping helpers, and the {@link StatusKit} a
 * source's status section renders with (see StatusSection in
 * src/sources/source.ts). Pure helpers; everything that came from upstream
 * goes through {@link escapeHtml}.
 *
 * @packageDocumentation
 */
import type { SourceState } from '../state/store.js';
import { escapeHtml } from './html.js';

/** How a value stands: fine, close to a limit, past it, or nothing to judge. */
export type Level = 'ok' | 'warn' | 'crit' | 'none';

/** The text that goes with each level, so colour is never the only signal. */
export const LEVEL_LABELS: Readonly<Record<Level, string>> = { ok: 'OK', warn: 'WARN', crit: 'CRIT', none: 'N/A' };

export const RANK: Record<Level, number> = { none: 0, ok: 1, warn: 2, crit: 3 };

/** The worst of some levels (`none` when there are none). */
export function worstLevel(levels: Iterable<Level>): Level {
  let out: Level = 'none';
  for (const l of levels) if (RANK[l] > RANK[out]) out = l;
  return out;
}

/**
 * Where the page turns amber and red: the defaults of the alert rules'
 * `avax:threshold:*` recording rules (alerts/avax-exporter.rules.yml), so a
 * red cell and a firing alert mean the same thing. A test checks that they
 * still agree.
 */
export const STATUS_THRESHOLDS = {
  /** Uptime less than this above the validation's reward requirement is amber (the rules: 85 % warning for the 80 % requirement). */
  uptimeWarningMarginRatio: 0.05,
  downtimeBudgetWarningSeconds: 86_400,
  /** At or below: the reward is lost. */
  downtimeBudgetCriticalSeconds: 0,
  validationEndingWarningSeconds: 7 * 86_400,
  l1BalanceWarningAvax: 1,
  l1BalanceCriticalAvax: 0.1,
  l1RunwayWarningSeconds: 30 * 86_400,
  l1RunwayCriticalSeconds: 7 * 86_400,
} as const;

/** Most rows of one table: the page stays fast and readable with --watch.all-validators or a large L1; the rest is on /metrics. */
export const MAX_ROWS = 50;

const T = STATUS_THRESHOLDS;
// 0.8 + 0.05 is 0.8500000000000001 in floating point; the rules compare with 0.85.
const EPSILON = 1e-9;

/** Uptime against the validation's reward requirement. Pure. */
export function uptimeLevel(uptimeRatio: number, threshold: number): Level {
  if (uptimeRatio < threshold) return 'crit';
  return uptimeRatio < threshold + T.uptimeWarningMarginRatio - EPSILON ? 'warn' : 'ok';
}

/** Downtime budget left (see downtimeBudgetSeconds). Pure. */
export function downtimeBudgetLevel(seconds: number): Level {
  if (seconds <= T.downtimeBudgetCriticalSeconds) return 'crit';
  return seconds < T.downtimeBudgetWarningSeconds ? 'warn' : 'ok';
}

/**
 * Time left in the validation period: amber within the rules' warning window
 * for a validation that does not renew, red once it is over; an auto-renewing
 * validation's end is only the end of a cycle. Pure.
 */
export function timeLeftLevel(seconds: number, renews = false): Level {
  if (renews) return 'ok';
  if (seconds <= 0) return 'crit';
  return seconds < T.validationEndingWarningSeconds ? 'warn' : 'ok';
}

/** An L1 validator's balance in AVAX. Pure. */
export function l1BalanceLevel(avax: number): Level {
  if (avax < T.l1BalanceCriticalAvax) return 'crit';
  return avax < T.l1BalanceWarningAvax ? 'warn' : 'ok';
}

/** An L1 validator's balance runway. Pure. */
export function l1RunwayLevel(seconds: number): Level {
  if (seconds < T.l1RunwayCriticalSeconds) return 'crit';
  return seconds < T.l1RunwayWarningSeconds ? 'warn' : 'ok';
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

/** `3d 4h`, `5h 12m`, `7m 3s`, `42s` (always positive: callers say "over by"). Pure. */
export function formatDuration(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

export const pct = (ratio: number) => `${(ratio * 100).toFixed(2)} %`;
export const days = (seconds: number) => `${(seconds / 86_400).toFixed(1)} days`;
/** Unix seconds as `2026-11-22 03:38 UTC`. */
export const when = (unixSeconds: number) => `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
export const avax = (n: number) => `${n.toFixed(4)} AVAX`;

/** A coloured cell: level class for the colour, its label in bold for everyone who cannot see it. `text` is escaped here. */
export function cell(field: string, level: Level, text: string, label: string = LEVEL_LABELS[level]): string {
  return `<td class="lvl ${level}" data-field="${field}"><b>${label}</b>${text ? ` ${escapeHtml(text)}` : ''}</td>`;
}

export function badge(field: string, level: Level, text: string, label: string = LEVEL_LABELS[level]): string {
  return `<span class="badge lvl ${level}" data-field="${field}"><b>${label}</b> ${escapeHtml(text)}</span>`;
}

export const td = (text: string) => `<td>${escapeHtml(text)}</td>`;
export const idCell = (id: string) => `<td><code>${escapeHtml(id)}</code></td>`;

export function table(cls: string, headers: string[], rows: string[], empty: string): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.length ? rows.join('\n') : `<tr><td colspan="${headers.length}">${escapeHtml(empty)}</td></tr>`;
  return `<table class="${cls}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export const note = (text: string) => `<p class="note">${escapeHtml(text)}</p>`;

/** A line of the fleet summary: a WARN or CRIT and what it is about. */
export interface Issue {
  level: Level;
  text: string;
}

/**
 * What a source's status section works with: the formatting helpers, and
 * `judge`, which records a level (and, for WARN and CRIT, a line of the fleet
 * summary) for the node being rendered. One per node report.
 */
export class StatusKit {
  readonly cell = cell;
  readonly badge = badge;
  readonly table = table;
  readonly td = td;
  readonly idCell = idCell;
  readonly note = note;
  readonly pct = pct;
  readonly days = days;
  readonly when = when;
  readonly avax = avax;
  readonly formatDuration = formatDuration;
  readonly maxRows = MAX_ROWS;
  readonly escape = escapeHtml;

  readonly parts: string[] = [];
  readonly issues: Issue[] = [];
  readonly levels: Level[] = [];

  /** Notes a level; WARN and CRIT also become a line of the fleet summary. */
  judge(level: Level, text: string): Level {
    this.levels.push(level);
    if (level === 'warn' || level === 'crit') this.issues.push({ level, text });
    return level;
  }
}

/** Says that a section's values are old because the source is failing (its last values are kept up to the max age). */
export function staleness(s: SourceState | undefined, nowMs: number): string {
  if (!s || s.up !== false) return '';
  const err = s.lastError ? `${s.lastError.reason}: ${s.lastError.message}` : 'failing';
  const shown =
    s.value !== undefined && s.lastSuccessMs !== undefined
      ? `showing values from ${formatDuration((nowMs - s.lastSuccessMs) / 1000)} ago`
      : 'no values to show';
  return `<p class="note lvl warn"><b>WARN</b> source ${escapeHtml(s.source)} is down (${escapeHtml(err)}); ${shown}</p>`;
}
