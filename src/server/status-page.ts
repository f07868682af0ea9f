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
 * The page is generic: each source's definition says what it shows
 * (`status`: badges and a section, in `order`), so this file names no
 * source. Everything derived (reward requirement, downtime budget, runway)
 * comes from the domain rules (src/domain/rules.ts) the collectors use, so
 * the page shows what `/metrics` exports; everything that came from upstream
 * goes through {@link escapeHtml} (src/status/status-kit.ts).
 *
 * @packageDocumentation
 */
import type { SourceState } from '../state/store.js';
import type { AnySource, SourceDef, StatusView } from '../sources/source.js';
import { PRODUCT_CATALOG, sourcesByName } from '../sources/catalog.js';
import { escapeHtml } from '../status/html.js';
import { badge, cell, LEVEL_LABELS, RANK, staleness, StatusKit, table, worstLevel, type Issue, type Level } from '../status/status-kit.js';

export {
  downtimeBudgetLevel,
  formatDuration,
  l1BalanceLevel,
  l1RunwayLevel,
  MAX_ROWS,
  STATUS_THRESHOLDS,
  timeLeftLevel,
  uptimeLevel,
  worstLevel,
} from '../status/status-kit.js';

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
  /** The source definitions whose status sections render (default: every product source). */
  sources?: ReadonlyMap<string, AnySource>;
}

interface NodeReport {
  level: Level;
  issues: Issue[];
  html: string;
}

const PRODUCT_SOURCES: ReadonlyMap<string, AnySource> = sourcesByName(PRODUCT_CATALOG);

function sourcesBadge(kit: StatusKit, mine: readonly SourceState[]): string {
  const polled = mine.filter((s) => s.up !== undefined);
  const up = polled.filter((s) => s.up).length;
  if (polled.length === 0) return badge('sources', 'none', 'not polled yet');
  const level = up === polled.length ? 'ok' : up === 0 ? 'crit' : 'warn';
  kit.judge(level, `${polled.length - up} of ${polled.length} sources down`);
  return badge('sources', level, `${up}/${polled.length} sources up`);
}

/**
 * A node's report: the sources-up badge, then, in their `order`, each
 * source's badges and section (through its `status` hook), each section
 * preceded by a note when its source is failing.
 */
function buildReport(node: string, input: StatusPageInput): NodeReport {
  const defs = input.sources ?? PRODUCT_SOURCES;
  const mine = input.states.filter((s) => s.node === node);
  const byName = new Map(mine.map((s) => [s.source, s]));
  const kit = new StatusKit();
  const view: StatusView = {
    nowMs: input.nowMs,
    valueOf: <U>(def: SourceDef<U, never>) => byName.get(def.name)?.value as U | undefined,
    anyValueOf: <U>(def: SourceDef<U, never>) => input.states.find((s) => s.source === def.name && s.value !== undefined)?.value as U | undefined,
  };
  const shown = mine
    .map((state) => ({ state, status: defs.get(state.source)?.status }))
    .filter((x): x is { state: SourceState; status: NonNullable<AnySource['status']> } => x.status !== undefined)
    .sort((a, b) => a.status.order - b.status.order);
  const badges = [sourcesBadge(kit, mine)];
  for (const { state, status } of shown) if (state.value !== undefined && status.badges) badges.push(...status.badges(state.value, kit, view));
  kit.parts.push(`<p class="badges">${badges.join(' ')}</p>`);
  for (const { state, status } of shown) {
    const section = state.value !== undefined && status.section ? status.section(state.value, kit, view) : '';
    kit.parts.push(`${staleness(state, input.nowMs)}${section}`);
  }
  return { level: worstLevel(kit.levels), issues: kit.issues, html: kit.parts.filter(Boolean).join('\n') };
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
