import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_DOC_PATH, renderConfigDoc } from './config-doc.js';

// Regenerates the reference tables of docs/configuration.md from the table of settings (npm run docs:config).
writeFileSync(CONFIG_DOC_PATH, renderConfigDoc(readFileSync(CONFIG_DOC_PATH, 'utf8')));
process.stdout.write(`wrote ${CONFIG_DOC_PATH}\n`);
