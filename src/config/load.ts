import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { rawConfigSchema, parseListenAddress } from './schema.js';
import { formatDuration } from './duration.js';
import { DEFAULT_DATA_API_KEY_HEADER, DEFAULT_DATA_API_RATE_LIMIT, type DataApiNetwork } from './data-api.js';
import { finalizeProbeConfig, type ProbeConfig } from './probe.js';
import { resolveAddresses, type WatchedAddress } from './addresses.js';
import type { NodeConfig } from './node.js';
import {
  DATA_API_KEY_ENV,
  DEFAULT_DATA_API_INTERVAL_MS,
  DEFAULT_DATA_API_MAX_PAGES,
  DEFAULT_MAX_VALIDATORS,
  DEFAULT_NODE_URL,
  DEFAULT_PEERS_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  DEFAULT_PORT,
  FLAGS,
  readArgv,
  readEnv,
  type FlagDef,
  type FlagName,
  type GivenValue,
  type GivenValues,
} from './flags.js';
import { builtinMessage, issuesToProblems } from './problems.js';

export { DEFAULT_MAX_VALIDATORS, DEFAULT_PEERS_INTERVAL_MS, DEFAULT_PORT, envNameOf } from './flags.js';
// The node types live in a leaf module so config/probe.ts can use them without importing this file back.
export type { NodeConfig, WatchConfig } from './node.js';

/** The Avalanche Data API source. */
export interface DataApiConfig {
  enabled: boolean;
  /** Base URL without a trailing slash; undefined means the public Data API (or, with --demo, the built-in fake one). */
  url: string | undefined;
  /** Network to ask about; undefined means the network of the polled nodes (1 mainnet, 5 fuji). */
  network: DataApiNetwork | undefined;
  /** The API key (a secret: never logged, printed or exported). */
  key: string | undefined;
  /** The file the key was read from; undefined when it came from AVAX_EXPORTER_DATA_API_KEY (or there is none). */
  keyFile: string | undefined;
  /** Header that carries the key. */
  keyHeader: string;
  /** Client-side limit, requests per minute. */
  rateLimitPerMinute: number;
  intervalMs: number;
  /** Deadline of one round: the poll timeout, at most the interval. */
  timeoutMs: number;
  /** Age after which its series are dropped: the poll max age, at least three of its intervals. */
  maxAgeMs: number;
  /** Most pages one listing fetches. */
  maxPages: number;
  /** P-Chain addresses whose balance is asked for (`addresses` on chain P); absent when none. */
  addresses?: WatchedAddress[];
}

/** The validated configuration the daemon runs with. */
export interface Config {
  web: {
    listenAddress: string;
    host: string | undefined;
    port: number;
    telemetryPath: string;
    /** `--web.config.file`: TLS, basic auth and headers in the exporter-toolkit format. */
    configFile: string | undefined;
    /** `--web.enable-lifecycle`: answer POST /-/reload. */
    enableLifecycle: boolean;
  };
  poll: {
    intervalMs: number;
    timeoutMs: number;
    maxAgeMs: number;
    /**
     * Least time between two info.peers calls to a node (0: every round). The
     * heaviest answer a node gives (about 0.3 KB per peer: 0.6 MB on mainnet)
     * for figures that move over minutes; between calls its last value stands.
     */
    peersIntervalMs: number;
  };
  nodes: NodeConfig[];
  dataApi: DataApiConfig;
  /** `/probe`: the allow-list beyond the configured nodes, and its limits. */
  probe: ProbeConfig;
  log: { level: string; format: 'json' | 'pretty' };
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
  for (const [flag, g] of Object.entries(given) as [FlagName, GivenValue][]) {
    const path: string | undefined = (FLAGS[flag] as FlagDef).yaml;
    if (path === undefined) continue;
    origins.set(path, g.origin);
    if (flag === 'node.url') {
      raw['nodes'] = (g.value as string[]).map((url) => ({ url }));
      continue;
    }
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

/** The default `node` label of a URL: host:port. */
export function defaultNodeName(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${port}`.replace(/^\[\[(.*)\]\]/, '[$1]');
}

/** Reads the Data API key from the environment or the key file; problems never quote the key. */
function readDataApiKey(keyFile: string | undefined, env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const fromEnv = env[DATA_API_KEY_ENV]?.trim() || undefined;
  let fromFile: string | undefined;
  if (keyFile !== undefined) {
    try {
      fromFile = readFileSync(keyFile, 'utf8').trim();
      if (fromFile === '') problems.push(`data_api.key_file: ${keyFile} is empty (it should hold the Data API key)`);
    } catch (err) {
      problems.push(`data_api.key_file: cannot read ${keyFile}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  if (fromEnv !== undefined && keyFile !== undefined) {
    problems.push(`data_api.key_file: the API key is also set in ${DATA_API_KEY_ENV}; give it in one place only`);
    return undefined;
  }
  const key = fromEnv ?? (fromFile || undefined);
  // A newline or a space would let the key break the request; say so without echoing it.
  if (key !== undefined && !/^[\x21-\x7e]+$/.test(key)) {
    const where = fromEnv !== undefined ? DATA_API_KEY_ENV : `data_api.key_file: the key in ${keyFile as string}`;
    problems.push(`${where}${fromEnv !== undefined ? ': the API key' : ''} must be printable ASCII without spaces (its value is not shown)`);
    return undefined;
  }
  return key;
}

/** Applies defaults and cross-field rules to a validated raw config; `env` gives the Data API key. */
export function finalizeConfig(raw: z.output<typeof rawConfigSchema>, env: NodeJS.ProcessEnv = {}, nameOf: (path: string) => string = (p) => p): Config {
  const problems: string[] = [];
  const listenAddress = raw.web?.listen_address ?? `:${DEFAULT_PORT}`;
  const listen = parseListenAddress(listenAddress) as { host: string | undefined; port: number };
  const intervalMs = raw.poll?.interval ?? DEFAULT_POLL_INTERVAL_MS;
  const timeoutMs = raw.poll?.timeout ?? Math.min(DEFAULT_POLL_TIMEOUT_MS, intervalMs);
  const maxAgeMs = raw.poll?.max_age ?? 3 * intervalMs;
  const peersIntervalMs = raw.poll?.peers_interval ?? DEFAULT_PEERS_INTERVAL_MS;
  if (timeoutMs > intervalMs)
    problems.push(
      `poll.timeout: ${formatDuration(timeoutMs)} must not exceed ${nameOf('poll.interval')} (${formatDuration(intervalMs)}): a round must end before the next begins`,
    );
  if (maxAgeMs < intervalMs)
    problems.push(
      `poll.max_age: ${formatDuration(maxAgeMs)} must be at least ${nameOf('poll.interval')} (${formatDuration(intervalMs)}), or every series would expire between two polls`,
    );
  const demo = raw.demo ?? false;
  const globalWatch = raw.watch ?? {};
  const rawNodes = raw.nodes ?? (demo ? [] : [{ url: DEFAULT_NODE_URL }]);
  const names = new Map<string, number>();
  const nodes: NodeConfig[] = rawNodes.map((n, i) => {
    const name = n.name ?? defaultNodeName(n.url);
    const prev = names.get(name);
    if (prev !== undefined)
      problems.push(
        `nodes[${i}].name: duplicate node name "${name}" (also nodes[${prev}])${n.name === undefined ? '; two URLs of one host and port: give each node a name in the file' : '; set a distinct name'}`,
      );
    names.set(name, i);
    const w = n.watch ?? {};
    return {
      name,
      url: n.url.replace(/\/+$/, ''),
      headers: n.headers ?? {},
      secretHeaders: [...new Set(['authorization', 'proxy-authorization', 'cookie', ...(n.secret_headers ?? []).map((h) => h.toLowerCase())])],
      watch: {
        nodeIds: w.node_ids ?? globalWatch.node_ids ?? [],
        allValidators: w.all_validators ?? globalWatch.all_validators ?? false,
        subnetIds: w.subnet_ids ?? globalWatch.subnet_ids ?? [],
        maxValidators: w.max_validators ?? globalWatch.max_validators ?? DEFAULT_MAX_VALIDATORS,
        // Only when there are some, so configurations without them stay as they were (and reloads compare equal).
        ...((w.validation_ids ?? globalWatch.validation_ids ?? []).length > 0
          ? { validationIds: [...new Set(w.validation_ids ?? globalWatch.validation_ids)] }
          : {}),
      },
    };
  });
  const d = raw.data_api ?? {};
  const dataApiIntervalMs = d.interval ?? DEFAULT_DATA_API_INTERVAL_MS;
  const dataApi: DataApiConfig = {
    // There is something to watch whenever a node is polled: at least its own id and the chains' heads.
    enabled: d.enabled ?? (nodes.length > 0 || demo),
    url: d.url?.replace(/\/+$/, ''),
    network: d.network,
    key: readDataApiKey(d.key_file, env, problems),
    keyFile: d.key_file,
    keyHeader: (d.key_header ?? DEFAULT_DATA_API_KEY_HEADER).toLowerCase(),
    rateLimitPerMinute: d.rate_limit ?? DEFAULT_DATA_API_RATE_LIMIT,
    intervalMs: dataApiIntervalMs,
    timeoutMs: Math.min(timeoutMs, dataApiIntervalMs),
    maxAgeMs: Math.max(maxAgeMs, 3 * dataApiIntervalMs),
    maxPages: d.max_pages ?? DEFAULT_DATA_API_MAX_PAGES,
  };
  const probe = finalizeProbeConfig(
    raw.probe,
    {
      nodes,
      watch: {
        nodeIds: globalWatch.node_ids ?? [],
        allValidators: globalWatch.all_validators ?? false,
        subnetIds: globalWatch.subnet_ids ?? [],
        maxValidators: globalWatch.max_validators ?? DEFAULT_MAX_VALIDATORS,
      },
      pollIntervalMs: intervalMs,
      nameOf: defaultNodeName,
    },
    problems,
  );
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
  return {
    web: {
      listenAddress,
      host: listen.host,
      port: listen.port,
      telemetryPath: raw.web?.telemetry_path ?? '/metrics',
      configFile: raw.web?.config_file,
      enableLifecycle: raw.web?.enable_lifecycle ?? false,
    },
    poll: { intervalMs, timeoutMs, maxAgeMs, peersIntervalMs },
    nodes,
    dataApi,
    probe,
    log: { level: raw.log?.level ?? 'info', format: raw.log?.format ?? 'json' },
    demo,
  };
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
