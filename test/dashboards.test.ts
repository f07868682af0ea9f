/**
 * What the dashboards must do for an operator (issue 15), read from the JSON:
 * the data source variable survives a UI import; every query follows the
 * `$cluster` and `$job` variables; `$node_id` lists the watched validators and
 * its All matches every validator, so the per-validator panels show the worst
 * 20 rather than 1,800 series; a node that cannot be polled is a DOWN tile, not
 * a missing one; uptime is coloured against each validation's own reward
 * threshold and the network's view, not fixed numbers or a node's view of
 * itself. test/live-prometheus.test.ts runs the same queries on a real
 * Prometheus (with the node taken down for the DOWN tiles).
 */
import { parser } from '@prometheus-io/lezer-promql';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../src/metrics/metric-defs.js';
import {
  PARSE_ONLY_VALUES,
  PROMETHEUS_BUILTINS,
  allPanels,
  downValues,
  loadDashboards,
  loadRulesFiles,
  metricNamesOf,
  parseVariableQuery,
  recordedNames,
  selectorsOf,
  substituteVariables,
  variableQueryText,
  type Dashboard,
  type Panel,
  type TemplateVariable,
} from './helpers/promql-contract.js';

/** A node of a parsed PromQL tree (the parser's own type, without depending on @lezer/common). */
type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

const dashboards = loadDashboards();
const byName = (name: string) => {
  const df = dashboards.find((d) => d.name === name);
  if (!df) throw new Error(`no dashboard ${name}`);
  return df.dashboard;
};
const variable = (d: Dashboard, name: string): TemplateVariable | undefined => d.templating?.list?.find((v) => v.name === name);
const exprsOf = (p: Panel) => (p.targets ?? []).flatMap((t) => (t.expr?.trim() ? [t.expr] : []));

// ------------------------------------------------------------ PromQL helpers

/** Grafana variables replaced by recognisable placeholders (`$cluster` → `__cluster__`), globals by valid values. */
function placeheld(expr: string, d: Dashboard): string {
  const values: Record<string, string> = { ...PARSE_ONLY_VALUES };
  for (const v of d.templating?.list ?? []) values[v.name] = `__${v.name}__`;
  return substituteVariables(expr, values).expr;
}

function parse(expr: string): SyntaxNode {
  return parser.configure({ strict: true }).parse(expr).topNode;
}

/** Every node of a tree, depth first. */
function nodesOf(top: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const walk = (n: SyntaxNode) => {
    out.push(n);
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(top);
  return out;
}

/**
 * Whether an expression's result is bounded to at most `k` series by topk/bottomk: the
 * expression itself is `topk(n, …)`/`bottomk(n, …)` with n ≤ k (in parentheses or not), or an
 * `and` whose either side is bounded.
 */
function boundedBy(expr: string, k: number): boolean {
  const bounded = (n: SyntaxNode | null): boolean => {
    if (!n) return false;
    if (n.name === 'PromQL' || n.name === 'ParenExpr') return bounded(n.lastChild?.name === ')' ? (n.firstChild?.nextSibling ?? null) : n.firstChild);
    if (n.name === 'AggregateExpr') {
      const op = n.getChild('AggregateOp')?.firstChild?.name;
      const param = n.getChild('FunctionCallBody')?.getChild('NumberDurationLiteral');
      return (op === 'Topk' || op === 'Bottomk') && param != null && Number(expr.slice(param.from, param.to)) <= k;
    }
    if (n.name === 'BinaryExpr' && n.getChild('And')) {
      const sides = n.getChildren('Expr').length > 0 ? n.getChildren('Expr') : [n.firstChild, n.lastChild];
      return sides.some((s) => bounded(s));
    }
    return false;
  };
  return bounded(parse(expr));
}

/**
 * Whether an expression's series may be one per validator: false only when its outermost
 * operation is an aggregation `by (…)` without node_id (a per-node or per-network result).
 */
function mayBePerValidator(expr: string): boolean {
  let n: SyntaxNode | null = parse(expr).firstChild;
  while (n?.name === 'ParenExpr') n = n.firstChild?.nextSibling ?? null;
  if (n?.name !== 'AggregateExpr') return true;
  const op = n.getChild('AggregateOp')?.firstChild?.name;
  const mod = n.getChild('AggregateModifier');
  if (op === 'Topk' || op === 'Bottomk' || !mod?.getChild('By')) return true;
  const labels =
    mod
      .getChild('GroupingLabels')
      ?.getChildren('LabelName')
      .map((l) => expr.slice(l.from, l.to)) ?? [];
  return labels.includes('node_id');
}

/**
 * Selectors that ignore `$cluster` or `$job` (placeheld expression): exporter metrics and
 * scrape series need both; recording rules, which aggregate `job` away but keep `cluster`,
 * need `$cluster`; the `avax:threshold:*` constants have neither label.
 */
function unfiltered(expr: string): string[] {
  const needs = (name: string) =>
    Object.hasOwn(METRICS, name) || PROMETHEUS_BUILTINS.has(name)
      ? ['cluster', 'job']
      : name.includes(':') && !name.startsWith('avax:threshold:')
        ? ['cluster']
        : [];
  return selectorsOf(expr)
    .filter((s) => s.name !== undefined && !needs(s.name).every((l) => s.matchers.some((m) => m.label === l && m.op === '=~' && m.value === `__${l}__`)))
    .map((s) => s.name ?? '');
}

/** `by (…)` and `on (…)` label lists that are not empty and leave out `cluster`. */
function groupingsWithoutCluster(expr: string): string[] {
  return nodesOf(parse(expr))
    .filter((n) => n.name === 'GroupingLabels' && (n.prevSibling?.name === 'By' || n.prevSibling?.name === 'On'))
    .map((n) => n.getChildren('LabelName').map((l) => expr.slice(l.from, l.to)))
    .filter((labels) => labels.length > 0 && !labels.includes('cluster'))
    .map((labels) => `(${labels.join(', ')})`);
}

/** Data source references other than the `${datasource}` variable (and Grafana's built-in annotations). */
function foreignDatasources(json: unknown, path = '$'): string[] {
  if (Array.isArray(json)) return json.flatMap((x, i) => foreignDatasources(x, `${path}[${i}]`));
  if (!json || typeof json !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(json)) {
    if (k === 'datasource' && path !== '$.templating.list') {
      const ds = v as { type?: string; uid?: string } | string | null;
      const ok =
        (typeof ds === 'object' && ds !== null && ds.type === 'prometheus' && ds.uid === '${datasource}' && Object.keys(ds).length === 2) ||
        (typeof ds === 'object' && ds !== null && ds.type === 'grafana' && ds.uid === '-- Grafana --');
      if (!ok) out.push(`${path}.${k} = ${JSON.stringify(ds)}`);
    } else if (k === 'uid' && path !== '$' && v !== '${datasource}' && v !== '-- Grafana --') out.push(`${path}.${k} = ${JSON.stringify(v)}`);
    else out.push(...foreignDatasources(v, `${path}.${k}`));
  }
  return out;
}

/** Metrics whose series are one per validator (a `node_id` label; avax_node_info is one per node), and the avax_validator:* recording rules. */
const PER_VALIDATOR = new Set([
  ...Object.entries(METRICS).flatMap(([name, def]) => ((def.labels as readonly string[]).includes('node_id') && name !== 'avax_node_info' ? [name] : [])),
  ...[...recordedNames(loadRulesFiles())].filter((r) => r.startsWith('avax_validator:')),
]);

describe('the helpers this test relies on', () => {
  it('boundedBy: topk/bottomk at the top, in parentheses or on a side of `and`', () => {
    expect(boundedBy('bottomk(20, m)', 20)).toBe(true);
    expect(boundedBy('(topk(5, m))', 20)).toBe(true);
    expect(boundedBy('m * 1000 and on (a) bottomk(20, n - time())', 20)).toBe(true);
    expect(boundedBy('m', 20)).toBe(false);
    expect(boundedBy('topk(50, m)', 20)).toBe(false);
    expect(boundedBy('sum by (a) (topk(20, m))', 20)).toBe(false);
    expect(boundedBy('bottomk(20, m) or n', 20)).toBe(false);
  });

  it('mayBePerValidator: only an outer aggregation without node_id makes a result per node', () => {
    expect(mayBePerValidator('max by (cluster, node) (m and on (node, node_id) n)')).toBe(false);
    expect(mayBePerValidator('(sum(m))')).toBe(true);
    expect(mayBePerValidator('max by (node_id) (m)')).toBe(true);
    expect(mayBePerValidator('max by (node) (m) * n')).toBe(true);
  });

  it('unfiltered and groupingsWithoutCluster find what a query forgot', () => {
    expect(unfiltered('avax_node_healthy{cluster=~"__cluster__", job=~"__job__"} or up{job=~"__job__"} or avax:threshold:min_peers')).toEqual(['up']);
    expect(unfiltered('avax_validator:watched:max{cluster=~"__cluster__"} or avax_node:down:max')).toEqual(['avax_node:down:max']);
    expect(
      groupingsWithoutCluster('max by (node) (m) - on (cluster, node) group_left (version) n * on () k / ignoring (a) sum by (cluster) (x) + on (node) y'),
    ).toEqual(['(node)', '(node)']);
  });

  it('foreignDatasources finds a hard-coded uid', () => {
    expect(
      foreignDatasources({
        panels: [{ datasource: { type: 'prometheus', uid: '${datasource}' }, targets: [{ datasource: { type: 'prometheus', uid: 'P1809F7CD0C75ACF3' } }] }],
      }),
    ).toEqual(['$.panels[0].targets[0].datasource = {"type":"prometheus","uid":"P1809F7CD0C75ACF3"}']);
    expect(foreignDatasources({ panels: [{ datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' } }] })).toHaveLength(1);
    expect(foreignDatasources({ panels: [{ datasource: 'Prometheus' }] })).toHaveLength(1);
  });
});

describe.each(dashboards.map((d) => [d.name, d.dashboard] as const))('%s', (_name, d) => {
  it('asks for its data source on import and keeps it switchable: a `datasource` variable defaulting to the DS_PROMETHEUS input, used by every panel, target and variable', () => {
    const dsVars = (d.templating?.list ?? []).filter((v) => v.type === 'datasource');
    expect(dsVars).toHaveLength(1);
    expect(dsVars[0]).toMatchObject({ name: 'datasource', query: 'prometheus', current: { text: '${DS_PROMETHEUS}', value: '${DS_PROMETHEUS}' } });
    expect(d.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    // ${DS_PROMETHEUS} (what the import dialog fills in) appears nowhere but as the variable's default.
    const { __inputs: _inputs, ...rest } = d as Dashboard & Record<string, unknown>;
    expect(JSON.stringify(rest).match(/DS_PROMETHEUS/g)).toHaveLength(2);
    expect(foreignDatasources(d)).toEqual([]);
    // __requires names the data source and every panel type, so the import checks for them.
    const types = [...new Set(allPanels(d).map((p) => p.type))];
    const required = new Set((d.__requires ?? []).map((r) => `${r.type ?? ''}/${r.id ?? ''}`));
    expect([...required]).toEqual(expect.arrayContaining(['grafana/grafana', 'datasource/prometheus', ...types.map((t) => `panel/${t ?? ''}`)]));
  });

  it('has $cluster (All matches an empty label) and $job variables first, and every query filters on both and keeps cluster in its groupings', () => {
    const names = (d.templating?.list ?? []).map((v) => v.name);
    expect(names.slice(0, 3)).toEqual(['datasource', 'cluster', 'job']);
    const cluster = variable(d, 'cluster');
    expect(cluster).toMatchObject({ type: 'query', includeAll: true, allValue: '.*', multi: true });
    expect(parseVariableQuery(variableQueryText(cluster as TemplateVariable) ?? '')).toMatchObject({ kind: 'label_values', label: 'cluster' });
    const job = variable(d, 'job');
    expect(job).toMatchObject({ type: 'query', includeAll: true, multi: true });
    // All of $job is the list of exporter jobs, never `.+` (that would match every job, `up` of other exporters included).
    expect(job?.allValue).toBeUndefined();
    // The exporter's own and the wallets dashboards list the exporter jobs; the node dashboards also
    // list the jobs that carry node series only (a /probe job of a probe or sharded setup has no
    // build info, issue 22 point 10).
    expect(parseVariableQuery(variableQueryText(job as TemplateVariable) ?? '')).toEqual({
      kind: 'label_values',
      label: 'job',
      selector:
        _name === 'avax-exporter-self' || _name === 'avax-wallets'
          ? 'avax_exporter_build_info{cluster=~"$cluster"}'
          : '{__name__=~"avax_exporter_build_info|avax_node_info", cluster=~"$cluster"}',
    });

    const queries = [
      ...allPanels(d).flatMap((p) => exprsOf(p).map((e) => ({ where: `panel ${p.id} "${p.title ?? ''}"`, expr: e }))),
      ...(d.templating?.list ?? [])
        .filter((v) => v.type === 'query' && v.name !== 'cluster' && v.name !== 'job')
        .map((v) => {
          const q = parseVariableQuery(variableQueryText(v) ?? '');
          return { where: `variable $${v.name}`, expr: q.kind === 'label_values' ? (q.selector ?? '') : '' };
        }),
    ];
    expect(queries.length).toBeGreaterThan(5);
    for (const q of queries) {
      const expr = placeheld(q.expr, d);
      expect(unfiltered(expr), `${q.where}: ${q.expr}`).toEqual([]);
      expect(groupingsWithoutCluster(expr), `${q.where}: ${q.expr}`).toEqual([]);
    }
  });

  it('per-validator panels show at most the worst 20 (topk/bottomk), so --watch.all-validators renders', () => {
    let checked = 0;
    for (const p of allPanels(d))
      for (const e of exprsOf(p)) {
        if (!metricNamesOf(placeheld(e, d)).some((m) => PER_VALIDATOR.has(m)) || !mayBePerValidator(placeheld(e, d))) continue;
        checked++;
        expect(boundedBy(placeheld(e, d), 20), `panel ${p.id} "${p.title ?? ''}": ${e}`).toBe(true);
        expect(p.title, `panel ${p.id}: the title says how many it shows`).toMatch(/\b20\b/);
      }
    // The validators dashboard is mostly per-validator panels; the network one lists watched validators.
    const expected: Record<string, number> = { 'avax-validators': 25, 'avax-network-peers': 2 };
    expect(checked).toBeGreaterThanOrEqual(expected[d.uid ?? ''] ?? 0);
  });

  it('colours no uptime at a fixed reward number: uptime panels are neutral or the margin over the threshold (0 and 5 points)', () => {
    for (const p of allPanels(d)) {
      const metrics = exprsOf(p).flatMap((e) => metricNamesOf(placeheld(e, d)));
      if (!metrics.some((m) => /uptime.*_ratio$/.test(m))) continue;
      const steps = (p.fieldConfig?.defaults?.thresholds?.steps ?? []).map((s) => s.value).filter((v) => v !== null);
      expect([[], [0, 0.05]], `panel ${p.id} "${p.title ?? ''}" thresholds`).toContainEqual(steps);
      if (steps.length > 0)
        expect(metrics, `panel ${p.id} "${p.title ?? ''}" is coloured as a margin over the reward threshold`).toContain(
          'avax_validator_reward_uptime_threshold_ratio',
        );
    }
  });

  it('lays its panels out without overlap, within the 24 columns', () => {
    const ps = allPanels(d).map((p) => ({ id: p.id, g: (p as Panel & { gridPos?: { x: number; y: number; w: number; h: number } }).gridPos }));
    for (const { id, g } of ps) {
      expect(g, `panel ${id} has no gridPos`).toBeDefined();
      if (g) expect(g.x + g.w, `panel ${id}`).toBeLessThanOrEqual(24);
    }
    for (const [i, a] of ps.entries())
      for (const b of ps.slice(i + 1))
        if (a.g && b.g)
          expect(a.g.x < b.g.x + b.g.w && b.g.x < a.g.x + a.g.w && a.g.y < b.g.y + b.g.h && b.g.y < a.g.y + a.g.h, `panels ${a.id} and ${b.id} overlap`).toBe(
            false,
          );
  });

  it('colours no peer count: a node has over a thousand peers on mainnet', () => {
    for (const p of allPanels(d)) {
      const metrics = exprsOf(p).flatMap((e) => metricNamesOf(placeheld(e, d)));
      if (!metrics.includes('avax_node_peers')) continue;
      expect(p.fieldConfig?.defaults?.thresholds?.steps, `panel ${p.id} "${p.title ?? ''}"`).toHaveLength(1);
    }
  });
});

describe('a dead node shows DOWN, not a missing tile', () => {
  const isRed = (p: Panel, value: number) =>
    (p.fieldConfig?.defaults?.mappings ?? []).some(
      (m) => m.type === 'value' && m.options?.[String(value)]?.text === 'DOWN' && m.options[String(value)]?.color === 'red',
    );

  /** The node tile: avax_source_up of the info source, 0 → DOWN, with a fallback for a node whose series went away. */
  const nodeTile = (d: Dashboard) =>
    allPanels(d).find(
      (p) =>
        p.type === 'stat' &&
        exprsOf(p).some((e) =>
          selectorsOf(placeheld(e, d)).some((s) => s.name === 'avax_source_up' && s.matchers.some((m) => m.label === 'source' && m.value === 'info')),
        ),
    );

  it.each(['avax-fleet-overview', 'avax-validators'])('%s has a node tile keyed on the info source, 0 mapped to a red DOWN, with an `or` fallback', (name) => {
    const d = byName(name);
    const p = nodeTile(d);
    expect(p, 'no stat panel on avax_source_up{source="info"}').toBeDefined();
    if (!p) return;
    expect(isRed(p, 0)).toBe(true);
    const [expr] = exprsOf(p);
    const top = parse(placeheld(expr ?? '', d)).firstChild;
    expect(top?.name).toBe('BinaryExpr');
    expect(top?.getChild('Or'), 'the fallback keeps the tile when the series went away').not.toBeNull();
    expect(expr).toMatch(/last_over_time\(avax_source_up\{[^}]*source="info"/);
  });

  it('every per-node stat tile of the fleet overview shows DOWN when its node cannot be polled', () => {
    const d = byName('avax-fleet-overview');
    const tiles = allPanels(d).filter((p) => p.type === 'stat' && (p.targets ?? []).some((t) => t.legendFormat === '{{node}}'));
    expect(tiles.map((p) => p.title)).toEqual(expect.arrayContaining(['Node', 'Health', 'Readiness', 'Liveness', 'Validating', 'Connected stake (P-Chain)']));
    for (const p of tiles) {
      expect(downValues(p), `panel "${p.title ?? ''}"`).toHaveLength(1);
      expect(isRed(p, downValues(p)[0] as number), `panel "${p.title ?? ''}"`).toBe(true);
      for (const e of exprsOf(p))
        expect(e, `panel "${p.title ?? ''}"`).toMatch(/\bor\s+max by \(cluster, node\) \(last_over_time\(avax_source_up\{[^}]*source="info"[^}]*\}\[1h\]\)\)/);
    }
  });

  it.each([
    ['avax-fleet-overview', 'Exporter'],
    ['avax-exporter-self', 'Scrape target'],
  ])('%s: the exporter tile (%s) maps up 0 to a red DOWN', (name, title) => {
    const d = byName(name);
    const p = allPanels(d).find((x) => x.title === title);
    expect(p && exprsOf(p).flatMap((e) => metricNamesOf(placeheld(e, d)))).toEqual(['up']);
    expect(p && isRed(p, 0)).toBe(true);
  });
});

describe('avax-validators', () => {
  const d = byName('avax-validators');
  const titled = (re: RegExp) => allPanels(d).filter((p) => re.test(p.title ?? ''));

  it('$node_id lists the watched validators and All matches every validator (.+), the default', () => {
    const v = variable(d, 'node_id');
    expect(v).toMatchObject({ type: 'query', includeAll: true, allValue: '.+', multi: true, current: { value: ['$__all'] } });
    const q = parseVariableQuery(variableQueryText(v as TemplateVariable) ?? '');
    expect(q.kind === 'label_values' && q.label).toBe('node_id');
    expect(q.kind === 'label_values' && metricNamesOf(placeheld(q.selector ?? '', d))).toEqual(['avax_validator_watched']);
  });

  it("shows the network's view (info.uptime) of each node's own validation, and labels the per-node view as such", () => {
    const [own] = titled(/network's view of each node's own validation/i);
    expect(own && exprsOf(own).flatMap((e) => metricNamesOf(placeheld(e, d)))).toEqual(
      expect.arrayContaining(['avax_node_uptime_weighted_average_ratio', 'avax_validator_reward_uptime_threshold_ratio']),
    );
    const perNode = allPanels(d).filter((p) =>
      exprsOf(p).some(
        (e) => metricNamesOf(placeheld(e, d)).includes('avax_validator_uptime_ratio') && /seen by \{\{node\}\}/.test(p.targets?.[0]?.legendFormat ?? ''),
      ),
    );
    expect(perNode).toHaveLength(1);
    expect(perNode[0]?.title).toMatch(/as each watching node sees it/);
  });

  it("judges uptime by the network's view against each validation's threshold, never a node's view of itself", () => {
    const margin = allPanels(d).find((p) => p.type === 'stat' && /uptime margin/i.test(p.title ?? ''));
    const [expr] = margin ? exprsOf(margin) : [];
    expect(expr).toBeDefined();
    const names = metricNamesOf(placeheld(expr ?? '', d));
    expect(names).toEqual(
      expect.arrayContaining([
        'avax_node_uptime_weighted_average_ratio',
        'avax_data_api_validator_uptime_ratio',
        'avax_validator_uptime_ratio',
        'avax_validator_reward_uptime_threshold_ratio',
      ]),
    );
    // The watching nodes' views leave out a node's view of its own id.
    expect(expr).toMatch(/avax_validator_uptime_ratio\{[^}]*\} unless on \(cluster, node, node_id\) avax_node_info\{/);
    // So do the connected panels.
    for (const p of allPanels(d).filter((x) => exprsOf(x).some((e) => metricNamesOf(placeheld(e, d)).includes('avax_validator_connected'))))
      for (const e of exprsOf(p)) expect(e, `panel "${p.title ?? ''}"`).toMatch(/unless on \(cluster, node, node_id\) avax_node_info\{/);
  });
});

describe('avax-fleet-overview', () => {
  it('colours each node by the P-Chain stake it is connected to', () => {
    const d = byName('avax-fleet-overview');
    const p = allPanels(d).find(
      (x) =>
        x.type === 'stat' &&
        exprsOf(x).some((e) =>
          selectorsOf(placeheld(e, d)).some(
            (s) => s.name === 'avax_node_connected_stake_ratio' && s.matchers.some((m) => m.label === 'chain' && m.value === 'P'),
          ),
        ),
    );
    expect(p?.fieldConfig?.defaults?.unit).toBe('percentunit');
    expect(p?.fieldConfig?.defaults?.thresholds?.steps?.map((s) => s.value)).toEqual([null, 0.8, 0.9]);
  });
});

describe('avax-fleet-overview: the Node resources row', () => {
  const d = byName('avax-fleet-overview');
  const rowIndex = (d.panels ?? []).findIndex((p) => p.type === 'row' && p.title === 'Node resources');
  const rowPanels = (d.panels ?? []).slice(rowIndex + 1);
  const metricsOf = (p: Panel) => exprsOf(p).flatMap((e) => metricNamesOf(placeheld(e, d)));
  const withMetric = (m: string) => rowPanels.filter((p) => metricsOf(p).includes(m));

  it('is a row at the bottom of the dashboard', () => {
    expect(rowIndex).toBeGreaterThan(0);
    expect(rowPanels.length).toBeGreaterThan(0);
    expect(rowPanels.every((p) => p.type !== 'row')).toBe(true);
  });

  it("draws the disk available with its forecast and AvalancheGo's two thresholds on one panel, in bytes", () => {
    const [disk] = withMetric('avax_node_disk_available_bytes');
    expect(disk && metricsOf(disk)).toEqual(
      expect.arrayContaining([
        'avax_node:disk_available_bytes:predict_24h',
        'avax_node:disk_unhealthy_available_bytes:estimate',
        'avax_node:disk_shutdown_available_bytes:estimate',
      ]),
    );
    expect(disk?.fieldConfig?.defaults?.unit).toBe('bytes');
  });

  it("has a per-node disk tile that shows DOWN and turns red under AvalancheGo's unhealthy share", () => {
    const [tile] = withMetric('avax_node_disk_available_ratio');
    expect(tile?.type).toBe('stat');
    expect(tile && downValues(tile)).toEqual([-1]);
    expect(tile?.fieldConfig?.defaults?.thresholds?.steps?.map((s) => [s.color, s.value])).toEqual([
      ['red', null],
      ['orange', 0.1],
      ['green', 0.2],
    ]);
  });

  it('shows consensus processing per chain and the network silence, with the alert thresholds drawn', () => {
    for (const m of [
      'avax_node_chain_longest_processing_block_seconds',
      'avax_node_chain_processing_blocks',
      'avax_node_network_last_message_received_age_seconds',
      'avax_node_network_last_message_sent_age_seconds',
      'avax_node_network_send_fail_ratio',
      'avax_node_router_outstanding_requests',
    ])
      expect(withMetric(m), m).toHaveLength(1);
    const [age] = withMetric('avax_node_chain_longest_processing_block_seconds');
    expect(age?.fieldConfig?.defaults?.unit).toBe('s');
    expect(age?.fieldConfig?.defaults?.thresholds?.steps?.map((s) => s.value)).toEqual([null, 30, 120]);
    const [silence] = withMetric('avax_node_network_last_message_received_age_seconds');
    expect(silence?.fieldConfig?.defaults?.thresholds?.steps?.map((s) => s.value)).toEqual([null, 60, 120]);
  });
});
