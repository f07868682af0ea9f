/**
 * The metrics contract between the exporter and what ships next to it: every
 * metric a Grafana dashboard (panel queries, template variable queries,
 * annotations) or a Prometheus rule (expressions, annotation `query`
 * templates) selects must be an exporter metric (METRICS in
 * src/metrics/metric-defs.ts), a recording rule of alerts/ or a Prometheus
 * built-in, and every label it matches on an exporter metric must exist. The
 * queries are parsed with Prometheus's PromQL grammar after substituting
 * Grafana's variables. Also the dashboards' import conventions (__inputs,
 * stable uid, tags, links, titles and units). The alerts' labels and
 * annotations are checked in test/alert-rules.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { METRICS } from '../src/metrics/metric-defs.js';
import {
  PARSE_ONLY_VALUES,
  PROMETHEUS_BUILTINS,
  allPanels,
  annotationQueries,
  checkQueries,
  dashboardQueries,
  loadDashboard,
  loadDashboards,
  loadRulesFile,
  loadRulesFiles,
  metricNamesOf,
  parseVariableQuery,
  recordedNames,
  ruleQueries,
  selectorsOf,
  substituteVariables,
  variableQueryText,
  type DashboardFile,
  type KnownNames,
  type Problem,
  type RulesFile,
} from './helpers/promql-contract.js';

const dashboards = loadDashboards();
const rulesFiles = loadRulesFiles();
const known: KnownNames = { metrics: METRICS, records: recordedNames(rulesFiles), builtins: PROMETHEUS_BUILTINS };

const show = (ps: Problem[]) => ps.map((p) => `${p.where}: ${p.message}`).join('\n');

describe('the query extraction', () => {
  it('finds the dashboards and rules', () => {
    expect(dashboards.map((d) => d.name)).toEqual(['avax-exporter-self', 'avax-fleet-overview', 'avax-network-peers', 'avax-validators', 'avax-wallets']);
    expect(rulesFiles.map((f) => basename(f.file))).toEqual(['avax-exporter.rules.yml']);
  });

  it('takes every panel target, every query variable and every rule', () => {
    for (const df of dashboards) {
      const targets = allPanels(df.dashboard).flatMap((p) => (p.targets ?? []).filter((t) => t.expr));
      const queries = dashboardQueries(df);
      expect(queries.filter((q) => q.kind === 'panel')).toHaveLength(targets.length);
      const queryVars = (df.dashboard.templating?.list ?? []).filter((v) => v.type === 'query');
      expect(queries.filter((q) => q.kind === 'variable')).toHaveLength(queryVars.length);
    }
    const rules = rulesFiles.flatMap((f) => f.groups.flatMap((g) => g.rules));
    const queries = rulesFiles.flatMap(ruleQueries);
    expect(queries.filter((q) => q.kind === 'rule')).toHaveLength(rules.length);
    // Every `query` call in an annotation is found (the extraction throws on a form it cannot read).
    const calls =
      rules
        .flatMap((r) => Object.values(r.annotations ?? {}))
        .join('\n')
        .match(/\|\s*query\b|\bquery\s+"/g) ?? [];
    expect(queries.filter((q) => q.kind === 'rule-annotation')).toHaveLength(calls.length);
    expect(calls.length).toBeGreaterThan(0);
  });

  it('reads annotation query templates, printf placeholders included', () => {
    expect(annotationQueries('min {{ with query "avax:threshold:min_peers" }}{{ . | first | value }}{{ end }}')).toEqual(['avax:threshold:min_peers']);
    expect(annotationQueries('{{ with printf "max(m{node=%q,check=%q}) > %d" $labels.node $labels.check 3 | query }}{{ . }}{{ end }}')).toEqual([
      'max(m{node="x",check="x"}) > 0',
    ]);
    expect(annotationQueries('{{ $value | humanizePercentage }} of {{ $labels.query }}')).toEqual([]);
    expect(() => annotationQueries('{{ $q := "up" }}{{ with $q | query }}{{ end }}')).toThrow(/cannot tell/);
  });

  it('parses PromQL: names anywhere in the expression, matchers, __name__, syntax errors', () => {
    expect(metricNamesOf('sum by (n) (rate(a_total{x=~"1|2"}[5m])) / on (n) group_left () b:rec or vector(0) and {__name__="c"} offset 5m').sort()).toEqual([
      'a_total',
      'b:rec',
      'c',
    ]);
    expect(metricNamesOf('max without (v) (label_replace(m, "v2", "$1", "v", "(.*)"))')).toEqual(['m']);
    expect(selectorsOf('m{node=~"a|b", check!="x"}')[0]?.matchers).toEqual([
      { label: 'node', op: '=~', value: 'a|b' },
      { label: 'check', op: '!=', value: 'x' },
    ]);
    expect(() => selectorsOf('sum(m')).toThrow(/syntax error/);
    expect(() => selectorsOf('m{node=~"$node"}[$__rate_interval]')).toThrow(/syntax error/);
  });

  it('substitutes Grafana variables in every syntax', () => {
    const s = substituteVariables('m{a=~"$node", b=~"${node_id}", c=~"${node:regex}", d=~"[[job]]", e="$1"}[$__rate_interval] + $undefined', {
      node: 'n',
      node_id: 'id',
      job: 'j',
      __rate_interval: '5m',
    });
    expect(s.expr).toBe('m{a=~"n", b=~"id", c=~"n", d=~"j", e="$1"}[5m] + $undefined');
    expect(s.unknown).toEqual(['undefined']);
    expect(parseVariableQuery('label_values(avax_node_info{network="mainnet"}, node)')).toEqual({
      kind: 'label_values',
      selector: 'avax_node_info{network="mainnet"}',
      label: 'node',
    });
    expect(parseVariableQuery('label_values(job)')).toEqual({ kind: 'label_values', label: 'job' });
    expect(parseVariableQuery('query_result(topk(5, m))')).toEqual({ kind: 'query_result', expr: 'topk(5, m)' });
  });
});

describe('metric names used by dashboards and rules exist', () => {
  it.each(dashboards.map((d) => [d.name, d] as const))('dashboard %s', (_name, df) => {
    const queries = dashboardQueries(df);
    expect(queries.length).toBeGreaterThan(0);
    const problems = checkQueries(queries, known);
    expect(problems, show(problems)).toEqual([]);
  });

  it.each(rulesFiles.map((f) => [basename(f.file), f] as const))('rules %s (expressions and annotation queries)', (_name, rf) => {
    const problems = checkQueries(ruleQueries(rf), known);
    expect(problems, show(problems)).toEqual([]);
  });
});

describe('the check catches a rename (mutation test)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-contract-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Problems that `after` has and `before` does not. */
  const added = (before: Problem[], after: Problem[]) => {
    const seen = new Set(before.map((p) => `${p.where}\n${p.message}`));
    return after.filter((p) => !seen.has(`${p.where}\n${p.message}`));
  };
  const anyValue = new Proxy<Record<string, string>>({}, { get: (_t, k) => (typeof k === 'string' ? (PARSE_ONLY_VALUES[k] ?? 'x') : undefined) });
  const exporterMetricIn = (expr: string) => metricNamesOf(substituteVariables(expr, anyValue).expr).find((n) => Object.hasOwn(METRICS, n));

  /** Writes a mutated copy of a dashboard to the temp dir and loads it back as a file. */
  function mutatedCopy(df: DashboardFile, mutate: (json: DashboardFile['dashboard']) => void): DashboardFile {
    const json = structuredClone(df.dashboard);
    mutate(json);
    const file = join(dir, basename(df.file));
    writeFileSync(file, JSON.stringify(json, null, 2));
    return loadDashboard(file);
  }

  it.each(dashboards.map((d) => [d.name, d] as const))('a metric renamed in one panel query of a copy of %s is reported', (_name, df) => {
    const before = checkQueries(dashboardQueries(df), known);
    let victim: { title: string; refId: string; from: string; to: string } | undefined;
    const copy = mutatedCopy(df, (json) => {
      for (const p of allPanels(json))
        for (const t of p.targets ?? []) {
          const name = victim || !t.expr ? undefined : exporterMetricIn(t.expr);
          if (!name || !t.expr) continue;
          victim = { title: p.title ?? '', refId: t.refId ?? '', from: name, to: `${name}_renamed` };
          t.expr = t.expr.replace(new RegExp(`\\b${name}\\b`, 'g'), victim.to);
        }
    });
    expect(victim).toBeDefined();
    const found = added(before, checkQueries(dashboardQueries(copy), known));
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toBe(`unknown metric ${victim?.to}`);
    expect(found[0]?.where).toContain(`panel "${victim?.title}"`);
    expect(found[0]?.where).toContain(`target ${victim?.refId}`);
  });

  it('a metric renamed in a template variable query is reported', () => {
    const df = dashboards.find((d) => d.name === 'avax-validators') as DashboardFile;
    const before = checkQueries(dashboardQueries(df), known);
    const copy = mutatedCopy(df, (json) => {
      const v = json.templating?.list?.find((x) => x.name === 'node_id');
      const text = v && variableQueryText(v);
      expect(text).toBe('label_values(avax_validator_watched{cluster=~"$cluster", job=~"$job", node=~"$node"}, node_id)');
      if (v && text) v.query = { query: text.replace('avax_validator_watched', 'avax_validator_is_watched') };
    });
    expect(added(before, checkQueries(dashboardQueries(copy), known))).toEqual([
      {
        where: 'avax-validators.json: variable $node_id (label_values(avax_validator_is_watched{cluster=~"$cluster", job=~"$job", node=~"$node"}, node_id))',
        message: 'unknown metric avax_validator_is_watched',
      },
    ]);
  });

  it('a renamed label and an undefined variable are reported', () => {
    const df = dashboards.find((d) => d.name === 'avax-fleet-overview') as DashboardFile;
    const before = checkQueries(dashboardQueries(df), known);
    const copy = mutatedCopy(df, (json) => {
      const t = allPanels(json).find((p) => p.title === 'Node health over time')?.targets?.[0];
      expect(t?.expr).toBe('avax_node_healthy{cluster=~"$cluster", job=~"$job", node=~"$node"}');
      if (t) t.expr = 'avax_node_healthy{cluster=~"$cluster", job=~"$job", instance_name=~"$nodes"}';
    });
    expect(
      added(before, checkQueries(dashboardQueries(copy), known))
        .map((p) => p.message)
        .sort(),
    ).toEqual(['avax_node_healthy has no label instance_name (labels: node)', 'undefined dashboard variable $nodes']);
  });

  it('a metric renamed in the exporter breaks the dashboards and rules that use it', () => {
    const { avax_validator_connected: _gone, ...rest } = METRICS;
    const renamed: KnownNames = { ...known, metrics: { ...rest, avax_validator_is_connected: METRICS.avax_validator_connected } };
    const found = [
      ...dashboards.flatMap((d) => checkQueries(dashboardQueries(d), renamed)),
      ...rulesFiles.flatMap((f) => checkQueries(ruleQueries(f), renamed)),
    ];
    const base = [...dashboards.flatMap((d) => checkQueries(dashboardQueries(d), known)), ...rulesFiles.flatMap((f) => checkQueries(ruleQueries(f), known))];
    const news = added(base, found);
    expect(news.length).toBeGreaterThan(0);
    expect(new Set(news.map((p) => p.message))).toEqual(new Set(['unknown metric avax_validator_connected']));
    expect(news.map((p) => p.where)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('avax-validators.json: panel "Connected, as other nodes see it'),
        expect.stringContaining('record avax_validator:connected:max'),
      ]),
    );
  });

  it('a metric renamed in a rule expression or an annotation query of a copy of the rules is reported', () => {
    const rf = rulesFiles[0] as RulesFile;
    const before = checkQueries(ruleQueries(rf), known);
    const text = JSON.stringify({ groups: rf.groups });
    expect(text).toContain('avax_node_health_check_contiguous_failures{node=%q');
    const mutated = JSON.parse(
      text
        // in an alert expression...
        .replace('"expr":"avax_node_bootstrapped == 0"', '"expr":"avax_node_is_bootstrapped == 0"')
        // ...and in the query an annotation runs.
        .replace('avax_node_health_check_contiguous_failures{node=%q', 'avax_node_health_check_failures{node=%q'),
    ) as { groups: unknown };
    const file = join(dir, basename(rf.file)); // same name, so only the mutation differs
    writeFileSync(file, JSON.stringify(mutated)); // JSON is YAML
    const found = added(before, checkQueries(ruleQueries(loadRulesFile(file)), known));
    expect(found).toEqual([
      {
        where: 'avax-exporter.rules.yml: group avax-exporter.node, alert AvaxNodeHealthCheckFailing (warning): annotation description query',
        message: 'unknown metric avax_node_health_check_failures',
      },
      {
        where: 'avax-exporter.rules.yml: group avax-exporter.node, alert AvaxNodeNotBootstrapped (warning): expr',
        message: 'unknown metric avax_node_is_bootstrapped',
      },
    ]);
  });
});

describe('dashboard conventions', () => {
  const uids = dashboards.map((d) => d.dashboard.uid);

  it('uids are unique', () => {
    expect(new Set(uids).size).toBe(dashboards.length);
  });

  describe.each(dashboards.map((d) => [d.name, d] as const))('%s', (name, { dashboard: d }) => {
    it('imports anywhere: __inputs DS_PROMETHEUS, a `datasource` data source variable, no numeric id', () => {
      expect(d.__inputs).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]));
      expect(d.templating?.list).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' })]));
      expect(d.id ?? null).toBeNull();
    });

    it('has a stable uid: the file name, at most 40 characters', () => {
      expect(d.uid).toBe(name);
      expect(d.uid).toMatch(/^[a-z0-9][a-z0-9-]{0,39}$/);
      expect(d.title?.trim()).toBeTruthy();
    });

    it('is tagged avax-exporter (the tag the dashboards dropdown links by)', () => {
      expect(d.tags).toContain('avax-exporter');
    });

    it('links to the other dashboards and the runbook; every /d/ link resolves', () => {
      const links = d.links ?? [];
      expect(links.length).toBeGreaterThan(0);
      for (const l of links) {
        expect(l.title?.trim(), JSON.stringify(l)).toBeTruthy();
        if (l.type === 'dashboards')
          for (const tag of l.tags ?? [])
            expect(
              dashboards.some((x) => x.dashboard.tags?.includes(tag)),
              `link tag ${tag}`,
            ).toBe(true);
        const m = /^\/d\/([^/?#]+)/.exec(l.url ?? '');
        if (m) expect(uids, `link ${l.url}`).toContain(m[1]);
      }
      const linked = new Set(links.flatMap((l) => /^\/d\/([^/?#]+)/.exec(l.url ?? '')?.[1] ?? []));
      const byTag = links.some((l) => l.type === 'dashboards' && (l.tags ?? []).includes('avax-exporter'));
      for (const other of uids.filter((u) => u !== d.uid)) expect(byTag || linked.has(other as string), `no link to ${other}`).toBe(true);
      expect(links.some((l) => /docs\/runbook\.md/.test(l.url ?? ''))).toBe(true);
    });

    it('every panel has a title, a unit, a query and the ${datasource} data source; panel ids are unique', () => {
      const panels = allPanels(d).filter((p) => p.type !== 'row');
      expect(panels.length).toBeGreaterThan(0);
      const ids = panels.map((p) => p.id);
      expect(new Set(ids).size, 'duplicate panel ids').toBe(ids.length);
      for (const p of panels) {
        const label = `panel ${p.id} "${p.title ?? ''}"`;
        expect(p.title?.trim(), `panel ${p.id} has no title`).toBeTruthy();
        expect(p.fieldConfig?.defaults?.unit?.trim(), `${label} has no unit`).toBeTruthy();
        expect((p.targets ?? []).filter((t) => t.expr?.trim()).length, `${label} has no query`).toBeGreaterThan(0);
        expect(p.datasource, label).toEqual({ type: 'prometheus', uid: '${datasource}' });
        for (const t of p.targets ?? [])
          expect(t.datasource ?? p.datasource, `${label} target ${t.refId}`).toEqual({ type: 'prometheus', uid: '${datasource}' });
      }
      for (const v of (d.templating?.list ?? []).filter((x) => x.type === 'query'))
        expect(v.datasource, `variable ${v.name}`).toEqual({ type: 'prometheus', uid: '${datasource}' });
    });
  });
});
