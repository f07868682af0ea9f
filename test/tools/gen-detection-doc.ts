import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/promql-contract.js';
import { DETECTION_DOC_PATH, renderDetectionDoc } from './detection-doc.js';

// Regenerates docs/detection.md from the detection matrix's rows and the shipped rules
// (npm run docs:detection).
writeFileSync(join(ROOT, DETECTION_DOC_PATH), renderDetectionDoc());
process.stdout.write(`wrote ${DETECTION_DOC_PATH}\n`);
