import { createRequire } from 'node:module';

type YamlParse = (typeof import('yaml'))['parse'];

/** The YAML parser once loaded: a daemon given no configuration file and no web configuration file never holds it (about 1 MB). */
let yamlParse: YamlParse | undefined;

/**
 * Loads the YAML parser. The CLI awaits it before a configuration or web
 * configuration file is read: an `import()` is what the single executable's
 * bundle can resolve (it has no node_modules to require from).
 */
export async function loadYaml(): Promise<void> {
  yamlParse ??= (await import('yaml')).parse;
}

/** Parses YAML text with the parser {@link loadYaml} loaded, else with yaml required now (from node_modules: tests, the bench). */
export function parseYaml(text: string): unknown {
  yamlParse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
  return yamlParse(text);
}
