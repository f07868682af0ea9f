import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify } from 'yaml';

/**
 * The generated part of deploy/kubernetes/: the PrometheusRule made from
 * alerts/avax-exporter.rules.yml and the Grafana dashboard ConfigMaps made
 * from dashboards/*.json. `npm run gen:k8s` writes them; test/kubernetes.test.ts
 * fails when the committed files differ from what this renders.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The kustomization the generated files belong to. */
export const K8S_DIR = join(ROOT, 'deploy', 'kubernetes');
const RULES_FILE = join(ROOT, 'alerts', 'avax-exporter.rules.yml');
const DASHBOARDS_DIR = join(ROOT, 'dashboards');

/** The label Grafana's dashboard sidecar (k8s-sidecar, as the Grafana and kube-prometheus-stack charts run it) looks for. */
export const DASHBOARD_LABEL = { grafana_dashboard: '1' } as const;

const COMMON_LABELS = {
  'app.kubernetes.io/name': 'avax-exporter',
  'app.kubernetes.io/instance': 'avax-exporter',
  'app.kubernetes.io/component': 'monitoring',
};

function header(source: string): string {
  return [
    `# Generated from ${source} by \`npm run gen:k8s\`: edit that and rerun it, not this file.`,
    '# test/kubernetes.test.ts fails when this file differs from what the command writes.',
    '',
  ].join('\n');
}

/** YAML as kubectl reads it back: no line folding, so expressions and descriptions keep their text. */
function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** The PrometheusRule object holding the rule groups of the rules file, unchanged. */
export function renderPrometheusRule(rulesText: string): string {
  const rules = parseYaml(rulesText) as { groups: unknown[] };
  const object = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'avax-exporter', labels: COMMON_LABELS },
    spec: { groups: rules.groups },
  };
  return `${header(relative(ROOT, RULES_FILE))}${toYaml(object)}`;
}

/** One ConfigMap per dashboard, each labelled for Grafana's sidecar, the dashboard's JSON text unchanged. */
export function renderDashboardConfigMaps(dashboards: readonly { file: string; text: string }[]): string {
  const docs = dashboards.map(({ file, text }) =>
    toYaml({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `avax-exporter-dashboard-${file.replace(/\.json$/, '').replace(/^avax-/, '')}`,
        labels: { ...COMMON_LABELS, ...DASHBOARD_LABEL },
      },
      data: { [file]: text },
    }),
  );
  return `${header('dashboards/*.json')}${docs.join('---\n')}`;
}

/** Every generated file with the content the sources give it now. */
export function renderGeneratedK8sFiles(): { path: string; content: string }[] {
  const dashboards = readdirSync(DASHBOARDS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(DASHBOARDS_DIR, file), 'utf8') }));
  return [
    { path: join(K8S_DIR, 'prometheusrule.yaml'), content: renderPrometheusRule(readFileSync(RULES_FILE, 'utf8')) },
    { path: join(K8S_DIR, 'grafana-dashboards.yaml'), content: renderDashboardConfigMaps(dashboards) },
  ];
}
