import { createRequire } from 'node:module';

/** The package version, set by the single executable's bundler (test/tools/build-binary.ts), which has no package.json beside it to read. */
declare const __AVAX_EXPORTER_VERSION__: string | undefined;

const version =
  typeof __AVAX_EXPORTER_VERSION__ === 'string'
    ? __AVAX_EXPORTER_VERSION__
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Build identity exported as avax_exporter_build_info. */
export const BUILD = {
  version,
  revision: process.env['AVAX_EXPORTER_REVISION'] ?? 'unknown',
  nodejs: process.version,
};
