/**
 * What the dashboards and alert rules ask of the exporter, read from the files
 * themselves: every PromQL query of a dashboard (panel targets, template
 * variables, annotations) and of the rules (expressions and the `query`
 * template functions of annotations), parsed with Prometheus's own PromQL
 * grammar (@prometheus-io/lezer-promql, strict mode) so a metric name is found
 * wherever it sits in an expression.
 *
 * Used by test/contract.test.ts (names must exist) and
 * test/live-prometheus.test.ts (queries must return data in a real Prometheus).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DASHBOARDS_DIR = join(ROOT, 'dashboards');
export const ALERTS_DIR = join(ROOT, 'alerts');

// ------------------------------------------------------------------ dashboards

/** The parts of a Grafana dashboard JSON model the checks read. */
/** A Grafana value mapping: `options` maps a value (as text) to its display. */
export interface ValueMapping {
  type?: string;
  options?: Record<string, { text?: string; color?: string }>;
}
export interface Panel {
  id?: number;
  type?: string;
  title?: string;
  description?: string;
  datasource?: { type?: string; uid?: string } | null;
  fieldConfig?: {
    defaults?: { unit?: string; mappings?: ValueMapping[]; thresholds?: { mode?: string; steps?: { color?: string; value?: number | null }[] } };
  };
  targets?: { refId?: string; expr?: string; legendFormat?: string; datasource?: { type?: string; uid?: string } | null; hide?: boolean }[];
  panels?: Panel[];
}
export interface TemplateVariable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: { type?: string; uid?: string } | string | null;
  includeAll?: boolean;
  /** The value of All; without it Grafana sends the alternation of every value. */
  allValue?: string;
  multi?: boolean;
  hide?: number;
  current?: { text?: string | string[]; value?: string | string[] };
}
export interface Dashboard {
  uid?: string;
  title?: string;
  id?: number | null;
  tags?: string[];
  links?: { title?: string; type?: string; url?: string; tags?: string[] }[];
  __inputs?: { name?: string; type?: string; pluginId?: string }[];
  __requires?: { type?: string; id?: string }[];
  panels?: Panel[];
  templating?: { list?: TemplateVariable[] };
  annotations?: { list?: { name?: string; builtIn?: number; expr?: string; datasource?: { type?: string; uid?: string } | null }[] };
}
export interface DashboardFile {
  file: string;
  /** File name without .json. */
  name: string;
  dashboard: Dashboard;
}

export function loadDashboard(path: string): DashboardFile {
  return { file: path, name: basename(path, '.json'), dashboard: JSON.parse(readFileSync(path, 'utf8')) as Dashboard };
}

/** Every dashboard of dashboards/ (or another directory), sorted by file name. */
export function loadDashboards(dir = DASHBOARDS_DIR): DashboardFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => loadDashboard(join(dir, f)));
}

/** Every panel, rows' nested (collapsed) panels included, rows themselves too. */
export function allPanels(d: Dashboard): Panel[] {
  const out: Panel[] = [];
  const walk = (ps: Panel[] | undefined) => {
    for (const p of ps ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(d.panels);
  return out;
}

/** The values a panel's value mappings show as DOWN (a node or the exporter that cannot be reached). */
export function downValues(p: Panel): number[] {
  return (p.fieldConfig?.defaults?.mappings ?? []).flatMap((m) =>
    m.type === 'value' ? Object.entries(m.options ?? {}).flatMap(([value, shown]) => (shown.text === 'DOWN' ? [Number(value)] : [])) : [],
  );
}

/** The variable query string of a Grafana template variable (string or object form). */
export function variableQueryText(v: TemplateVariable): string | undefined {
  if (typeof v.query === 'string') return v.query;
  return v.query?.query;
}

/** Values used when a query is only parsed (any valid duration / label value will do). */
export const PARSE_ONLY_VALUES: Record<string, string> = {
  __rate_interval: '5m',
  __interval: '1m',
  __interval_ms: '60000',
  __range: '1h',
  __range_s: '3600',
  __range_ms: '3600000',
  __from: '0',
  __to: '0',
};

/**
 * Substitutes Grafana variables: `$name`, `${name}`, `${name:format}`, `[[name]]`.
 * `values` gives the text for each name (for a regex matcher, a plain value or an
 * alternation). Returns the expression and the names it could not resolve.
 */
export function substituteVariables(expr: string, values: Record<string, string>): { expr: string; unknown: string[] } {
  const unknown: string[] = [];
  const sub = (name: string, whole: string) => {
    const v = values[name];
    if (v === undefined) {
      unknown.push(name);
      return whole;
    }
    return v;
  };
  const out = expr
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}/g, (whole, name: string) => sub(name, whole))
    .replace(/\[\[([A-Za-z_][A-Za-z0-9_]*)(?::[^\]]*)?\]\]/g, (whole, name: string) => sub(name, whole))
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => sub(name, whole));
  return { expr: out, unknown };
}

/**
 * A Grafana Prometheus variable query, turned into what Prometheus is asked:
 * `label_values(selector, label)`, `label_values(label)`, `label_names(...)`,
 * `metrics(regex)` or `query_result(expr)`.
 */
export type VariableQuery =
  | { kind: 'label_values'; label: string; selector?: string }
  | { kind: 'label_names'; selector?: string }
  | { kind: 'metrics'; regex: string }
  | { kind: 'query_result'; expr: string };

export function parseVariableQuery(text: string): VariableQuery {
  const t = text.trim();
  let m = /^label_values\(\s*(.+?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/s.exec(t);
  if (m) return { kind: 'label_values', selector: m[1] as string, label: m[2] as string };
  m = /^label_values\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/.exec(t);
  if (m) return { kind: 'label_values', label: m[1] as string };
  m = /^label_names\(\s*(.*?)\s*\)$/s.exec(t);
  if (m) return m[1] ? { kind: 'label_names', selector: m[1] } : { kind: 'label_names' };
  m = /^metrics\(\s*(.*?)\s*\)$/s.exec(t);
  if (m) return { kind: 'metrics', regex: m[1] ?? '' };
  m = /^query_result\(\s*(.+)\s*\)$/s.exec(t);
  if (m) return { kind: 'query_result', expr: m[1] as string };
  throw new Error(`unsupported Grafana variable query: ${t}`);
}

/** One PromQL query found in a dashboard or a rules file, with where it was found. */
export interface QueryRef {
  /** Human-readable location, e.g. `avax-validators.json: panel "Connected" (id 2) target A`. */
  where: string;
  kind: 'panel' | 'variable' | 'annotation' | 'rule' | 'rule-annotation';
  /** The query as written (Grafana variables not substituted). */
  expr: string;
  /** Dashboard queries only: the variables the dashboard defines. */
  variables?: string[];
  /** Panel queries: dashboard uid, panel id, title, type and target refId. */
  panel?: { dashboard: string; id: number | undefined; title: string; type: string; refId: string };
}

/** Every PromQL query of one dashboard: panel targets, query variables, annotation queries. */
export function dashboardQueries(df: DashboardFile): QueryRef[] {
  const d = df.dashboard;
  const file = basename(df.file);
  const variables = (d.templating?.list ?? []).map((v) => v.name);
  const out: QueryRef[] = [];
  for (const p of allPanels(d)) {
    for (const t of p.targets ?? []) {
      if (typeof t.expr !== 'string' || !t.expr.trim()) continue;
      const title = p.title ?? '';
      out.push({
        where: `${file}: panel "${title}" (id ${p.id ?? '?'}) target ${t.refId ?? '?'}`,
        kind: 'panel',
        expr: t.expr,
        variables,
        panel: { dashboard: d.uid ?? df.name, id: p.id, title, type: p.type ?? '', refId: t.refId ?? '' },
      });
    }
  }
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const text = variableQueryText(v);
    if (!text) continue;
    const q = parseVariableQuery(text);
    const expr = q.kind === 'query_result' ? q.expr : q.kind === 'metrics' ? undefined : q.selector;
    if (expr) out.push({ where: `${file}: variable $${v.name} (${text})`, kind: 'variable', expr, variables });
  }
  for (const a of d.annotations?.list ?? []) {
    if (a.builtIn || typeof a.expr !== 'string' || !a.expr.trim()) continue;
    out.push({ where: `${file}: annotation "${a.name ?? ''}"`, kind: 'annotation', expr: a.expr, variables });
  }
  return out;
}

// ---------------------------------------------------------------------- rules

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Rule[];
}
export interface RulesFile {
  file: string;
  groups: RuleGroup[];
}

export function loadRulesFile(path: string): RulesFile {
  return { file: path, groups: (parseYaml(readFileSync(path, 'utf8')) as { groups: RuleGroup[] }).groups };
}

/** Every Prometheus rules file of alerts/ (the promtool unit tests in alerts/tests/ are not rules). */
export function loadRulesFiles(dir = ALERTS_DIR): RulesFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((f) => loadRulesFile(join(dir, f)));
}

/** Names of the recording rules defined in the rules files. */
export function recordedNames(files: RulesFile[]): Set<string> {
  return new Set(files.flatMap((f) => f.groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : [])))));
}

/** A Go string literal ("…" or `…`) as its value. */
function goString(lit: string): string {
  if (lit.startsWith('`')) return lit.slice(1, -1);
  return JSON.parse(lit) as string;
}

/** Applies a Go printf format with placeholder arguments: %q → "x", %s/%v → x, numbers → 0. */
function goPrintfPlaceholders(format: string): string {
  return format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([a-zA-Z%])/g, (_m, _flags: string, verb: string) => {
    switch (verb) {
      case '%':
        return '%';
      case 'q':
        return '"x"';
      case 's':
      case 'v':
        return 'x';
      default:
        return '0';
    }
  });
}

const GO_STRING = /"(?:[^"\\]|\\.)*"|`[^`]*`/g;

/**
 * The PromQL queries run by an alert annotation through the `query` template
 * function: `{{ query "expr" }}`, `{{ with query "expr" }}` and
 * `{{ printf "expr %q" $labels.x | query }}` (printf arguments become
 * placeholders). A template action that calls `query` in any other way throws,
 * so no query is silently left unchecked.
 */
export function annotationQueries(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
    const action = m[1] as string;
    const code = action.replace(GO_STRING, '""');
    if (!/(^|[\s(|])query\b/.test(code)) continue;
    const viaPrintf = /\bprintf\s+("(?:[^"\\]|\\.)*"|`[^`]*`)[^|]*\|\s*query\b/.exec(action);
    if (viaPrintf) {
      out.push(goPrintfPlaceholders(goString(viaPrintf[1] as string)));
      continue;
    }
    const direct = /\bquery\s+("(?:[^"\\]|\\.)*"|`[^`]*`)/.exec(action);
    if (direct) {
      out.push(goString(direct[1] as string));
      continue;
    }
    throw new Error(`cannot tell which query this template action runs: {{${action}}}`);
  }
  return out;
}

/** Every PromQL query of a rules file: rule expressions and annotation `query` calls. */
export function ruleQueries(rf: RulesFile): QueryRef[] {
  const file = basename(rf.file);
  const out: QueryRef[] = [];
  for (const g of rf.groups)
    for (const [i, r] of g.rules.entries()) {
      const name = r.alert ? `alert ${r.alert}${r.labels?.['severity'] ? ` (${r.labels['severity']})` : ''}` : `record ${r.record ?? `#${i}`}`;
      out.push({ where: `${file}: group ${g.name}, ${name}: expr`, kind: 'rule', expr: r.expr });
      for (const [key, text] of Object.entries(r.annotations ?? {}))
        for (const q of annotationQueries(text))
          out.push({ where: `${file}: group ${g.name}, ${name}: annotation ${key} query`, kind: 'rule-annotation', expr: q });
    }
  return out;
}

// --------------------------------------------------------------------- PromQL

/** One vector selector of a parsed expression. */
export interface Selector {
  /** Metric name, or undefined for a selector without one (e.g. `{job="x"}`). */
  name: string | undefined;
  matchers: { label: string; op: string; value: string }[];
}

const strictParser = parser.configure({ strict: true });

function unquote(lit: string): string {
  if (lit.startsWith('`')) return lit.slice(1, -1);
  if (lit.startsWith("'")) return JSON.parse(`"${lit.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string;
  return JSON.parse(lit) as string;
}

/**
 * Parses a PromQL expression (Grafana variables already substituted) and
 * returns its vector selectors. Throws on a syntax error.
 */
export function selectorsOf(expr: string): Selector[] {
  let tree;
  try {
    tree = strictParser.parse(expr);
  } catch (err) {
    throw new Error(`PromQL syntax error: ${(err as Error).message} in: ${expr}`, { cause: err });
  }
  const out: Selector[] = [];
  const cur = tree.cursor();
  const text = (from: number, to: number) => expr.slice(from, to);
  do {
    if (cur.name !== 'VectorSelector') continue;
    const sel: Selector = { name: undefined, matchers: [] };
    const node = cur.node;
    const ident = node.getChild('Identifier');
    if (ident) sel.name = text(ident.from, ident.to);
    const lm = node.getChild('LabelMatchers');
    for (let c = lm?.firstChild; c; c = c.nextSibling) {
      if (c.name === 'UnquotedLabelMatcher' || c.name === 'QuotedLabelMatcher') {
        const labelNode = c.getChild('LabelName') ?? c.getChild('QuotedLabelName')?.getChild('StringLiteral');
        const op = c.getChild('MatchOp');
        const values = c.getChildren('StringLiteral');
        const valueNode = values[values.length - 1];
        if (!labelNode || !op || !valueNode) continue;
        const rawLabel = text(labelNode.from, labelNode.to);
        sel.matchers.push({
          label: labelNode.name === 'LabelName' ? rawLabel : unquote(rawLabel),
          op: text(op.from, op.to),
          value: unquote(text(valueNode.from, valueNode.to)),
        });
      } else if (c.name === 'QuotedLabelName') {
        // Prometheus 3 `{"metric.name"}`: a quoted name alone is the metric name.
        const lit = c.getChild('StringLiteral');
        if (lit) sel.name = unquote(text(lit.from, lit.to));
      }
    }
    if (sel.name === undefined) {
      const byName = sel.matchers.find((m) => m.label === '__name__' && m.op === '=');
      if (byName) sel.name = byName.value;
    }
    out.push(sel);
  } while (cur.next());
  return out;
}

/** Metric names an expression selects. */
export function metricNamesOf(expr: string): string[] {
  return [...new Set(selectorsOf(expr).flatMap((s) => (s.name === undefined ? [] : [s.name])))];
}

// ------------------------------------------------------------------ the check

/** Series Prometheus itself writes for every scrape target, and the alert state series. */
export const PROMETHEUS_BUILTINS = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
  'scrape_timeout_seconds',
  'scrape_sample_limit',
  'scrape_body_size_bytes',
  'ALERTS',
  'ALERTS_FOR_STATE',
]);

/**
 * Labels Prometheus attaches to every scraped series (the dashboards' `$job`), and
 * `cluster`, the environment label an operator adds to the exporter's targets (or
 * as an external label): the dashboards' `$cluster`, kept by the rules' aggregations.
 */
export const TARGET_LABELS = new Set(['job', 'instance', 'cluster']);

/** What a query may select. */
export interface KnownNames {
  /** Exporter metrics (METRICS) with their labels. */
  metrics: Readonly<Record<string, { readonly labels: readonly string[] }>>;
  /** Recording rules of alerts/. */
  records: ReadonlySet<string>;
  builtins: ReadonlySet<string>;
}

export interface Problem {
  where: string;
  message: string;
}

/**
 * Checks queries against the known names: each must parse, every metric it
 * selects must be an exporter metric, a recording rule or a Prometheus
 * built-in, every label it matches on an exporter metric must be one of the
 * metric's labels or a target label, and a dashboard query may only use
 * variables its dashboard defines (or Grafana's globals).
 */
export function checkQueries(refs: QueryRef[], known: KnownNames): Problem[] {
  const problems: Problem[] = [];
  for (const ref of refs) {
    let expr = ref.expr;
    if (ref.variables) {
      const values: Record<string, string> = { ...PARSE_ONLY_VALUES };
      for (const v of ref.variables) values[v] = 'x';
      const s = substituteVariables(expr, values);
      for (const u of new Set(s.unknown)) problems.push({ where: ref.where, message: `undefined dashboard variable $${u}` });
      expr = s.expr;
    }
    let selectors: Selector[];
    try {
      selectors = selectorsOf(expr);
    } catch (err) {
      problems.push({ where: ref.where, message: (err as Error).message });
      continue;
    }
    for (const sel of selectors) {
      // `{__name__=~"a|b", …}`: a list of metric names, each checked as its own selector.
      const listed = sel.matchers.find((m) => m.label === '__name__' && m.op === '=~' && /^[A-Za-z_:][\w:]*(\|[A-Za-z_:][\w:]*)*$/.test(m.value));
      const names = sel.name !== undefined ? [sel.name] : listed ? listed.value.split('|') : [];
      if (names.length === 0) {
        problems.push({ where: ref.where, message: `selector without a metric name: ${JSON.stringify(sel.matchers)}` });
        continue;
      }
      for (const name of names) {
        const def = Object.hasOwn(known.metrics, name) ? known.metrics[name] : undefined;
        if (!def && !known.records.has(name) && !known.builtins.has(name)) {
          problems.push({ where: ref.where, message: `unknown metric ${name}` });
          continue;
        }
        if (def)
          for (const m of sel.matchers)
            if (m.label !== '__name__' && !def.labels.includes(m.label) && !TARGET_LABELS.has(m.label))
              problems.push({ where: ref.where, message: `${name} has no label ${m.label} (labels: ${def.labels.join(', ') || 'none'})` });
      }
    }
  }
  // A name used twice in one query (e.g. a value and its `or` fallback) is one problem.
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.where}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
