import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config/load.js';
import { describeConfig } from '../src/config/describe.js';
import { SETTINGS } from '../src/config/settings.js';
import { flatten } from '../src/config/table.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import { problemsOf } from './helpers/config.js';

/**
 * What an operator reads when a configuration is wrong (issue 26): each bad
 * input names the flag, variable or YAML path its value came from, shows the
 * value (never a secret) and says what is expected; `--help` agrees with
 * docs/configuration.md; and `--config.check` prints a file that
 * `--config.file` reads back.
 */

const CLI = [process.execPath, '--import', 'tsx', 'src/cli.ts'] as const;
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_')));

function run(args: string[], env: Record<string, string> = {}) {
  const [cmd, ...pre] = CLI;
  return spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', env: { ...cleanEnv, ...env }, timeout: 20_000 });
}

const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-messages-'));
let files = 0;
function writeFile(text: string): string {
  const file = join(dir, `f${files++}.yml`);
  writeFileSync(file, text);
  return file;
}

/** One bad input: flags, variables and/or a YAML file, and the problems it must give, in full. */
interface Row {
  what: string;
  argv?: string[];
  env?: Record<string, string>;
  yaml?: string;
  problems: string[];
}

const ID = FIXTURE_IDS.l1ValidationId;

const ROWS: Row[] = [
  {
    what: 'a YAML duration without its unit',
    yaml: 'poll:\n  interval: 15\n',
    problems: ['poll.interval: 15 has no unit: write 15s for 15 seconds (a duration like 15s, 2m or 1h30m)'],
  },
  {
    what: 'a flag duration without its unit',
    argv: ['--data-api.interval=60'],
    problems: ['--data-api.interval: "60" has no unit: write 60s for 60 seconds (a duration like 15s, 2m or 1h30m)'],
  },
  {
    what: 'a word for a number',
    argv: ['--watch.max-validators=lots'],
    problems: ['--watch.max-validators: "lots" must be a whole number greater than zero'],
  },
  {
    what: 'a negative rate limit',
    argv: ['--data-api.rate-limit=-5'],
    problems: ['--data-api.rate-limit: "-5" must be a number of requests per minute greater than zero'],
  },
  {
    what: 'a negative rate limit given apart from its flag',
    argv: ['--data-api.rate-limit', '-5'],
    problems: ['--data-api.rate-limit: "-5" must be a number of requests per minute greater than zero'],
  },
  {
    what: 'a validation id cut short',
    argv: [`--watch.validation-id=${ID.slice(0, -2)}`],
    problems: [
      `--watch.validation-id: "${ID.slice(0, -2)}" is not a validation id: it is too short (48 characters holding 35 bytes; a validation id is 32 bytes and a 4-byte checksum, usually 49 or 50 characters): cut short when copied?`,
    ],
  },
  {
    what: 'a node URL of the C-Chain RPC',
    argv: ['--node.url=http://10.0.0.1:9650/ext/bc/C/rpc'],
    problems: [
      '--node.url: "http://10.0.0.1:9650/ext/bc/C/rpc" is the URL of one AvalancheGo API, not the node\'s base URL: remove "/ext/bc/C/rpc" (the exporter adds /ext/info, /ext/health, /ext/bc/… itself)',
    ],
  },
  {
    what: 'a node URL of an API behind a provider token, with credentials that are not shown',
    yaml: 'nodes:\n  - url: https://ops:hunter2@rpc.example/tok3n/ext/info?x=1\n',
    problems: [
      'nodes[0].url: "https://ops:<redacted>@rpc.example/tok3n/ext/info?x=1" is the URL of one AvalancheGo API, not the node\'s base URL: remove "/ext/info?x=1" (the exporter adds /ext/info, /ext/health, /ext/bc/… itself)',
    ],
  },
  {
    what: 'a Data API URL with its version',
    argv: ['--data-api.url=https://data-api.avax.network/v1'],
    problems: ['--data-api.url: "https://data-api.avax.network/v1" must be the Data API\'s base URL: remove "/v1" (the exporter adds /v1/… itself)'],
  },
  {
    what: 'an unknown key near a known one',
    yaml: 'poll:\n  intervall: 15s\n',
    problems: ['poll.intervall: unknown key (did you mean poll.interval?)'],
  },
  {
    what: 'a key one level too high',
    yaml: 'nodes:\n  - url: http://n:9650\n    node_ids: [x]\n',
    problems: ['nodes[0].node_ids: unknown key (did you mean nodes[0].watch.node_ids?)'],
  },
  {
    what: 'an unknown key like no other',
    yaml: 'web:\n  colour: blue\n',
    problems: ['web.colour: unknown key (the keys here: listen_address, telemetry_path, config_file, enable_lifecycle)'],
  },
  {
    what: 'an unknown section written with dashes',
    yaml: 'data-api:\n  enabled: false\n',
    problems: ['data-api: unknown key (did you mean data_api?)'],
  },
  {
    what: 'an unknown flag',
    argv: ['--poll.intervall=15s'],
    problems: ['--poll.intervall: unknown flag (did you mean --poll.interval?)'],
  },
  {
    what: 'a flag written with the YAML key',
    argv: ['--data_api.rate_limit=5'],
    problems: ['--data_api.rate_limit: unknown flag (did you mean --data-api.rate-limit?)'],
  },
  {
    what: 'a misspelt variable',
    env: { AVAX_EXPORTER_POLL_INTERVALL: '30s' },
    problems: ['AVAX_EXPORTER_POLL_INTERVALL: not a setting of avax-exporter (did you mean AVAX_EXPORTER_POLL_INTERVAL?)'],
  },
  {
    what: 'a variable without its section',
    env: { AVAX_EXPORTER_RATE_LIMIT: '30' },
    problems: ['AVAX_EXPORTER_RATE_LIMIT: not a setting of avax-exporter (did you mean AVAX_EXPORTER_DATA_API_RATE_LIMIT?)'],
  },
  {
    what: 'a bad value set by a variable names the variable',
    env: { AVAX_EXPORTER_POLL_INTERVAL: '15', AVAX_EXPORTER_WATCH_NODE_ID: 'NodeID-x,bogus' },
    problems: [
      'AVAX_EXPORTER_POLL_INTERVAL: "15" has no unit: write 15s for 15 seconds (a duration like 15s, 2m or 1h30m)',
      'AVAX_EXPORTER_WATCH_NODE_ID: "NodeID-x" is not a node id: it is too short (1 character after NodeID- holding 1 byte; a node id is 20 bytes and a 4-byte checksum, usually 32 or 33 characters after NodeID-): cut short when copied?',
      'AVAX_EXPORTER_WATCH_NODE_ID: "bogus" is not a node id: it must start with NodeID- (like NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD)',
    ],
  },
  {
    what: 'a flag wins over the file, and its error names the flag',
    argv: ['--poll.interval=soon'],
    yaml: 'poll:\n  interval: 30s\n  timeout: 5m\n',
    problems: ['--poll.interval: "soon" must be a duration like 15s, 2m or 1h30m'],
  },
  {
    what: 'a cross-field rule names the settings where they were set',
    argv: ['--poll.timeout=20s'],
    env: { AVAX_EXPORTER_POLL_INTERVAL: '10s' },
    problems: ['--poll.timeout: 20s must not exceed AVAX_EXPORTER_POLL_INTERVAL (10s): a round must end before the next begins'],
  },
  {
    what: 'a boolean that is neither',
    argv: ['--data-api.enabled=flase'],
    env: { AVAX_EXPORTER_WATCH_ALL_VALIDATORS: 'ture' },
    problems: ['AVAX_EXPORTER_WATCH_ALL_VALIDATORS: "ture" must be true or false', '--data-api.enabled: "flase" must be true or false'],
  },
  {
    what: 'a near miss of a fixed word',
    argv: ['--log.level=warning', '--data-api.network=fiji'],
    problems: [
      '--log.level: "warning" must be trace, debug, info, warn, error, fatal or silent (did you mean warn?)',
      '--data-api.network: "fiji" must be mainnet, fuji or testnet (did you mean fuji?)',
    ],
  },
  {
    what: 'a flag given twice',
    argv: ['--poll.interval=15s', '--poll.interval=30s'],
    problems: ['--poll.interval: given 2 times ("15s", "30s"); give it once'],
  },
  {
    what: 'a YAML value of the wrong type',
    yaml: 'web:\n  enable_lifecycle: "yes please"\nwatch:\n  node_ids: NodeID-x\nlog:\n  level: verbose\n',
    problems: [
      'web.enable_lifecycle: "yes please" must be true or false',
      'watch.node_ids: "NodeID-x" must be a list',
      'log.level: "verbose" must be trace, debug, info, warn, error, fatal or silent',
    ],
  },
  {
    what: 'a header that is not one, and the secret value is never shown',
    yaml: 'nodes:\n  - url: http://n:9650\n    headers:\n      "Bad Header": s3cret-value\n      X-Token: 42\n',
    problems: ['nodes[0].headers: "Bad Header" must be an HTTP header name', 'nodes[0].headers.X-Token: must be a string'],
  },
  {
    what: 'the API key in the file is refused without showing it',
    yaml: 'data_api:\n  key: s3cret-key\n',
    problems: ['data_api.key: the API key is not read from the configuration; give it in AVAX_EXPORTER_DATA_API_KEY or in a file named by key_file'],
  },
  {
    what: 'a stray argument',
    argv: ['15s'],
    problems: ['"15s": unexpected argument (flags are written --name=value)'],
  },
];

function problemsFor(row: Row): string[] {
  const argv = [...(row.argv ?? []), ...(row.yaml !== undefined ? [`--config.file=${writeFile(row.yaml)}`] : [])];
  return problemsOf(() => loadConfig(argv, row.env ?? {}));
}

describe('configuration messages an operator can act on', () => {
  it.each(ROWS)('$what', (row) => {
    const problems = problemsFor(row);
    expect(problems).toEqual(row.problems);
    for (const secret of ['hunter2', 's3cret-value', 's3cret-key']) expect(problems.join('\n')).not.toContain(secret);
  });

  it('the CLI prints them under one heading, exits 2 and shows no stack trace', () => {
    const r = run(['--config.check', '--watch.max-validators=lots', '--node.url=http://n:9650/ext/bc/C/rpc'], { AVAX_EXPORTER_LOG_LEVLE: 'debug' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      [
        'avax-exporter: invalid configuration:',
        '  AVAX_EXPORTER_LOG_LEVLE: not a setting of avax-exporter (did you mean AVAX_EXPORTER_LOG_LEVEL?)',
        '  --watch.max-validators: "lots" must be a whole number greater than zero',
        '  --node.url: "http://n:9650/ext/bc/C/rpc" is the URL of one AvalancheGo API, not the node\'s base URL: remove "/ext/bc/C/rpc" (the exporter adds /ext/info, /ext/health, /ext/bc/… itself)',
        '',
      ].join('\n'),
    );
  });

  it('an AVAX_EXPORTER_* variable like no setting is a warning; the Kubernetes service variables and the build revision are not', () => {
    const env = {
      AVAX_EXPORTER_HOME: '/opt/avax',
      AVAX_EXPORTER_SERVICE_HOST: '10.0.0.11',
      AVAX_EXPORTER_SERVICE_PORT: '9785',
      AVAX_EXPORTER_PORT: 'tcp://10.0.0.11:9785',
      AVAX_EXPORTER_PORT_9785_TCP_ADDR: '10.0.0.11',
      AVAX_EXPORTER_METRICS_SERVICE_PORT_HTTP: '9785',
      AVAX_EXPORTER_REVISION: 'abc1234',
    };
    expect(loadConfig([], env).warnings).toEqual([
      "AVAX_EXPORTER_HOME is not a setting of avax-exporter and is ignored (the variables are the flags' names: see --help)",
    ]);
    const r = run(['--config.check', '--data-api.enabled=false'], env);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      "avax-exporter: warning: AVAX_EXPORTER_HOME is not a setting of avax-exporter and is ignored (the variables are the flags' names: see --help)\n",
    );
  });

  it('--flag value, --flag=value and a bare boolean read as before', () => {
    const { config } = loadConfig(['--poll.interval', '30s', '--watch.all-validators', '--data-api.enabled', 'false', '--node.url', 'http://a:9650'], {});
    expect(config.poll.intervalMs).toBe(30_000);
    expect(config.nodes[0]?.watch.allValidators).toBe(true);
    expect(config.dataApi.enabled).toBe(false);
    expect(config.nodes.map((n) => n.url)).toEqual(['http://a:9650']);
    // A path before /ext stays: a proxy's prefix or a provider's token.
    expect(loadConfig(['--node.url=https://rpc.example/tok3n/'], {}).config.nodes[0]?.url).toBe('https://rpc.example/tok3n');
  });
});

/** The rows of docs/configuration.md's flag table: flag, type and default (without the code marks). */
function docsTable(): Map<string, { type: string; default: string }> {
  const text = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const rows = new Map<string, { type: string; default: string }>();
  for (const line of text.split('\n')) {
    const m = /^\| `--([a-z.-]+)` \| ([a-z]+) \|([^|]*)\|/.exec(line);
    if (m) rows.set(m[1] as string, { type: m[2] as string, default: (m[3] as string).replace(/`/g, '').trim() });
  }
  return rows;
}

/** `--help`, option by option: its type label and its default ('' when it shows none). */
function helpTable(help: string): Map<string, { type: string; default: string }> {
  const rows = new Map<string, { type: string; default: string }>();
  const blocks = help.split(/\n(?= {2}--)/).filter((b) => b.startsWith('  --'));
  for (const block of blocks) {
    const flat = block.replace(/\s+/g, ' ');
    const name = /^ --([a-z.-]+)/.exec(flat)?.[1] as string;
    const type = /\[(string|number|boolean|array|duration)\]/.exec(flat)?.[1] ?? '';
    const def = /\[default: ([^\]]*)\]/.exec(flat)?.[1] ?? '';
    rows.set(name, { type, default: def });
  }
  return rows;
}

describe('--help and the documentation agree', () => {
  it('every flag has the same type and default in --help and in docs/configuration.md', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    const help = helpTable(r.stdout);
    const docs = docsTable();
    expect([...help.keys()].sort()).toEqual([...docs.keys()].sort());
    for (const [flag, fromDocs] of docs) expect(help.get(flag), flag).toEqual(fromDocs);
    // Numbers are shown as numbers, durations as durations.
    expect(help.get('data-api.rate-limit')?.type).toBe('number');
    expect(help.get('poll.peers-interval')).toEqual({ type: 'duration', default: '1m' });
  });

  it('--help prints even beside a broken configuration', () => {
    const r = run(['--help', '--config.file=/nonexistent.yml', '--poll.interval=soon']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--poll.interval');
    expect(r.stderr).toBe('');
  });
});

describe('--config.check prints a file that --config.file reads back', () => {
  const KEY = 'messages-test-key-4f1d';

  function checked(args: string[], env: Record<string, string> = {}) {
    const r = run(['--config.check', ...args], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[&*][a-z0-9]+\b.*$/m); // no YAML anchors or aliases
    expect(r.stdout).not.toContain('via:');
    return r.stdout;
  }

  it('round trip through the CLI: flags, variables, a file with nodes, headers, addresses and probe targets, and a key file', () => {
    const keyFile = writeFile(`${KEY}\n`);
    const file = writeFile(`
watch:
  subnet_ids: [${FIXTURE_IDS.l1SubnetId}]
nodes:
  - name: validator-1
    url: http://10.0.0.1:9650/
    headers: {X-Team: ops}
    watch:
      node_ids: [${FIXTURE_IDS.nodeId}]
      validation_ids: [${FIXTURE_IDS.l1ValidationId}]
  - url: https://rpc.example/tok3n
data_api:
  network: mainnet
  key_file: ${keyFile}
addresses:
  - {alias: relayer, chain: C, address: "0x1234567890AbcdEF1234567890aBcdef12345678", floor_avax: 5}
  - {alias: fees, chain: P, address: "P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5", floor_avax: 10}
probe:
  targets: [http://10.0.0.9:9650]
`);
    const args = [`--config.file=${file}`, '--poll.interval=30s', '--web.enable-lifecycle'];
    const env = { AVAX_EXPORTER_LOG_LEVEL: 'debug', AVAX_EXPORTER_WATCH_MAX_VALIDATORS: '300' };
    const original = loadConfig(args, env).config;
    const printed = checked(args, env);
    expect(printed).not.toContain(KEY);
    expect(printed).toContain(`key_file: ${keyFile}`);
    const back = loadConfig([`--config.file=${writeFile(printed)}`], {}).config;
    expect(back).toEqual(original);
    // And printing it again gives the same file: nothing drifts.
    expect(checked([`--config.file=${writeFile(printed)}`])).toBe(printed);
  });

  it('round trip of the defaults, of --demo, and of a key from the environment (which it names, never shows)', () => {
    for (const [args, env] of [
      [[], {}],
      [['--demo'], {}],
      [['--data-api.rate-limit=30'], { AVAX_EXPORTER_DATA_API_KEY: KEY }],
    ] as [string[], Record<string, string>][]) {
      const original = loadConfig(args, env).config;
      const printed = describeConfig(original);
      expect(printed).not.toContain(KEY);
      expect(loadConfig([`--config.file=${writeFile(printed)}`], env).config).toEqual(original);
    }
    expect(describeConfig(loadConfig([], { AVAX_EXPORTER_DATA_API_KEY: KEY }).config)).toContain('# the API key: <redacted>, from AVAX_EXPORTER_DATA_API_KEY');
  });

  it('secrets written in the file are printed as <redacted>, which reads back as a clear refusal, never as a password', () => {
    const file = writeFile(`
nodes:
  - url: http://ops:hunter2@10.0.0.1:9650
    headers:
      Authorization: Bearer s3cret-bearer
      X-Api-Token: s3cret-token
      X-Team: ops
    secret_headers: [X-Api-Token]
  - url: http://t0ken-only@10.0.0.2:9650
  - url: http://ops:p@ss-with-at@10.0.0.3:9650
`);
    const printed = checked([`--config.file=${file}`]);
    for (const secret of ['hunter2', 's3cret-bearer', 's3cret-token', 't0ken-only', 'ss-with-at']) expect(printed).not.toContain(secret);
    const nodes = (parseYaml(printed) as { nodes: { url: string; headers?: Record<string, string>; secret_headers?: string[] }[] }).nodes;
    expect(nodes[0]).toMatchObject({
      url: 'http://ops:<redacted>@10.0.0.1:9650',
      headers: { Authorization: '<redacted>', 'X-Api-Token': '<redacted>', 'X-Team': 'ops' },
      secret_headers: ['x-api-token'],
    });
    expect(nodes[1]?.url).toBe('http://<redacted>@10.0.0.2:9650');
    const refusal = 'holds <redacted>, which --config.check prints in place of a secret: write the secret back (or give it in a file or variable)';
    expect(problemsOf(() => loadConfig([`--config.file=${writeFile(printed)}`], {}))).toEqual([
      `nodes[0].url: "http://ops:<redacted>@10.0.0.1:9650" ${refusal}`,
      `nodes[0].headers.Authorization: ${refusal}`,
      `nodes[0].headers.X-Api-Token: ${refusal}`,
      `nodes[1].url: "http://<redacted>@10.0.0.2:9650" ${refusal}`,
      `nodes[2].url: "http://ops:<redacted>@10.0.0.3:9650" ${refusal}`,
    ]);
  });

  it('prints every key the table of settings declares, max_validators and validation_ids included (the key itself never)', () => {
    const keyFile = writeFile(`${KEY}\n`);
    const file = writeFile(`
web: {config_file: /etc/avax-exporter/web.yml}
nodes:
  - name: validator-1
    url: http://10.0.0.1:9650
    headers: {X-Api-Token: s3cret-token}
    secret_headers: [X-Api-Token]
  - url: http://10.0.0.2:9650
data_api: {url: "https://glacier-api.avax.network", network: mainnet, key_file: ${keyFile}}
addresses:
  - {alias: relayer, chain: C, address: "0x1234567890AbcdEF1234567890aBcdef12345678", floor_avax: 5, rpc_node: validator-1}
  - {alias: fees, chain: P, address: "P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"}
probe: {targets: [http://10.0.0.9:9650]}
`);
    const printed = describeConfig(loadConfig([`--config.file=${file}`, `--watch.validation-id=${ID}`], {}).config);
    const doc = parseYaml(printed) as Record<string, unknown>;
    /** The values at a path of the table (`nodes[].watch`, the keys of `watch` below it): every entry's, for a list. */
    const at = (path: string): unknown[] => {
      let cur: unknown[] = [doc];
      for (const part of path.split('.')) {
        const list = part.endsWith('[]');
        const key = list ? part.slice(0, -2) : part;
        cur = cur.flatMap((v) => (v !== null && typeof v === 'object' && key in v ? [(v as Record<string, unknown>)[key]] : []));
        if (list) cur = cur.flatMap((v) => v as unknown[]);
      }
      return cur;
    };
    const paths = flatten(SETTINGS).map((e) => e.path);
    // A node's own watch list repeats the global one's keys.
    const perNode = Object.keys(SETTINGS.watch.keys).map((k) => `nodes[].watch.${k}`);
    for (const path of [...paths, ...perNode]) {
      if (path === 'data_api.key') expect(at(path), path).toEqual([]);
      else expect(at(path).length, `--config.check prints ${path}`).toBeGreaterThan(0);
    }
    expect(printed).not.toContain(KEY);
    expect(printed).not.toContain('s3cret-token');
  });

  it("--config.check prints the global and each node's max_validators and validation_ids, and --demo (no node of its own) keeps them", () => {
    for (const extra of [[], ['--demo']]) {
      const args = ['--watch.max-validators=300', `--watch.validation-id=${ID}`, ...extra];
      const printed = parseYaml(checked(args)) as { watch: Record<string, unknown>; nodes: { watch: Record<string, unknown> }[] };
      expect(printed.watch).toMatchObject({ max_validators: 300, validation_ids: [ID] });
      for (const n of printed.nodes) expect(n.watch).toMatchObject({ max_validators: 300, validation_ids: [ID] });
      expect(printed.nodes.length).toBe(extra.length === 0 ? 1 : 0);
      const back = loadConfig([`--config.file=${writeFile(checked(args))}`], {}).config;
      expect(back).toEqual(loadConfig(args, {}).config);
      expect(back.watch).toMatchObject({ maxValidators: 300, validationIds: [ID] });
    }
    // Without any, validation_ids is printed empty, and reads back as none.
    const none = parseYaml(checked([])) as { watch: Record<string, unknown> };
    expect(none.watch).toMatchObject({ max_validators: 5000, validation_ids: [] });
  });
});
