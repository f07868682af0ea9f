import { readFileSync } from 'node:fs';
import { rawConfigSchema, type RawConfig } from './schema.js';
import { finalizeWeb, type WebConfig } from './web.js';
import { finalizePoll, type PollConfig } from './poll.js';
import { defaultNodeName, finalizeNodes, finalizeWatch, type NodeConfig, type WatchConfig } from './node.js';
import { finalizeDataApi, type DataApiConfig } from './data-api.js';
import { finalizeProbeConfig, type ProbeConfig } from './probe.js';
import { finalizeLog, type LogConfig } from './log.js';
import { resolveAddresses } from './addresses.js';
import { FLAGS, readArgv, readEnv, type GivenValue, type GivenValues } from './flags.js';
import { builtinMessage, issuesToProblems } from './problems.js';
import { parseYaml } from '../runtime/yaml.js';

export { DEFAULT_MAX_VALIDATORS, DEFAULT_PEERS_INTERVAL_MS, DEFAULT_PORT } from './defaults.js';
export { envNameOf } from './flags.js';
// The node types live in a leaf module so config/probe.ts can use them without importing this file back.
export type { NodeConfig, WatchConfig } from './node.js';
export type { DataApiConfig } from './data-api.js';

/** The validated configuration the daemon runs with: one part per section, each finalized by its own module. */
export interface Config {
  web: WebConfig;
  poll: PollConfig;
  /** The global watch list: each node's own starts from it, and probe-only targets use it. */
  watch: WatchConfig;
  nodes: NodeConfig[];
  dataApi: DataApiConfig;
  /** `/probe`: the allow-list beyond the configured nodes, and its limits. */
  probe: ProbeConfig;
  log: LogConfig;
  /** Start the built-in simulated node and poll it. */
  demo: boolean;
}

/** Result of reading the command line: the config, or a request to only check it. */
export interface LoadedConfig {
  config: Config;
  /** `--config.check`: validate, print, exit. */
  checkOnly: boolean;
  /** What is odd but not wrong (an AVAX_EXPORTER_* variable that is no setting), for the CLI to show. */
  warnings: string[];
}

/** Invalid configuration: every problem, each with its path. Exit status 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * True when `argv` or `env` names a configuration file (read as {@link loadConfig}
 * reads them, problems aside): the CLI then awaits loadYaml (runtime/yaml.ts) first.
 */
export function configFileGiven(argv: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return { ...readEnv(env, [], []), ...readArgv(argv, []) }['config.file'] !== undefined;
}

function readConfigFile(path: string, origin: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`${origin}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`${origin}: ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
  // An empty file is one being written or truncated by mistake, not "every default": taken as such, a
  // reload would drop every configured node and poll 127.0.0.1:9650 instead. A file of defaults says `{}`.
  if (parsed === null || parsed === undefined)
    throw new ConfigError([`config.file: ${path} is empty (write {} for a configuration of defaults and flags only)`]);
  return parsed;
}

/**
 * Overlays the values set by flags and variables (already merged: flags win)
 * onto the file's raw config, and records where each came from, by YAML path,
 * so that a problem with one names the flag or variable rather than a key the
 * operator never wrote.
 */
function overlay(file: Record<string, unknown>, given: GivenValues): { raw: Record<string, unknown>; origins: Map<string, string> } {
  const raw: Record<string, unknown> = structuredClone(file);
  const origins = new Map<string, string>();
  for (const [flag, g] of Object.entries(given) as [string, GivenValue][]) {
    const path = FLAGS.get(flag)?.yaml;
    if (path === undefined) continue;
    // A flag for a key of a list's entries (`nodes[].url`) gives the whole list, one entry per value.
    const entry = /^([a-z_]+)\[\]\.([a-z_]+)$/.exec(path);
    if (entry) {
      const [, list, key] = entry as unknown as [string, string, string];
      origins.set(list, g.origin);
      raw[list] = (g.value as unknown[]).map((v) => ({ [key]: v }));
      continue;
    }
    origins.set(path, g.origin);
    const [sec, key] = path.split('.') as [string, string | undefined];
    if (key === undefined) {
      raw[sec] = g.value;
      continue;
    }
    const cur = raw[sec];
    if (cur === undefined || cur === null) raw[sec] = { [key]: g.value };
    // A section that is not a mapping is left as it is, for the schema to report with its path.
    else if (typeof cur === 'object' && !Array.isArray(cur)) (cur as Record<string, unknown>)[key] = g.value;
  }
  return { raw, origins };
}

/** A problem line (`<YAML path>: …`) with its path replaced by the flag or variable that set the value, when one did. */
function relabel(problem: string, origins: ReadonlyMap<string, string>): string {
  let best: string | undefined;
  for (const path of origins.keys()) {
    const next = problem[path.length];
    if (problem.startsWith(path) && (next === ':' || next === '.' || next === '[') && (best === undefined || path.length > best.length)) best = path;
  }
  if (best === undefined) return problem;
  const rest = problem.slice(best.length);
  // The rest of the path (`[1]` of a repeated flag, `.url` of --node.url) is the flag's own business: the value names it.
  return `${origins.get(best) as string}${rest.slice(rest.indexOf(':'))}`;
}

/** Applies defaults and cross-field rules to a validated raw config, section by section; `env` gives the Data API key. */
export function finalizeConfig(raw: RawConfig, env: NodeJS.ProcessEnv = {}, nameOf: (path: string) => string = (p) => p): Config {
  const problems: string[] = [];
  const web = finalizeWeb(raw.web);
  const poll = finalizePoll(raw.poll, nameOf, problems);
  const demo = raw.demo ?? false;
  const watch = finalizeWatch(undefined, raw.watch);
  const nodes = finalizeNodes(raw.nodes, raw.watch, demo, problems);
  const dataApi = finalizeDataApi(
    raw.data_api,
    { polling: nodes.length > 0 || demo, pollTimeoutMs: poll.timeoutMs, pollMaxAgeMs: poll.maxAgeMs, env },
    problems,
  );
  // Probe-only targets watch what the global list says, validation ids aside (as before the table: they are looked up by the configured nodes).
  const { validationIds: _looked, ...probeWatch } = watch;
  const probe = finalizeProbeConfig(raw.probe, { nodes, watch: probeWatch, pollIntervalMs: poll.intervalMs, nameOf: defaultNodeName }, problems);
  // Each address goes to whoever asks about it: its node (EVM) or the Data API (P-Chain). Set only
  // when there is one, so a configuration without addresses stays as it was (and reloads compare equal).
  const addresses = resolveAddresses(
    raw.addresses,
    nodes.map((n) => n.name),
    dataApi,
    problems,
  );
  for (const n of nodes) {
    const mine = addresses.byNode.get(n.name);
    if (mine) n.addresses = mine;
  }
  if (addresses.pChain.length > 0) dataApi.addresses = addresses.pChain;
  if (problems.length) throw new ConfigError(problems);
  return { web, poll, watch, nodes, dataApi, probe, log: finalizeLog(raw.log), demo };
}

/** Validates a raw (file-shaped) config object and applies defaults; `env` gives the Data API key. */
export function buildConfig(raw: unknown, env: NodeJS.ProcessEnv = {}, nameOf?: (path: string) => string): Config {
  const parsed = rawConfigSchema.safeParse(raw, { error: builtinMessage });
  if (!parsed.success) throw new ConfigError(issuesToProblems(parsed.error, raw, rawConfigSchema));
  return finalizeConfig(parsed.data, env, nameOf);
}

/**
 * Reads flags, environment and the optional YAML file into a validated config.
 * Throws {@link ConfigError} listing every problem, each naming the flag,
 * variable or YAML path its value came from.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const fromFlags = readArgv(argv, problems);
  const fromEnv = readEnv(env, problems, warnings);
  const given: GivenValues = { ...fromEnv, ...fromFlags };
  const file = given['config.file'];
  let fileRaw: unknown = {};
  if (file !== undefined) {
    if (typeof file.value !== 'string' || file.value === '') throw new ConfigError([`${file.origin}: needs the path of a YAML file`]);
    fileRaw = readConfigFile(file.value, file.origin);
  }
  if (fileRaw === null || typeof fileRaw !== 'object' || Array.isArray(fileRaw)) {
    throw new ConfigError([
      `${file?.origin ?? 'config.file'}: the top level of ${String(file?.value)} must be a mapping (key: value lines), not ${Array.isArray(fileRaw) ? 'a list' : 'a single value'}`,
    ]);
  }
  const { raw, origins } = overlay(fileRaw as Record<string, unknown>, given);
  const check = given['config.check'];
  if (check !== undefined && typeof check.value !== 'boolean') throw new ConfigError([`${check.origin}: ${JSON.stringify(check.value)} must be true or false`]);
  let config: Config;
  try {
    config = buildConfig(raw, env, (p) => origins.get(p) ?? p);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError([...problems, ...err.problems.map((p) => relabel(p, origins))]);
    throw err;
  }
  // Flags or variables that are no settings, reported with the rest (the values they would have set are not needed to find those).
  if (problems.length) throw new ConfigError(problems);
  return { config, checkOnly: check?.value === true, warnings };
}

/** The config with every secret replaced, for `--config.check` and the status page. */
export function redactConfig(config: Config): Config {
  return {
    ...config,
    dataApi: { ...config.dataApi, url: config.dataApi.url && redactUrl(config.dataApi.url), key: config.dataApi.key && '<secret>' },
    probe: { ...config.probe, targets: config.probe.targets.map((t) => ({ ...t, url: redactUrl(t.url) })) },
    nodes: config.nodes.map((n) => ({
      ...n,
      url: redactUrl(n.url),
      headers: Object.fromEntries(Object.entries(n.headers).map(([k, v]) => [k, n.secretHeaders.includes(k.toLowerCase()) ? '<secret>' : v])),
    })),
  };
}

/** A URL without its password (user:password@ → user:***@), or without its user name when that is alone (a token: TOKEN@ → ***@). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    else if (u.username) u.username = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
