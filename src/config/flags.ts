import { suggest } from './suggest.js';
import { COMMAND_FLAGS, SETTINGS } from './settings.js';
import { flatten, type Kind } from './table.js';
import { DATA_API_KEY_ENV } from './defaults.js';

/**
 * The command-line flags and their environment variables, derived from the
 * table of settings (settings.ts): the argv and environment readers, the YAML
 * path each sets (for the overlay onto the file and the origin an error
 * names) and `--help`. docs/configuration.md's tables come from the same
 * table (`npm run docs:config`).
 */

/** One flag: what it sets and how `--help` and the docs show it. */
export interface FlagDef {
  /** The YAML path it sets (`data_api.rate_limit`, `nodes[].url`); absent for flags that only steer the command (`config.file`, `config.check`). */
  yaml?: string;
  kind: Exclude<Kind, 'mapping'>;
  /** Repeatable on the command line, comma-separated in its variable. */
  array: boolean;
  /** Its variable (AVAX_EXPORTER_<NAME>); absent for --help and --version. */
  env?: string;
  /** The default, as code (`15s`) or in words (`3 × interval`); absent when there is none to show. */
  default?: string;
  defaultIsCode: boolean;
  describe: string;
  /** The meaning in docs/configuration.md (Markdown). */
  docs: string;
}

function flagDefs(): Map<string, FlagDef> {
  const out = new Map<string, FlagDef>();
  for (const { path, node } of flatten(SETTINGS)) {
    if (node.type !== 'leaf' || node.flag === undefined) continue;
    if (node.kind === 'mapping') throw new Error(`${path}: a mapping has no flag`);
    const shown = node.default ?? node.defaultText;
    out.set(node.flag, {
      yaml: path,
      kind: node.kind,
      array: node.kind === 'list' || path.includes('[].'),
      env: envNameOf(node.flag),
      ...(shown !== undefined ? { default: shown } : {}),
      defaultIsCode: node.default !== undefined,
      describe: node.describe,
      docs: node.docs ?? node.describe,
    });
  }
  for (const c of COMMAND_FLAGS) {
    out.set(c.flag, {
      kind: c.kind,
      array: false,
      ...(c.noEnv ? {} : { env: envNameOf(c.flag) }),
      ...(c.defaultText !== undefined ? { default: c.defaultText } : {}),
      defaultIsCode: false,
      describe: c.describe,
      docs: c.docs,
    });
  }
  return out;
}

/** The environment variable of a flag: AVAX_EXPORTER_WEB_LISTEN_ADDRESS for --web.listen-address. */
export function envNameOf(flag: string): string {
  return `AVAX_EXPORTER_${flag.toUpperCase().replace(/[.-]/g, '_')}`;
}

/** Every flag, in `--help` order: the settings' in the table's order, then the command's own. */
export const FLAGS: ReadonlyMap<string, FlagDef> = flagDefs();
const FLAG_NAMES = [...FLAGS.keys()];
const def = (name: string): FlagDef => FLAGS.get(name) as FlagDef;

/** A value given on the command line or in a variable, and which of them it came from. */
export interface GivenValue {
  /** `--poll.interval` or `AVAX_EXPORTER_POLL_INTERVAL`: what an error about the value names. */
  origin: string;
  /** As given; booleans as true or false when they read as one (anything else stays a string for the schema to refuse). */
  value: unknown;
}

/** What the command line and the environment set, by flag. */
export type GivenValues = Partial<Record<string, GivenValue>>;

const TRUE = /^(true|1|yes|on)$/i;
const FALSE = /^(false|0|no|off)$/i;

function readBoolean(raw: string): boolean | string {
  const s = raw.trim();
  return TRUE.test(s) ? true : FALSE.test(s) ? false : raw;
}

/** Variables the exporter reads besides its flags' (the key; the build's revision, set by the Docker image). */
const OTHER_VARIABLES = new Set([
  ...flatten(SETTINGS).flatMap(({ node }) => (node.type === 'leaf' && node.env !== undefined ? [node.env] : [])),
  'AVAX_EXPORTER_REVISION',
]);

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
  const known = new Map<string, string>([...FLAGS].flatMap(([f, d]) => (d.env !== undefined ? [[d.env, f] as const] : [])));
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
  const seen = new Map<string, string[]>();
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
    if (!FLAGS.has(name)) {
      const meant = suggest(name, FLAG_NAMES);
      problems.push(`--${name}: unknown flag${meant !== undefined ? ` (did you mean --${meant}?)` : ' (see --help)'}`);
      // Its value, if given apart, is not another argument.
      if (text === undefined && argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) i++;
      continue;
    }
    const flag = name;
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
  // Loaded only here: a start that asks for no help never loads yargs.
  const { default: yargs } = await import('yargs');
  let parser = yargs([])
    .scriptName('avax-exporter')
    .usage(
      '$0 [flags]\n\nPrometheus exporter for Avalanche nodes and validators. Each flag can also be set as an AVAX_EXPORTER_* variable ' +
        '(--poll.interval as AVAX_EXPORTER_POLL_INTERVAL) or in the YAML file of --config.file.',
    )
    .exitProcess(false)
    // The terminal's width, at most 120 columns; unwrapped when the output is no terminal (a pipe, a test).
    .wrap(process.stdout.isTTY ? Math.min(120, yargs().terminalWidth()) : null)
    .help('help', def('help').describe)
    .version(false);
  for (const [name, f] of FLAGS) {
    if (name === 'help') continue;
    // yargs knows string, number, boolean and array; a duration is a string to it, shown as what it is.
    const type = f.kind === 'duration' ? undefined : f.kind === 'list' ? 'string' : f.kind;
    parser = parser.option(name, {
      ...(type !== undefined ? { type } : {}),
      ...(f.array ? { array: true } : {}),
      describe: f.kind === 'duration' ? `${f.describe} [duration]` : f.describe,
      ...(f.default !== undefined ? { defaultDescription: f.default } : {}),
    });
  }
  return parser.getHelp();
}
