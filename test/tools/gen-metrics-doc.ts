import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { METRICS_DOC_PATH, renderMetricsDoc } from './metrics-doc.js';

// Regenerates docs/metrics.md from the metric definitions (npm run docs:metrics).
mkdirSync(dirname(METRICS_DOC_PATH), { recursive: true });
writeFileSync(METRICS_DOC_PATH, renderMetricsDoc());
process.stdout.write(`wrote ${METRICS_DOC_PATH}\n`);
