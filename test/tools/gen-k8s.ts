import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { renderGeneratedK8sFiles } from './k8s-manifests.js';

// Regenerates deploy/kubernetes/prometheusrule.yaml and grafana-dashboards.yaml from
// alerts/avax-exporter.rules.yml and dashboards/*.json (npm run gen:k8s).
for (const { path, content } of renderGeneratedK8sFiles()) {
  writeFileSync(path, content);
  process.stdout.write(`wrote ${relative(process.cwd(), path)}\n`);
}
