import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { rawConfigSchema, parseListenAddress } from './schema.js';
import { formatDuration } from './duration.js';
import { DEFAULT_DATA_API_KEY_HEADER, DEFAULT_DATA_API_RATE_LIMIT, type DataApiNetwork } from '../data-api/client.js';
import { DEFAULT_PROBE_MAX_TARGETS, finalizeProbeConfig, type ProbeConfig } from '../probe/config.js';
import { resolveAddresses, type WatchedAddress } from './addresses.js';

/** Default port: 9785, in the exporter range 9100-9999 (not 9090, 9650 or 9651). */
export const DEFAULT_PORT = 9785;
/** Default cap on validators exported per node and subnet: above mainnet's primary set, below what would hurt a Prometheus. */
export const DEFAULT_MAX_VALIDATORS = 5_000;

/** Default AvalancheGo API address. */
export const DEFAULT_NODE_URL = 'http://127.0.0.1:9650';

/** What to watch on one node. */
export interface WatchConfig {
  /** Validators to watch; empty means "this node's own id". */
  nodeIds: string[];
  /** Export every current primary-network validator. */
  allValidators: boolean;
  /** Subnets / L1s whose validators and chains to watch. */
  subnetIds: string[];
  /** Most validators exported per subnet; the rest are left out with a warning (a series cap). */
  maxValidators: number;
  /**
   * L1 validations to look up one by one (platform.getL1Validator), whether or
   * not their L1 is watched; absent when none.
   */
  validationIds?: string[];
}

/** One polled node. */
export interface NodeConfig {
  /** The `node` label value. */
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Lower-cased names of headers whose values must never be shown. */
  secretHeaders: string[];
  watch: WatchConfig;
  /** C-Chain and L1 addresses whose balance this node is asked for (`addresses` with this node as `rpc_node`); absent when none. */
  addresses?: WatchedAddress[];
}

/** The environment variable the Data API key is read from (there is deliberately no flag: flags show up in `ps`). */
export const DATA_API_KEY_ENV = 'AVAX_EXPORTER_DATA_API_KEY';
/** Default poll interval of the Data API: it is an indexer, slower-moving than a node, and shared. */
export const DEFAULT_DATA_API_INTERVAL_MS = 60_000;
/** Default bound on the pages one Data API listing may fetch. */
export const DEFAULT_DATA_API_MAX_PAGES = 10;

/** The Avalanche Data API source. */
export interface DataApiConfig {
  enabled: boolean;
  /** Base URL without a trailing slash; undefined means the public Data API (or, with --demo, the built-in fake one). */
  url: string | undefined;
  /** Network to ask about; undefined means the network of the polled nodes (1 mainnet, 5 fuji). */
  network: DataApiNetwork | undefined;
  /** The API key (a secret: never logged, printed or exported). */
  key: string | undefined;
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
}

/** Invalid configuration: every problem, each with its path. Exit status 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Default least time between two info.peers calls to a node. */
export const DEFAULT_PEERS_INTERVAL_MS = 60_000;

/** Flags in the Prometheus exporter style; each also reads AVAX_EXPORTER_<NAME>. */
const FLAGS = {
  'web.listen-address': { type: 'string', describe: `Address to listen on (default :${DEFAULT_PORT})` },
  'web.telemetry-path': { type: 'string', describe: 'Path of the metrics endpoint (default /metrics)' },
  'web.config.file': { type: 'string', describe: 'Web config (TLS, basic auth, headers) in the Prometheus exporter-toolkit format' },
  'web.enable-lifecycle': { type: 'boolean', describe: 'Reload the configuration on POST /-/reload' },
  'node.url': { type: 'string', array: true, describe: `AvalancheGo API URL, repeatable (default ${DEFAULT_NODE_URL})` },
  'poll.interval': { type: 'string', describe: 'Time between two polls of a node (default 15s)' },
  'poll.timeout': { type: 'string', describe: 'Deadline of one poll, retries included (default 10s)' },
  'poll.max-age': { type: 'string', describe: "Age after which a failed source's series are dropped (default 3 poll intervals)" },
  'poll.peers-interval': {
    type: 'string',
    describe: `Least time between two info.peers calls to a node, 0s for every round (default ${DEFAULT_PEERS_INTERVAL_MS / 1000}s)`,
  },
  'watch.node-id': { type: 'string', array: true, describe: "Validator node id to watch, repeatable (default: each node's own id)" },
  'watch.all-validators': { type: 'boolean', describe: 'Export every current primary-network validator' },
  'watch.subnet-id': { type: 'string', array: true, describe: 'Subnet / L1 id whose validators and chains to watch, repeatable' },
  'watch.validation-id': { type: 'string', array: true, describe: 'L1 validation id to look up with platform.getL1Validator (balance, runway), repeatable' },
  'watch.max-validators': { type: 'number', describe: `Most validators exported per node and subnet (default ${DEFAULT_MAX_VALIDATORS})` },
  'data-api.enabled': { type: 'boolean', describe: 'Poll the Avalanche Data API (default on; --data-api.enabled=false turns it off)' },
  'data-api.url': { type: 'string', describe: 'Data API base URL (default https://data-api.avax.network)' },
  'data-api.network': { type: 'string', describe: "mainnet, fuji or testnet (default: the polled nodes' network)" },
  'data-api.key-file': { type: 'string', describe: `File holding the Data API key (or set ${DATA_API_KEY_ENV})` },
  'data-api.key-header': { type: 'string', describe: `Header that carries the key (default ${DEFAULT_DATA_API_KEY_HEADER})` },
  'data-api.rate-limit': { type: 'string', describe: `Data API requests per minute at most (default ${DEFAULT_DATA_API_RATE_LIMIT})` },
  'data-api.interval': { type: 'string', describe: 'Time between two Data API rounds (default 60s)' },
  'data-api.max-pages': { type: 'string', describe: `Most pages one Data API listing fetches (default ${DEFAULT_DATA_API_MAX_PAGES})` },
  'probe.target': { type: 'string', array: true, describe: 'URL that /probe?target= may poll besides the configured nodes, repeatable' },
  'probe.max-targets': { type: 'string', describe: `Most probe-only URLs polled at once (default ${DEFAULT_PROBE_MAX_TARGETS})` },
  'probe.idle-timeout': { type: 'string', describe: 'Time after which a probe-only URL not probed is dropped (default 5m)' },
  'log.level': { type: 'string', describe: 'trace, debug, info, warn, error (default info)' },
  'log.format': { type: 'string', describe: 'json or pretty (default json)' },
  'config.file': { type: 'string', describe: 'YAML configuration file' },
  'config.check': { type: 'boolean', describe: 'Validate the configuration, print it and exit' },
  demo: { type: 'boolean', describe: 'Start a built-in simulated node and poll it' },
} as const;

type FlagName = keyof typeof FLAGS;

/** The environment variable of a flag: AVAX_EXPORTER_WEB_LISTEN_ADDRESS for --web.listen-address. */
export function envNameOf(flag: string): string {
  return `AVAX_EXPORTER_${flag.toUpperCase().replace(/[.-]/g, '_')}`;
}

function readEnv(env: NodeJS.ProcessEnv): Partial<Record<FlagName, unknown>> {
  const out: Partial<Record<FlagName, unknown>> = {};
  for (const [flag, def] of Object.entries(FLAGS) as [FlagName, (typeof FLAGS)[FlagName]][]) {
    const raw = env[envNameOf(flag)];
    if (raw === undefined || raw === '') continue;
    if ('array' in def && def.array)
      out[flag] = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (def.type === 'boolean') out[flag] = /^(1|true|yes|on)$/i.test(raw.trim());
    else if (def.type === 'number') out[flag] = Number(raw.trim());
    else out[flag] = raw;
  }
  return out;
}

function parseFlags(argv: string[]): Partial<Record<FlagName, unknown>> {
  const problems: string[] = [];
  let parser = yargs(argv)
    .scriptName('avax-exporter')
    .usage('$0 [flags]\n\nPrometheus exporter for Avalanche nodes and validators.')
    .parserConfiguration({ 'dot-notation': false, 'camel-case-expansion': false, 'boolean-negation': false })
    .strict()
    .exitProcess(false)
    .help()
    // Our own --version (cli.ts answers it before any parsing): the package version and the build's revision.
    .version(false)
    .option('version', { type: 'boolean', describe: 'Print the version (and the build revision when known) and exit' })
    .fail((msg, err) => {
      problems.push(msg ?? err?.message ?? 'invalid flags');
    });
  for (const [flag, def] of Object.entries(FLAGS)) parser = parser.option(flag, { ...def });
  const parsed = parser.parseSync() as Record<string, unknown>;
  if (problems.length) throw new ConfigError(problems);
  const out: Partial<Record<FlagName, unknown>> = {};
  for (const flag of Object.keys(FLAGS) as FlagName[]) if (parsed[flag] !== undefined) out[flag] = parsed[flag];
  if (parsed['help']) out['config.check'] = undefined;
  return out;
}

/** True when argv asks for --help (yargs has printed it already). */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`config.file: cannot read ${path}: ${(err as Error).message}`]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`config.file: ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
  // An empty file is one being written or truncated by mistake, not "every default": taken as such, a
  // reload would drop every configured node and poll 127.0.0.1:9650 instead. A file of defaults says `{}`.
  if (parsed === null || parsed === undefined)
    throw new ConfigError([`config.file: ${path} is empty (write {} for a configuration of defaults and flags only)`]);
  return parsed;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(root)';
}

function issuesToProblems(err: z.ZodError): string[] {
  return err.issues.map((i) => {
    const msg = i.code === 'unrecognized_keys' ? `unknown key(s): ${i.keys.join(', ')}` : i.message;
    return `${formatPath(i.path)}: ${msg}`;
  });
}

/** Overlays set flag/env values onto the file's raw config (flags win over env, env over the file). */
function overlay(file: Record<string, unknown>, values: Partial<Record<FlagName, unknown>>): Record<string, unknown> {
  const raw: Record<string, unknown> = structuredClone(file);
  const section = (name: string): Record<string, unknown> => {
    const cur = raw[name];
    if (cur === undefined || cur === null) {
      const fresh: Record<string, unknown> = {};
      raw[name] = fresh;
      return fresh;
    }
    // A non-object section is left as is for zod to report with its path.
    return typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>) : {};
  };
  const set = (sec: string, key: string, v: unknown) => {
    if (v !== undefined) section(sec)[key] = v;
  };
  set('web', 'listen_address', values['web.listen-address']);
  set('web', 'telemetry_path', values['web.telemetry-path']);
  set('web', 'config_file', values['web.config.file']);
  set('web', 'enable_lifecycle', values['web.enable-lifecycle']);
  set('poll', 'interval', values['poll.interval']);
  set('poll', 'timeout', values['poll.timeout']);
  set('poll', 'max_age', values['poll.max-age']);
  set('poll', 'peers_interval', values['poll.peers-interval']);
  set('watch', 'node_ids', values['watch.node-id']);
  set('watch', 'all_validators', values['watch.all-validators']);
  set('watch', 'subnet_ids', values['watch.subnet-id']);
  set('watch', 'validation_ids', values['watch.validation-id']);
  set('watch', 'max_validators', values['watch.max-validators']);
  set('data_api', 'enabled', values['data-api.enabled']);
  set('data_api', 'url', values['data-api.url']);
  set('data_api', 'network', values['data-api.network']);
  set('data_api', 'key_file', values['data-api.key-file']);
  set('data_api', 'key_header', values['data-api.key-header']);
  set('data_api', 'rate_limit', values['data-api.rate-limit']);
  set('data_api', 'interval', values['data-api.interval']);
  set('data_api', 'max_pages', values['data-api.max-pages']);
  set('probe', 'targets', values['probe.target']);
  set('probe', 'max_targets', values['probe.max-targets']);
  set('probe', 'idle_timeout', values['probe.idle-timeout']);
  set('log', 'level', values['log.level']);
  set('log', 'format', values['log.format']);
  if (values.demo !== undefined) raw['demo'] = values.demo;
  const urls = values['node.url'];
  if (Array.isArray(urls)) raw['nodes'] = (urls as unknown[]).map((url) => ({ url }));
  for (const k of ['web', 'poll', 'watch', 'log', 'data_api']) {
    const v = raw[k];
    if (v && typeof v === 'object' && Object.keys(v).length === 0) delete raw[k];
  }
  return raw;
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
      if (fromFile === '') problems.push(`data_api.key_file: ${keyFile} is empty`);
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
    problems.push(`data_api: the API key must be printable ASCII without spaces (its value is not shown)`);
    return undefined;
  }
  return key;
}

/** Applies defaults and cross-field rules to a validated raw config; `env` gives the Data API key. */
export function finalizeConfig(raw: z.output<typeof rawConfigSchema>, env: NodeJS.ProcessEnv = {}): Config {
  const problems: string[] = [];
  const listenAddress = raw.web?.listen_address ?? `:${DEFAULT_PORT}`;
  const listen = parseListenAddress(listenAddress) as { host: string | undefined; port: number };
  const intervalMs = raw.poll?.interval ?? 15_000;
  const timeoutMs = raw.poll?.timeout ?? Math.min(10_000, intervalMs);
  const maxAgeMs = raw.poll?.max_age ?? 3 * intervalMs;
  const peersIntervalMs = raw.poll?.peers_interval ?? DEFAULT_PEERS_INTERVAL_MS;
  if (timeoutMs > intervalMs) problems.push(`poll.timeout: must not exceed poll.interval (${formatDuration(timeoutMs)} > ${formatDuration(intervalMs)})`);
  if (maxAgeMs < intervalMs) problems.push(`poll.max_age: must be at least poll.interval (${formatDuration(maxAgeMs)} < ${formatDuration(intervalMs)})`);
  const demo = raw.demo ?? false;
  const globalWatch = raw.watch ?? {};
  const rawNodes = raw.nodes ?? (demo ? [] : [{ url: DEFAULT_NODE_URL }]);
  const names = new Map<string, number>();
  const nodes: NodeConfig[] = rawNodes.map((n, i) => {
    const name = n.name ?? defaultNodeName(n.url);
    const prev = names.get(name);
    if (prev !== undefined) problems.push(`nodes[${i}].name: duplicate node name "${name}" (also nodes[${prev}]); set a distinct name`);
    names.set(name, i);
    const w = n.watch ?? {};
    return {
      name,
      url: n.url.replace(/\/+$/, ''),
      headers: n.headers ?? {},
      secretHeaders: ['authorization', 'proxy-authorization', 'cookie', ...(n.secret_headers ?? []).map((h) => h.toLowerCase())],
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
export function buildConfig(raw: unknown, env: NodeJS.ProcessEnv = {}): Config {
  const parsed = rawConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(issuesToProblems(parsed.error));
  return finalizeConfig(parsed.data, env);
}

/**
 * Reads flags, environment and the optional YAML file into a validated config.
 * Throws {@link ConfigError} listing every problem.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const flags = parseFlags(argv);
  const fromEnv = readEnv(env);
  const merged: Partial<Record<FlagName, unknown>> = { ...fromEnv, ...flags };
  const file = merged['config.file'];
  const fileRaw = typeof file === 'string' ? readConfigFile(file) : {};
  if (fileRaw === null || typeof fileRaw !== 'object' || Array.isArray(fileRaw)) {
    throw new ConfigError(['config.file: the top level must be a mapping']);
  }
  const raw = overlay(fileRaw as Record<string, unknown>, merged);
  return { config: buildConfig(raw, env), checkOnly: merged['config.check'] === true };
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
