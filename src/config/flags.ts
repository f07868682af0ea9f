import yargs from 'yargs';
import { DEFAULT_DATA_API_KEY_HEADER, DEFAULT_DATA_API_RATE_LIMIT, DEFAULT_DATA_API_URL } from './data-api.js';
import { DEFAULT_PROBE_IDLE_TIMEOUT_MS, DEFAULT_PROBE_MAX_TARGETS } from './probe.js';
import { formatDuration } from './duration.js';
import { suggest } from './suggest.js';

/**
 * The command-line flags and their environment variables: one declaration per
 * setting (its flag, the YAML path it sets, its type, its default as
 * documented, its help text), from which the argv and environment readers,
 * the overlay onto the YAML file, the origin named in an error and `--help`
 * are all derived. docs/configuration.md shows the same types and defaults
 * (test/config-messages.test.ts compares them with `--help`).
 */

/** Default port: 9785, in the exporter range 9100-9999 (not 9090, 9650 or 9651). */
export const DEFAULT_PORT = 9785;
/** Default cap on validators exported per node and subnet: above mainnet's primary set, below what would hurt a Prometheus. */
export const DEFAULT_MAX_VALIDATORS = 5_000;
/** Default AvalancheGo API address. */
export const DEFAULT_NODE_URL = 'http://127.0.0.1:9650';
/** The environment variable the Data API key is read from (there is deliberately no flag: flags show up in `ps`). */
export const DATA_API_KEY_ENV = 'AVAX_EXPORTER_DATA_API_KEY';
/** Default poll interval of a node. */
export const DEFAULT_POLL_INTERVAL_MS = 15_000;
/** Default deadline of one round (at most the interval). */
export const DEFAULT_POLL_TIMEOUT_MS = 10_000;
/** Default least time between two info.peers calls to a node. */
export const DEFAULT_PEERS_INTERVAL_MS = 60_000;
/** Default poll interval of the Data API: it is an indexer, slower-moving than a node, and shared. */
export const DEFAULT_DATA_API_INTERVAL_MS = 60_000;
/** Default bound on the pages one Data API listing may fetch. */
export const DEFAULT_DATA_API_MAX_PAGES = 10;

/** How a setting's value is written on the command line. */
type Kind = 'string' | 'number' | 'boolean' | 'duration';

/** One flag: what it sets and how `--help` shows it. */
export interface FlagDef {
  /** The YAML path it sets (`data_api.rate_limit`); absent for flags that only steer the command (`config.file`, `config.check`). */
  yaml?: string;
  kind: Kind;
  /** Repeatable on the command line, comma-separated in its variable. */
  array?: true;
  /** The default as docs/configuration.md writes it; absent when there is none to show. */
  default?: string;
  describe: string;
}

const d = formatDuration;

/** Every flag, in `--help` order; each also reads AVAX_EXPORTER_<NAME>. */
export const FLAGS = {
  'web.listen-address': { yaml: 'web.listen_address', kind: 'string', default: `:${DEFAULT_PORT}`, describe: 'Address to listen on' },
  'web.telemetry-path': { yaml: 'web.telemetry_path', kind: 'string', default: '/metrics', describe: 'Path of the metrics endpoint' },
  'web.config.file': {
    yaml: 'web.config_file',
    kind: 'string',
    default: 'none',
    describe: 'Web config (TLS, basic auth, headers) in the Prometheus exporter-toolkit format',
  },
  'web.enable-lifecycle': { yaml: 'web.enable_lifecycle', kind: 'boolean', default: 'off', describe: 'Reload the configuration on POST /-/reload' },
  'node.url': { yaml: 'nodes', kind: 'string', array: true, default: DEFAULT_NODE_URL, describe: 'AvalancheGo API base URL, repeatable' },
  'poll.interval': { yaml: 'poll.interval', kind: 'duration', default: d(DEFAULT_POLL_INTERVAL_MS), describe: 'Time between two polls of a node' },
  'poll.timeout': { yaml: 'poll.timeout', kind: 'duration', default: d(DEFAULT_POLL_TIMEOUT_MS), describe: 'Deadline of one poll, retries included' },
  'poll.max-age': {
    yaml: 'poll.max_age',
    kind: 'duration',
    default: '3 × interval',
    describe: "Age after which a failed source's series are dropped",
  },
  'poll.peers-interval': {
    yaml: 'poll.peers_interval',
    kind: 'duration',
    default: d(DEFAULT_PEERS_INTERVAL_MS),
    describe: 'Least time between two info.peers calls to a node, 0s for every round',
  },
  'watch.node-id': { yaml: 'watch.node_ids', kind: 'string', array: true, default: "each node's own id", describe: 'Validator node id to watch, repeatable' },
  'watch.all-validators': { yaml: 'watch.all_validators', kind: 'boolean', default: 'off', describe: 'Export every current primary-network validator' },
  'watch.subnet-id': {
    yaml: 'watch.subnet_ids',
    kind: 'string',
    array: true,
    default: 'none',
    describe: 'Subnet / L1 id whose validators and chains to watch, repeatable',
  },
  'watch.validation-id': {
    yaml: 'watch.validation_ids',
    kind: 'string',
    array: true,
    default: 'none',
    describe: 'L1 validation id to look up with platform.getL1Validator (balance, runway), repeatable',
  },
  'watch.max-validators': {
    yaml: 'watch.max_validators',
    kind: 'number',
    default: String(DEFAULT_MAX_VALIDATORS),
    describe: 'Most validators exported per node and subnet',
  },
  'data-api.enabled': {
    yaml: 'data_api.enabled',
    kind: 'boolean',
    default: 'on',
    describe: 'Poll the Avalanche Data API (--data-api.enabled=false turns it off)',
  },
  'data-api.url': { yaml: 'data_api.url', kind: 'string', default: DEFAULT_DATA_API_URL, describe: 'Data API base URL' },
  'data-api.network': { yaml: 'data_api.network', kind: 'string', default: "the nodes' network", describe: 'mainnet, fuji or testnet' },
  'data-api.key-file': { yaml: 'data_api.key_file', kind: 'string', default: 'none', describe: `File holding the Data API key (or set ${DATA_API_KEY_ENV})` },
  'data-api.key-header': { yaml: 'data_api.key_header', kind: 'string', default: DEFAULT_DATA_API_KEY_HEADER, describe: 'Header that carries the key' },
  'data-api.rate-limit': {
    yaml: 'data_api.rate_limit',
    kind: 'number',
    default: String(DEFAULT_DATA_API_RATE_LIMIT),
    describe: 'Data API requests per minute, at most',
  },
  'data-api.interval': { yaml: 'data_api.interval', kind: 'duration', default: d(DEFAULT_DATA_API_INTERVAL_MS), describe: 'Time between two Data API rounds' },
  'data-api.max-pages': {
    yaml: 'data_api.max_pages',
    kind: 'number',
    default: String(DEFAULT_DATA_API_MAX_PAGES),
    describe: 'Most pages one Data API listing fetches',
  },
  'probe.target': {
    yaml: 'probe.targets',
    kind: 'string',
    array: true,
    default: 'none',
    describe: 'URL that /probe?target= may poll besides the configured nodes, repeatable',
  },
  'probe.max-targets': {
    yaml: 'probe.max_targets',
    kind: 'number',
    default: String(DEFAULT_PROBE_MAX_TARGETS),
    describe: 'Most probe-only URLs polled at once',
  },
  'probe.idle-timeout': {
    yaml: 'probe.idle_timeout',
    kind: 'duration',
    default: `${d(DEFAULT_PROBE_IDLE_TIMEOUT_MS)} (at least 4 poll intervals)`,
    describe: 'Time after which a probe-only URL not probed is dropped',
  },
  'log.level': { yaml: 'log.level', kind: 'string', default: 'info', describe: 'trace, debug, info, warn, error' },
  'log.format': { yaml: 'log.format', kind: 'string', default: 'json', describe: 'json or pretty' },
  'config.file': { kind: 'string', default: 'none', describe: 'YAML configuration file' },
  'config.check': { kind: 'boolean', describe: 'Validate the configuration, print it (a file --config.file reads back) and exit' },
  demo: { yaml: 'demo', kind: 'boolean', default: 'off', describe: 'Start a built-in simulated node and poll it' },
} as const satisfies Record<string, FlagDef>;

/** A flag's name, without its dashes. */
export type FlagName = keyof typeof FLAGS;

const FLAG_NAMES = Object.keys(FLAGS) as FlagName[];
const def = (name: FlagName): FlagDef => FLAGS[name];

/** The environment variable of a flag: AVAX_EXPORTER_WEB_LISTEN_ADDRESS for --web.listen-address. */
export function envNameOf(flag: string): string {
  return `AVAX_EXPORTER_${flag.toUpperCase().replace(/[.-]/g, '_')}`;
}

/** A value given on the command line or in a variable, and which of them it came from. */
export interface GivenValue {
  /** `--poll.interval` or `AVAX_EXPORTER_POLL_INTERVAL`: what an error about the value names. */
  origin: string;
  /** As given; booleans as true or false when they read as one (anything else stays a string for the schema to refuse). */
  value: unknown;
}

/** What the command line and the environment set, by flag. */
export type GivenValues = Partial<Record<FlagName, GivenValue>>;

const TRUE = /^(true|1|yes|on)$/i;
const FALSE = /^(false|0|no|off)$/i;

function readBoolean(raw: string): boolean | string {
  const s = raw.trim();
  return TRUE.test(s) ? true : FALSE.test(s) ? false : raw;
}

/** Variables the exporter reads besides its flags' (the key; the build's revision, set by the Docker image). */
const OTHER_VARIABLES = new Set([DATA_API_KEY_ENV, 'AVAX_EXPORTER_REVISION']);

/**
 * The variables Kubernetes puts into every pod for a Service whose name starts
 * with avax-exporter (`AVAX_EXPORTER_SERVICE_HOST`, `AVAX_EXPORTER_PORT_9785_TCP_ADDR`,
 * …; see "Environment variables" under Services in the Kubernetes docs): not
 * settings, and no reason to refuse to start.
 */
const SERVICE_LINK = /^AVAX_EXPORTER(_[A-Z0-9_]+)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?)$/;

/**
 * The flags' values from AVAX_EXPORTER_* variables. A variable that is not a
 * setting but is close to one (a typo) is a problem naming the one meant; any
 * other is a warning, since it may be meant for something else.
 */
export function readEnv(env: NodeJS.ProcessEnv, problems: string[], warnings: string[]): GivenValues {
  const out: GivenValues = {};
  const known = new Map<string, FlagName>(FLAG_NAMES.map((f) => [envNameOf(f), f]));
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('AVAX_EXPORTER_') || raw === undefined) continue;
    const flag = known.get(name);
    if (flag === undefined) {
      if (OTHER_VARIABLES.has(name) || SERVICE_LINK.test(name)) continue;
      // Compared without the common prefix, so AVAX_EXPORTER_RATE_LIMIT finds AVAX_EXPORTER_DATA_API_RATE_LIMIT.
      const strip = (v: string) => v.slice('AVAX_EXPORTER_'.length);
      const guess = suggest(strip(name), [...known.keys(), ...OTHER_VARIABLES].map(strip));
      const meant = guess === undefined ? undefined : `AVAX_EXPORTER_${guess}`;
      if (meant !== undefined) problems.push(`${name}: not a setting of avax-exporter (did you mean ${meant}?)`);
      else warnings.push(`${name} is not a setting of avax-exporter and is ignored (the variables are the flags' names: see --help)`);
      continue;
    }
    if (raw === '') continue;
    const f = def(flag);
    const value = f.array
      ? raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : f.kind === 'boolean'
        ? readBoolean(raw)
        : raw.trim();
    out[flag] = { origin: name, value };
  }
  return out;
}

/**
 * The flags' values from argv: `--name=value` or `--name value`, a bare
 * `--name` for a boolean. Parsed here rather than by yargs, which reads
 * `--flag=yes` on a boolean as false and `--number=lots` as NaN, losing what
 * was written; yargs only renders `--help`.
 */
export function readArgv(argv: readonly string[], problems: string[]): GivenValues {
  const out: GivenValues = {};
  const seen = new Map<FlagName, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      for (const rest of argv.slice(i + 1)) problems.push(`${JSON.stringify(rest)}: unexpected argument (flags are written --name=value)`);
      break;
    }
    const m = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(arg);
    if (!m || arg === '-' || !arg.startsWith('-')) {
      problems.push(`${JSON.stringify(arg)}: unexpected argument (flags are written --name=value)`);
      continue;
    }
    const name = m[1] as string;
    let text = m[2];
    if (name === 'help' || name === 'h' || name === 'version') continue;
    if (name === 'data-api.key') {
      // Deliberately no such flag: a flag's value shows in `ps` and in shell history.
      problems.push(`--${name}: there is no flag for the API key (its value would show in ps): set ${DATA_API_KEY_ENV} or --data-api.key-file`);
      if (text === undefined) i++;
      continue;
    }
    if (!(name in FLAGS)) {
      const meant = suggest(name, [...FLAG_NAMES, 'help', 'version']);
      problems.push(`--${name}: unknown flag${meant !== undefined ? ` (did you mean --${meant}?)` : ' (see --help)'}`);
      // Its value, if given apart, is not another argument.
      if (text === undefined && argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) i++;
      continue;
    }
    const flag = name as FlagName;
    const f = def(flag);
    if (text === undefined) {
      const next = argv[i + 1];
      if (f.kind === 'boolean') {
        // `--flag false` as well as `--flag` and `--flag=false`.
        if (next !== undefined && (TRUE.test(next) || FALSE.test(next)) && !next.startsWith('-')) {
          text = next;
          i++;
        } else text = 'true';
      } else if (next === undefined || next.startsWith('--')) {
        problems.push(`--${flag}: needs a value (--${flag}=…)`);
        continue;
      } else {
        text = next;
        i++;
      }
    }
    const list = seen.get(flag) ?? [];
    list.push(text);
    seen.set(flag, list);
  }
  for (const [flag, values] of seen) {
    const f = def(flag);
    const origin = `--${flag}`;
    if (f.array) {
      out[flag] = { origin, value: values };
      continue;
    }
    if (values.length > 1) {
      problems.push(`${origin}: given ${values.length} times (${values.map((v) => JSON.stringify(v)).join(', ')}); give it once`);
      continue;
    }
    const text = values[0] as string;
    out[flag] = { origin, value: f.kind === 'boolean' ? readBoolean(text) : text };
  }
  return out;
}

/** True when argv asks for --help. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** The `--help` text: every flag with its type and its default as docs/configuration.md gives them. */
export async function helpText(): Promise<string> {
  let parser = yargs([])
    .scriptName('avax-exporter')
    .usage(
      '$0 [flags]\n\nPrometheus exporter for Avalanche nodes and validators. Each flag can also be set as an AVAX_EXPORTER_* variable ' +
        '(--poll.interval as AVAX_EXPORTER_POLL_INTERVAL) or in the YAML file of --config.file.',
    )
    .exitProcess(false)
    // The terminal's width, at most 120 columns; unwrapped when the output is no terminal (a pipe, a test).
    .wrap(process.stdout.isTTY ? Math.min(120, yargs().terminalWidth()) : null)
    .help()
    .version(false)
    .option('version', { type: 'boolean', describe: 'Print the version (and the build revision when known) and exit' });
  for (const name of FLAG_NAMES) {
    const f = def(name);
    // yargs knows string, number, boolean and array; a duration is a string to it, shown as what it is.
    const type = f.kind === 'duration' ? undefined : f.kind;
    parser = parser.option(name, {
      ...(type !== undefined ? { type } : {}),
      ...(f.array ? { array: true } : {}),
      describe: f.kind === 'duration' ? `${f.describe} [duration]` : f.describe,
      ...(f.default !== undefined ? { defaultDescription: f.default } : {}),
    });
  }
  return parser.getHelp();
}
