/**
 * The status view of the landing page: per node its health checks, per
 * watched validator its uptime against the reward requirement, downtime
 * budget, time left and L1 balance runway, and the Data API's view, each with
 * a level (OK, WARN, CRIT) shown as text and as colour. Plain server-rendered
 * HTML from the state store: no client framework and no build step. A few
 * lines of inline script swap in a fresh copy of the page every poll
 * interval; without script a meta refresh does the same, so the page is
 * complete either way.
 *
 * Everything derived (reward requirement, downtime budget, runway) comes from
 * the collectors' pure functions, so the page shows what `/metrics` exports.
 * Everything that came from upstream goes through {@link escapeHtml}.
 *
 * @packageDocumentation
 */
import type { SourceState } from '../state/store.js';
import type { HealthValue } from '../sources/health/index.js';
import type { BootstrappedValue } from '../sources/bootstrapped/index.js';
import type { L1UptimeValue } from '../sources/l1-uptime/index.js';
import { PRIMARY_NETWORK_ID, type SubnetValidators, type ValidatorRecord, type ValidatorsValue } from '../sources/validators/index.js';
import type { DataApiBlocksValue, DataApiNodeBlocksValue, DataApiValidatorsValue } from '../data-api/sources.js';
import { collectValidators, downtimeBudgetSeconds, rewardUptimeThreshold } from '../sources/validators/collect.js';
import { currentValidation } from '../data-api/collect.js';
import { navaxToAvax } from '../http/wire.js';
import { escapeHtml } from './html.js';

/** How a value stands: fine, close to a limit, past it, or nothing to judge. */
export type Level = 'ok' | 'warn' | 'crit' | 'none';

/** The text that goes with each level, so colour is never the only signal. */
export const LEVEL_LABELS: Readonly<Record<Level, string>> = { ok: 'OK', warn: 'WARN', crit: 'CRIT', none: 'N/A' };

const RANK: Record<Level, number> = { none: 0, ok: 1, warn: 2, crit: 3 };

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

const pct = (ratio: number) => `${(ratio * 100).toFixed(2)} %`;
const days = (seconds: number) => `${(seconds / 86_400).toFixed(1)} days`;
/** Unix seconds as `2026-11-22 03:38 UTC`. */
const when = (unixSeconds: number) => `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const avax = (n: number) => `${n.toFixed(4)} AVAX`;

/** A coloured cell: level class for the colour, its label in bold for everyone who cannot see it. `text` is escaped here. */
function cell(field: string, level: Level, text: string, label: string = LEVEL_LABELS[level]): string {
  return `<td class="lvl ${level}" data-field="${field}"><b>${label}</b>${text ? ` ${escapeHtml(text)}` : ''}</td>`;
}

function badge(field: string, level: Level, text: string, label: string = LEVEL_LABELS[level]): string {
  return `<span class="badge lvl ${level}" data-field="${field}"><b>${label}</b> ${escapeHtml(text)}</span>`;
}

const td = (text: string) => `<td>${escapeHtml(text)}</td>`;
const idCell = (id: string) => `<td><code>${escapeHtml(id)}</code></td>`;

function table(cls: string, headers: string[], rows: string[], empty: string): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.length ? rows.join('\n') : `<tr><td colspan="${headers.length}">${escapeHtml(empty)}</td></tr>`;
  return `<table class="${cls}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const note = (text: string) => `<p class="note">${escapeHtml(text)}</p>`;

/** An HTML id for a node's section (letters, digits, `-` and `_` only, so it is safe in any attribute). Pure. */
export function nodeAnchor(node: string): string {
  return `node-${node.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

// ---------------------------------------------------------------------------------------------
// Per-node report
// ---------------------------------------------------------------------------------------------

/** What the status view reads: the store's source states, and the time to judge them at. */
export interface StatusPageInput {
  states: readonly SourceState[];
  nowMs: number;
  /** Nodes in display order (the landing page's list). */
  nodes?: readonly { name: string; url: string }[];
  /** Seconds between two refreshes of the page (the poll interval; default 15). */
  refreshSeconds?: number;
}

interface Issue {
  level: Level;
  text: string;
}

interface NodeReport {
  level: Level;
  issues: Issue[];
  html: string;
}

class Builder {
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
function staleness(s: SourceState | undefined, nowMs: number): string {
  if (!s || s.up !== false) return '';
  const err = s.lastError ? `${s.lastError.reason}: ${s.lastError.message}` : 'failing';
  const shown =
    s.value !== undefined && s.lastSuccessMs !== undefined
      ? `showing values from ${formatDuration((nowMs - s.lastSuccessMs) / 1000)} ago`
      : 'no values to show';
  return `<p class="note lvl warn"><b>WARN</b> source ${escapeHtml(s.source)} is down (${escapeHtml(err)}); ${shown}</p>`;
}

function sourcesBadge(b: Builder, mine: readonly SourceState[]): string {
  const polled = mine.filter((s) => s.up !== undefined);
  const up = polled.filter((s) => s.up).length;
  if (polled.length === 0) return badge('sources', 'none', 'not polled yet');
  const level = up === polled.length ? 'ok' : up === 0 ? 'crit' : 'warn';
  b.judge(level, `${polled.length - up} of ${polled.length} sources down`);
  return badge('sources', level, `${up}/${polled.length} sources up`);
}

function healthBadges(b: Builder, h: HealthValue): string {
  return (
    [
      ['healthy', h.healthy],
      ['ready', h.ready],
      ['live', h.live],
    ] as const
  )
    .map(([name, ok]) => badge(name, b.judge(ok ? 'ok' : 'crit', `node not ${name}`), ok ? name : `not ${name}`))
    .join(' ');
}

function bootstrappedBadge(b: Builder, v: BootstrappedValue): string {
  const done = v.chains.filter((c) => c.bootstrapped).length;
  const level = done === v.chains.length ? 'ok' : 'warn';
  b.judge(level, `${v.chains.length - done} chain(s) still bootstrapping`);
  return badge('bootstrapped', level, `${done}/${v.chains.length} chains bootstrapped`);
}

function healthSection(b: Builder, h: HealthValue, nowMs: number): string {
  // Failing checks first: they are what a reader comes for.
  const checks = [...h.checks].sort((x, y) => Number(x.passing) - Number(y.passing));
  const rows = checks.slice(0, MAX_ROWS).map((c) => {
    const level = b.judge(c.passing ? 'ok' : 'crit', `check ${c.name} failing`);
    const since = c.failingSince === undefined ? '' : `${when(c.failingSince)} (for ${formatDuration(nowMs / 1000 - c.failingSince)})`;
    return `<tr data-check="${escapeHtml(c.name)}"><td><code>${escapeHtml(c.name)}</code></td>${cell('check', level, '', c.passing ? 'PASS' : 'FAIL')}${td(since)}${td(c.passing ? '' : String(c.contiguousFailures))}</tr>`;
  });
  const more = checks.length > MAX_ROWS ? note(`${checks.length - MAX_ROWS} more checks are not shown; all are on /metrics.`) : '';
  return `<h3>Health checks</h3>\n${table('checks', ['check', 'status', 'failing since', 'contiguous failures'], rows, 'the node reports no health checks')}${more}`;
}

function primaryRow(b: Builder, id: string, r: ValidatorRecord | undefined, v: ValidatorsValue, nowMs: number): string {
  const attrs = `data-validator="${escapeHtml(id)}" data-subnet="${PRIMARY_NETWORK_ID}"`;
  if (!r) {
    b.judge('crit', `validator ${id} not in the current validator set`);
    return `<tr ${attrs}>${idCell(id)}${cell('status', 'crit', '')}<td colspan="5">not in this node's current validator set: the validation ended or was never registered</td></tr>`;
  }
  // The same requirement and budget as avax_validator_reward_uptime_threshold_ratio and avax_validator_downtime_budget_seconds.
  const threshold = rewardUptimeThreshold(r.startTime, v.rewardUptimeUpgradeTime);
  const budget = v.observedAt === undefined ? undefined : downtimeBudgetSeconds(r, threshold, v.observedAt);
  const cells: string[] = [];
  const levels: Level[] = [];
  const add = (field: string, level: Level, text: string, issue: string) => {
    levels.push(b.judge(level, `validator ${id} ${issue}`));
    cells.push(cell(field, level, text));
  };
  if (r.uptimeRatio === undefined) add('uptime', 'none', 'not reported', '');
  else add('uptime', uptimeLevel(r.uptimeRatio, threshold), pct(r.uptimeRatio), `uptime ${pct(r.uptimeRatio)} (needs ${pct(threshold)})`);
  cells.push(td(pct(threshold)));
  if (budget === undefined) add('budget', 'none', 'unknown', '');
  else if (budget <= 0) add('budget', downtimeBudgetLevel(budget), `reward lost (over by ${formatDuration(budget)})`, 'downtime budget used up');
  else add('budget', downtimeBudgetLevel(budget), formatDuration(budget), `downtime budget ${formatDuration(budget)}`);
  if (r.endTime === undefined) add('time-left', 'none', 'no end time', '');
  else {
    const left = r.endTime - nowMs / 1000;
    add(
      'time-left',
      timeLeftLevel(left, r.nextPeriod !== undefined && r.nextPeriod > 0),
      left > 0 ? `${formatDuration(left)} (ends ${when(r.endTime)})` : `ended ${when(r.endTime)}`,
      `validation ends in ${formatDuration(Math.max(0, left))}`,
    );
  }
  if (r.connected === undefined) add('connected', 'none', 'unknown', '');
  else add('connected', r.connected ? 'ok' : 'crit', r.connected ? 'yes' : 'no', 'not connected');
  return `<tr ${attrs}>${idCell(id)}${cell('status', worstLevel(levels), '')}${cells.join('')}</tr>`;
}

function primarySection(b: Builder, s: SubnetValidators, v: ValidatorsValue, nowMs: number): string {
  const byId = new Map<string, ValidatorRecord>();
  // As in the collector, the first entry of a node id wins.
  for (const r of s.validators) if (!byId.has(r.nodeId)) byId.set(r.nodeId, r);
  const watched = [...new Set(s.watched)];
  const rows = watched.slice(0, MAX_ROWS).map((id) => primaryRow(b, id, byId.get(id), v, nowMs));
  const watchedSet = new Set(watched);
  const others = [...byId.keys()].filter((id) => !watchedSet.has(id)).length;
  const notes: string[] = [];
  if (watched.length > MAX_ROWS) notes.push(`${watched.length - MAX_ROWS} more watched validators are not shown; all are on /metrics.`);
  if (others > 0) notes.push(`${others} other validators of the primary network (--watch.all-validators) are not shown here; they are on /metrics.`);
  if (s.omitted > 0) notes.push(`${s.omitted} validators over --watch.max-validators are neither shown nor exported.`);
  return `<h3>Watched validators (primary network, as this node sees them)</h3>\n${table(
    'validators',
    ['validator', 'status', 'uptime', 'reward requirement', 'downtime budget left', 'time left', 'connected'],
    rows,
    'no watched validator',
  )}${notes.map(note).join('')}`;
}

/** Balance runway of one L1 validator, read from the collector's own sample (avax_l1_validator_balance_runway_seconds) so its formula lives in one place. */
function runwaySeconds(r: ValidatorRecord, subnetId: string, price: number | undefined): number | undefined {
  const one: ValidatorsValue = { subnets: [{ subnetId, validators: [r], watched: [], omitted: 0 }] };
  if (price !== undefined) one.feePriceNavaxPerSecond = price;
  return collectValidators(one, '').find((x) => x.name === 'avax_l1_validator_balance_runway_seconds')?.value;
}

function l1Section(b: Builder, s: SubnetValidators, watched: ReadonlySet<string>, price: number | undefined, l1: L1UptimeValue | undefined): string {
  const seen = new Set<string>();
  const l1Validators = s.validators.filter((r) => {
    if (r.validationId === undefined || r.balance === undefined || seen.has(r.validationId)) return false;
    seen.add(r.validationId);
    return true;
  });
  if (l1Validators.length === 0) return '';
  // Watched ids first, then the active ones by balance (with one fee price for all, the shortest runway first), inactive last.
  const rank = (r: ValidatorRecord) => (watched.has(r.nodeId) ? 0 : (r.balance ?? 0n) > 0n ? 1 : 2);
  const ordered = [...l1Validators].sort(
    (x, y) => rank(x) - rank(y) || ((x.balance ?? 0n) < (y.balance ?? 0n) ? -1 : (x.balance ?? 0n) > (y.balance ?? 0n) ? 1 : 0),
  );
  const uptimes = new Map((l1?.chains ?? []).filter((c) => c.subnetId === s.subnetId).flatMap((c) => c.validators.map((u) => [u.validationId, u] as const)));
  const rows = ordered.slice(0, MAX_ROWS).map((r) => {
    const balance = navaxToAvax(r.balance ?? 0n);
    const who = `L1 validator ${r.nodeId}`;
    const balanceLevel = b.judge(l1BalanceLevel(balance), `${who} balance ${avax(balance)}`);
    const runway = runwaySeconds(r, s.subnetId, price);
    let runwayCell: string;
    let runwayLevel: Level = 'none';
    if (balance === 0) runwayCell = cell('runway', 'none', 'inactive: pays no fee');
    else if (runway === undefined) runwayCell = cell('runway', 'none', 'unknown (no fee price)');
    else {
      runwayLevel = b.judge(l1RunwayLevel(runway), `${who} balance runway ${days(runway)}`);
      runwayCell = cell('runway', runwayLevel, days(runway));
    }
    const u = r.validationId === undefined ? undefined : uptimes.get(r.validationId);
    const uptime = u ? `${pct(u.uptimeRatio)}, ${u.connected ? 'connected' : 'not connected'}` : '';
    return `<tr data-l1-validation="${escapeHtml(r.validationId ?? '')}" data-validator="${escapeHtml(r.nodeId)}">${idCell(r.nodeId)}${idCell(r.validationId ?? '')}${cell('status', worstLevel([balanceLevel, runwayLevel]), '')}${cell('balance', balanceLevel, avax(balance))}${runwayCell}${td(uptime)}</tr>`;
  });
  const more = ordered.length > MAX_ROWS ? note(`${ordered.length - MAX_ROWS} more validators of this L1 are not shown; all are on /metrics.`) : '';
  const priceNote = price === undefined ? '' : note(`Fee price ${price} nAVAX per second per active L1 validator.`);
  return `<h3>L1 validators of <code>${escapeHtml(s.subnetId)}</code></h3>\n${table(
    'l1-validators',
    ['validator', 'validation id', 'status', 'balance', 'balance runway', 'L1 uptime'],
    rows,
    '',
  )}${more}${s.omitted > 0 ? note(`${s.omitted} validators over --watch.max-validators are neither shown nor exported.`) : ''}${priceNote}`;
}

function validatorSections(b: Builder, v: ValidatorsValue, l1: L1UptimeValue | undefined, nowMs: number): string {
  const primary = v.subnets.find((s) => s.subnetId === PRIMARY_NETWORK_ID);
  const watched = new Set(primary?.watched ?? []);
  const out: string[] = [];
  if (primary) out.push(primarySection(b, primary, v, nowMs));
  for (const s of v.subnets) if (s !== primary) out.push(l1Section(b, s, watched, v.feePriceNavaxPerSecond, l1));
  return out.filter(Boolean).join('\n');
}

function dataApiSections(b: Builder, states: ReadonlyMap<string, SourceState>, upgradeTime: number | undefined, nowMs: number): string {
  const out: string[] = [];
  const validators = states.get('data_api_validators')?.value as DataApiValidatorsValue | undefined;
  const proposers = (states.get('data_api_node_blocks')?.value as DataApiNodeBlocksValue | undefined)?.proposers ?? [];
  if (validators) {
    const rows = validators.nodes.slice(0, MAX_ROWS).map((n) => {
      const who = `Data API: validator ${n.nodeId}`;
      const cur = currentValidation(n.validations.filter((x) => x.subnetId === PRIMARY_NETWORK_ID));
      const levels: Level[] = [];
      const cells: string[] = [];
      const add = (field: string, level: Level, text: string, issue: string) => {
        levels.push(b.judge(level, `${who} ${issue}`));
        cells.push(cell(field, level, text));
      };
      if (!cur) add('da-status', 'crit', 'no validation known', 'has no validation');
      else add('da-status', cur.status === 'active' ? 'ok' : cur.status === 'pending' ? 'warn' : 'crit', cur.status, `validation ${cur.status}`);
      const active = cur?.status === 'active';
      if (active && cur.uptimeRatio !== undefined) {
        const threshold = rewardUptimeThreshold(cur.startTimestamp, upgradeTime);
        add('da-uptime', uptimeLevel(cur.uptimeRatio, threshold), `${pct(cur.uptimeRatio)} (needs ${pct(threshold)})`, `uptime ${pct(cur.uptimeRatio)}`);
      } else cells.push(td(''));
      if (cur && (active || cur.status === 'pending')) {
        const left = cur.endTimestamp - nowMs / 1000;
        add(
          'da-time-left',
          timeLeftLevel(left),
          left > 0 ? `${formatDuration(left)} (ends ${when(cur.endTimestamp)})` : `ended ${when(cur.endTimestamp)}`,
          `validation ends in ${formatDuration(Math.max(0, left))}`,
        );
      } else cells.push(td(''));
      cells.push(td(active && cur.reachabilityRatio !== undefined ? pct(cur.reachabilityRatio) : ''));
      const p = proposers.find((x) => x.nodeId === n.nodeId && x.chain === 'P');
      const last = p?.last ? `; last #${p.last.height} at ${when(p.last.timestampSeconds)}` : '';
      cells.push(td(p ? `${p.count} since ${when(p.sinceSeconds)}${last}` : ''));
      cells.push(td(active ? (cur.version ?? '') : ''));
      return `<tr data-da-validator="${escapeHtml(n.nodeId)}">${idCell(n.nodeId)}${cell('da-overall', worstLevel(levels), '')}${cells.join('')}</tr>`;
    });
    const more =
      validators.nodes.length > MAX_ROWS ? note(`${validators.nodes.length - MAX_ROWS} more watched validators are not shown; all are on /metrics.`) : '';
    out.push(
      `<h3>Validators as the Data API sees them (${escapeHtml(validators.network)}, primary network)</h3>\n${table(
        'da-validators',
        ['validator', 'status', 'validation', 'uptime', 'time left', 'reachability', 'P-Chain blocks proposed', 'version'],
        rows,
        'no watched validator',
      )}${more}`,
    );
  }
  const blocks = states.get('data_api_blocks')?.value as DataApiBlocksValue | undefined;
  if (blocks) {
    const rows = blocks.heads.map(
      (h) =>
        `<tr data-da-chain="${escapeHtml(h.chain)}">${td(h.chain)}${td(String(h.height))}${td(`${when(h.timestampSeconds)} (${formatDuration(nowMs / 1000 - h.timestampSeconds)} ago)`)}</tr>`,
    );
    out.push(`<h3>Chain heads the Data API has indexed</h3>\n${table('da-heads', ['chain', 'height', 'last block'], rows, 'no chain head')}`);
  }
  return out.join('\n');
}

function buildReport(node: string, input: StatusPageInput): NodeReport {
  const mine = input.states.filter((s) => s.node === node);
  const byName = new Map(mine.map((s) => [s.source, s]));
  const b = new Builder();
  const badges = [sourcesBadge(b, mine)];
  const health = byName.get('health');
  const healthValue = health?.value as HealthValue | undefined;
  if (healthValue) badges.push(healthBadges(b, healthValue));
  const bootstrapped = byName.get('bootstrapped')?.value as BootstrappedValue | undefined;
  if (bootstrapped && bootstrapped.chains.length > 0) badges.push(bootstrappedBadge(b, bootstrapped));
  b.parts.push(`<p class="badges">${badges.join(' ')}</p>`);

  if (health) b.parts.push(`${staleness(health, input.nowMs)}${healthValue ? healthSection(b, healthValue, input.nowMs) : ''}`);
  const validators = byName.get('validators');
  const validatorsValue = validators?.value as ValidatorsValue | undefined;
  if (validators) {
    const l1 = byName.get('l1_uptime')?.value as L1UptimeValue | undefined;
    b.parts.push(`${staleness(validators, input.nowMs)}${validatorsValue ? validatorSections(b, validatorsValue, l1, input.nowMs) : ''}`);
  }
  const dataApiStates = mine.filter((s) => s.source.startsWith('data_api_'));
  if (dataApiStates.length > 0) {
    // The Data API knows no upgrade schedule: the reward requirement uses the one a node reported.
    const upgradeTime = input.states
      .map((s) => (s.source === 'validators' ? (s.value as ValidatorsValue | undefined)?.rewardUptimeUpgradeTime : undefined))
      .find((t) => t !== undefined);
    b.parts.push(`${dataApiStates.map((s) => staleness(s, input.nowMs)).join('')}${dataApiSections(b, byName, upgradeTime, input.nowMs)}`);
  }
  return { level: worstLevel(b.levels), issues: b.issues, html: b.parts.filter(Boolean).join('\n') };
}

// The fleet summary and the node sections read the same reports: build each once per page.
const reports = new WeakMap<readonly SourceState[], Map<string, NodeReport>>();

function reportOf(node: string, input: StatusPageInput): NodeReport {
  let byNode = reports.get(input.states);
  if (!byNode) {
    byNode = new Map();
    reports.set(input.states, byNode);
  }
  // The store hands out a new array per call, so the same array is the same page; the time is part of the key all the same.
  const key = `${input.nowMs}\u0000${node}`;
  let r = byNode.get(key);
  if (!r) {
    r = buildReport(node, input);
    byNode.set(key, r);
  }
  return r;
}

/**
 * A node's status (sources up, healthy/ready/live, health checks, watched
 * validators, L1 validators, the Data API's view), as an HTML fragment for
 * its section of the landing page. Pure: the state in, HTML out.
 */
export function renderNodeStatus(node: string, input: StatusPageInput): string {
  return reportOf(node, input).html;
}

const MAX_ISSUES_SHOWN = 5;

/**
 * The top of the status view: when it was rendered, and one line per node
 * with its worst level and what needs attention, linking to its section.
 */
export function renderFleetSummary(input: StatusPageInput): string {
  const rendered = new Date(input.nowMs).toISOString();
  const rows = (input.nodes ?? []).map((n) => {
    const r = reportOf(n.name, input);
    const issues = [...r.issues].sort((a, b) => RANK[b.level] - RANK[a.level]);
    const shown = issues.slice(0, MAX_ISSUES_SHOWN).map((i) => `${LEVEL_LABELS[i.level]}: ${i.text}`);
    if (issues.length > MAX_ISSUES_SHOWN) shown.push(`and ${issues.length - MAX_ISSUES_SHOWN} more`);
    return `<tr data-node="${escapeHtml(n.name)}"><td><a href="#${nodeAnchor(n.name)}">${escapeHtml(n.name)}</a></td>${cell('node-status', r.level, '')}<td>${shown.map(escapeHtml).join('<br>')}</td></tr>`;
  });
  return `<p id="live" class="live" data-rendered="${rendered}">Status as of ${rendered}; updates every ${refreshSeconds(input)} s.</p>
<h2>Fleet</h2>
${table('fleet', ['node', 'status', 'needs attention'], rows, 'no node configured')}`;
}

function refreshSeconds(input: Pick<StatusPageInput, 'refreshSeconds'>): number {
  // At most once a second, however short the poll interval (tests poll every 500 ms).
  return Math.max(1, Math.round(input.refreshSeconds ?? 15));
}

const STYLE = `body{max-width:90em}
.lvl{font-weight:600}.lvl b{font-weight:700}
.lvl.ok{color:#1a7f37;background:#dafbe1}
.lvl.warn{color:#7d4e00;background:#fff8c5}
.lvl.crit{color:#cf222e;background:#ffebe9}
.lvl.none{color:#57606a;background:#f6f8fa;font-weight:normal}
.badge{display:inline-block;padding:.15em .6em;border-radius:1em;margin:.1em .2em .1em 0;border:1px solid currentColor}
.note{color:#57606a;margin:.3em 0 1em}p.note.lvl{padding:.3em .6em}
.live{color:#57606a}.live.lvl{padding:.3em .6em}
code{font-size:.9em;word-break:break-all}
h3{margin:1.2em 0 .4em}table{margin-bottom:.5em}`;

/**
 * Keeps the page live without reloading it: every interval it fetches the
 * page again and swaps in the new body (scroll position stays, nothing
 * flashes). When the exporter cannot be reached the old body stays, marked
 * as not updated.
 */
function liveScript(ms: number): string {
  return `(function(){var every=${ms};function tick(){fetch(location.href,{cache:'no-store'}).then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.text();}).then(function(html){var next=new DOMParser().parseFromString(html,'text/html');document.body.replaceWith(document.adoptNode(next.body));}).catch(function(e){var el=document.getElementById('live');if(el){el.className='live lvl crit';el.innerHTML='<b>CRIT</b> ';el.appendChild(document.createTextNode('not updated since '+el.getAttribute('data-rendered')+': '+e.message));}}).then(function(){setTimeout(tick,every);});}setTimeout(tick,every);})();`;
}

/**
 * What the status view adds to the page's head: its style, the live update
 * script, and a meta refresh for browsers without script.
 */
export function statusPageHead(input: Pick<StatusPageInput, 'refreshSeconds'>): string {
  const s = refreshSeconds(input);
  return `<style>${STYLE}</style>
<noscript><meta http-equiv="refresh" content="${s}"></noscript>
<script>${liveScript(s * 1000)}</script>`;
}
