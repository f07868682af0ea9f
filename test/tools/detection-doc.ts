/**
 * docs/detection.md, generated: the detection matrix (test/helpers/detection-rows.ts,
 * the rows test/detection-matrix.test.ts runs) and, for every incident, how
 * long the shipped rules take to detect it, computed from the unscaled rules
 * (`for:`, `keep_firing_for:`, the ranges an alert must wait out), the
 * exporter's default polling and the example Prometheus configuration's
 * scrape and evaluation intervals. Regenerate with
 * `npm run docs:detection`; a test fails when the committed
 * file differs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { buildConfig } from '../../src/config/load.js';
import { avalanchegoVersion, KNOWN_DEFECTS, REAL_L1_ROWS, REAL_ROWS, type RealRow } from '../helpers/real-incident-rows.js';
import { FACTOR, LIVE_POLL, MATRIX, MIN_RANGE_MS, type AlertRef, type MatrixRow, type Raised } from '../helpers/detection-rows.js';
import { formatPromDuration, parsePromDuration } from '../helpers/scale-rules.js';
import { ROOT } from '../helpers/promql-contract.js';

/** Path of the generated document, relative to the repository root. */
export const DETECTION_DOC_PATH = 'docs/detection.md';
const RULES_PATH = 'alerts/avax-exporter.rules.yml';
const EXAMPLE_PROMETHEUS_PATH = 'examples/prometheus/prometheus.yml';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  keep_firing_for?: string;
  labels?: Record<string, string>;
}

/** The intervals the time to detect is computed with. */
export interface Timing {
  pollMs: number;
  pollTimeoutMs: number;
  maxAgeMs: number;
  dataApiMs: number;
  scrapeMs: number;
  evaluationMs: number;
}

/** The exporter's defaults and the example Prometheus configuration's intervals. */
export function defaultTiming(root = ROOT): Timing {
  const { poll, dataApi } = buildConfig({});
  type PromConfig = { global?: Record<string, string>; scrape_configs?: { job_name: string; scrape_interval?: string }[] };
  const prom = parseYaml(readFileSync(join(root, EXAMPLE_PROMETHEUS_PATH), 'utf8')) as PromConfig;
  const job = prom.scrape_configs?.find((j) => j.job_name.startsWith('avax-exporter'));
  const scrape = job?.scrape_interval ?? prom.global?.['scrape_interval'] ?? '1m';
  const evaluation = prom.global?.['evaluation_interval'] ?? '1m';
  return {
    pollMs: poll.intervalMs,
    pollTimeoutMs: poll.timeoutMs,
    maxAgeMs: poll.maxAgeMs,
    dataApiMs: dataApi.intervalMs,
    scrapeMs: parsePromDuration(scrape),
    evaluationMs: parsePromDuration(evaluation),
  };
}

/** The longest range selector or subquery range of an expression, in ms (0 when none). */
export function longestRangeMs(expr: string): number {
  let longest = 0;
  const cur = parser.parse(expr).cursor();
  do {
    if (cur.name !== 'DurationExpr') continue;
    const owner = cur.node.parent;
    const first = owner?.getChildren('DurationExpr')[0];
    if ((owner?.name === 'MatrixSelector' || owner?.name === 'SubqueryExpr') && first?.from === cur.from)
      longest = Math.max(longest, parsePromDuration(expr.slice(cur.from, cur.to)));
  } while (cur.next());
  return longest;
}

/** The alerting rules of the shipped file matching a reference (name, and severity when given). */
export function rulesFor(rules: Rule[], ref: AlertRef): Rule[] {
  return rules.filter((r) => r.alert === ref.alertname && (ref.severity === undefined || r.labels?.['severity'] === ref.severity));
}

/** How long after the incident starts the alert fires, at most, and the parts of that sum. */
export function timeToDetect(rule: Rule, evidence: Raised['evidence'], t: Timing): { totalMs: number; parts: string[] } {
  const forMs = rule.for ? parsePromDuration(rule.for) : 0;
  const parts: string[] = [];
  let total = 0;
  const add = (ms: number, what: string) => {
    total += ms;
    parts.push(`${formatPromDuration(ms)} ${what}`);
  };
  if (evidence === 'poll') add(t.pollMs, 'until the next poll');
  else if (evidence === 'data-api-poll') add(t.dataApiMs, 'until the next Data API poll');
  else if (evidence === 'failed-poll') add(t.pollMs + t.pollTimeoutMs, 'until a poll times out');
  else {
    add(t.pollMs, 'until the next poll');
    add(longestRangeMs(rule.expr), 'for the range to pass without a change');
  }
  add(t.scrapeMs, 'scrape');
  add(t.evaluationMs, 'evaluation');
  add(forMs, '`for`');
  return { totalMs: total, parts };
}

/** A duration for people: 1h 5m 30s. */
export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s === 0) return '0s';
  const out: string[] = [];
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d) out.push(`${d}d`);
  if (h) out.push(`${h}h`);
  if (m) out.push(`${m}m`);
  if (sec) out.push(`${sec}s`);
  return out.join(' ');
}

const ref = (a: AlertRef) => `${a.alertname}${a.severity ? ` (${a.severity})` : ''}`;
const cell = (s: string) => s.replace(/\|/g, '\\|');

function matrixTable(rows: MatrixRow[]): string[] {
  return [
    '| row (`cluster`) | deployment | incident | must raise | must never raise |',
    '|---|---|---|---|---|',
    ...rows.map((r) => {
      const never = [...r.never.map(ref), ...(r.silent.length ? [`any other ${r.silent.join(' or ')} alert`] : [])];
      return `| \`${r.cluster}\` | ${cell(r.deployment)} | ${cell(r.incident ?? 'none (healthy)')} | ${r.raised.map((a) => `${ref(a)}${a.firing ? ', firing' : ''}`).join('<br>') || '-'} | ${never.join('<br>') || '-'} |`;
    }),
  ];
}

function detectionTable(rows: MatrixRow[], rules: Rule[], t: Timing): string[] {
  const out = [
    '| incident (row) | alert | `for` | `keep_firing_for` (stays raised after the evidence is gone) | fires at most after |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows.filter((x) => x.incident)) {
    for (const a of r.raised) {
      const matching = rulesFor(rules, a);
      if (matching.length === 0) {
        out.push(`| ${cell(r.incident as string)} (\`${r.cluster}\`) | ${ref(a)} | **no such rule** | - | - |`);
        continue;
      }
      // Several rules of one name and severity: the slowest decides.
      const worst = matching.map((rule) => ({ rule, ...timeToDetect(rule, a.evidence, t) })).sort((x, y) => y.totalMs - x.totalMs)[0] as {
        rule: Rule;
        totalMs: number;
        parts: string[];
      };
      const keep = worst.rule.keep_firing_for ? humanDuration(parsePromDuration(worst.rule.keep_firing_for)) : 'no';
      out.push(
        `| ${cell(r.incident as string)} (\`${r.cluster}\`) | ${ref(a)} | ${worst.rule.for ?? '0s'} | ${keep} | **${humanDuration(worst.totalMs)}** (${worst.parts.join(' + ')}) |`,
      );
    }
  }
  return out;
}

/** The rows seen on a real AvalancheGo network (test/real-network/incidents.test.ts). */
function realNetworkSection(): string[] {
  return [
    `## Seen on a real AvalancheGo network (${avalanchegoVersion()})`,
    '',
    'These rows run on a real AvalancheGo network of five genesis validators, an RPC node and a partial-sync node',
    '(test/helpers/local-network.ts, docs/development.md "The real node"), one exporter per node, and the same scaled rules',
    'in a real Prometheus. The incidents happen one after the other (two of five validators away at once would fail every',
    "node's health): a quiet phase, the restart, the freeze, the cut-off, a new node joining, the full disk, the kill. Every",
    'second the test records which alerts each row has pending or firing, by phase, and prints the record (also',
    '`.tmp/real-incidents.json`).',
    '',
    '| row (`cluster`) | deployment | incident | asserted |',
    '|---|---|---|---|',
    ...REAL_ROWS.map(realRow),
    '',
    'The same network with an L1 (test/real-network/l1.test.ts): a subnet with one xsvm chain, converted to an L1',
    '(ConvertSubnetToL1Tx) with three validators of its own that validate nothing on the primary network, each row',
    "watching the L1's subnet, the same scaled rules in a real Prometheus.",
    '',
    '| row (`cluster`) | deployment | incident | asserted |',
    '|---|---|---|---|',
    ...REAL_L1_ROWS.map(realRow),
    '',
    'What the shipped rules raise there that they should not, left out of the silence checks above and nothing else:',
    '',
    ...KNOWN_DEFECTS.map(
      (k) => `- \`${k.alert.source.replace(/\\/g, '')}\`${k.clusters ? ` (${k.clusters.map((c) => `\`${c}\``).join(', ')})` : ''}: ${k.why}.`,
    ),
  ];
}

/** One row of the real network's tables. */
function realRow(r: RealRow): string {
  return `| \`${r.cluster}\` | ${cell(r.deployment)} | ${cell(r.incident ?? 'none (healthy)')} | ${cell(r.asserted)} |`;
}

/** Renders docs/detection.md from the matrix, the shipped rules and the timing. */
export function renderDetectionDoc(rulesText = readFileSync(join(ROOT, RULES_PATH), 'utf8'), t: Timing = defaultTiming()): string {
  const rules = (parseYaml(rulesText) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules).filter((r) => r.alert);
  return [
    '# Detection: what the shipped rules raise, and how fast',
    '',
    '<!-- Generated by `npm run docs:detection` from test/helpers/detection-rows.ts, alerts/avax-exporter.rules.yml,',
    "     examples/prometheus/prometheus.yml and the exporter's defaults; a test fails when this file differs. -->",
    '',
    'The alert rules are judged against deployments, not only against series: `npm test` runs the detection matrix',
    '(test/detection-matrix.test.ts). Every row below is a deployment of its own: fake AvalancheGo nodes (real HTTP servers',
    'on 127.0.0.1) in one of the real-behaviour modes of test/fakes/real-modes.ts, an exporter polling them, and one real',
    "Prometheus scraping every row's exporter, with the row's name as the `cluster` label of its target, so the rows also",
    'show that the rules keep environments apart. Each row asserts the alerts it must raise (pending or firing; "firing"',
    'where the row needs the page itself) and the alerts it must never raise, pending included: sampled every second',
    "through the row's observation window, then checked again from the `ALERTS` series over the whole window.",
    '',
    `**Scaled durations.** The matrix runs the shipped rules file with every time duration divided by ${FACTOR}: each rule's`,
    '`for:` and `keep_firing_for:`, and in PromQL the range of every range selector and subquery (at least',
    `${formatPromDuration(MIN_RANGE_MS)}, so a range holds a few of the 1 s scrapes), subquery steps and offsets (test/helpers/scale-rules.ts,`,
    'unit-tested). Thresholds are data and stay as shipped, seconds and days included (7 days left of a validation, 24 h of',
    `downtime budget). Prometheus scrapes and evaluates every second; the exporter polls its nodes and the Data API every ${humanDuration(parsePromDuration(LIVE_POLL.interval))}.`,
    'The times below are the real ones, computed from the unscaled rules.',
    '',
    "The node-unreachable row also shows that pages outlive their data: AvaxNodeUnhealthy keeps firing after the node's",
    "series are gone, AvaxNodeDown keeps firing after even the exporter's series are gone (`keep_firing_for`), and a real",
    "Alertmanager running the shipped examples/alertmanager/alertmanager.yml (the runbook's inhibitions) holds AvaxSourceDown as",
    'suppressed by AvaxNodeDown.',
    'The all-validators row also asserts that no alert names any of its strangers.',
    '',
    '## The matrix',
    '',
    ...matrixTable(MATRIX),
    '',
    '## Time to detect at the shipped durations',
    '',
    "The longest time from the start of an incident to the alert firing (pending comes `for` earlier), with the exporter's",
    `defaults (poll every ${humanDuration(t.pollMs)}, poll timeout ${humanDuration(t.pollTimeoutMs)}, series dropped ${humanDuration(t.maxAgeMs)} after the last good poll, Data API polled every ${humanDuration(t.dataApiMs)})`,
    `and the intervals of examples/prometheus/prometheus.yml (scrape every ${humanDuration(t.scrapeMs)}, rules evaluated every ${humanDuration(t.evaluationMs)}):`,
    'the exporter sees the incident at its next poll (or when that poll times out), the next scrape stores it, the next',
    'evaluation sees it, and the alert fires once it has held for its `for`. An alert that waits for something to stop',
    'changing also waits out its range; what only the Data API knows counts from when the service lists it. Slower',
    'intervals add their difference.',
    '',
    ...detectionTable(MATRIX, rules, t),
    '',
    ...realNetworkSection(),
    '',
  ].join('\n');
}
