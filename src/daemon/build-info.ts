import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

/** Build identity exported as avax_exporter_build_info. */
export const BUILD = {
  version: pkg.version,
  revision: process.env['AVAX_EXPORTER_REVISION'] ?? 'unknown',
  nodejs: process.version,
};
