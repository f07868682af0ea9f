import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PORT, loadConfig, redactConfig, envNameOf } from './load.js';
import { parseDuration, writeDuration } from './duration.js';
import { problemsOf } from '../../test/helpers/config.js';

function writeYaml(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-config-'));
  const file = join(dir, 'config.yml');
  writeFileSync(file, text);
  return file;
}

describe('durations', () => {
  it.each([
    ['15s', 15_000],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['0', 0],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['15', 's', '15x', '1h 30m', '', '-5s'])('rejects %j', (text) => expect(parseDuration(text)).toBeUndefined());
  it('formats back to a parseable string', () => {
    for (const ms of [15_000, 120_000, 5_400_000, 1500, 90_061_000]) expect(parseDuration(writeDuration(ms))).toBe(ms);
  });
});

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const { config, checkOnly } = loadConfig([], {});
    expect(checkOnly).toBe(false);
    expect(config.web).toEqual({
      listenAddress: `:${DEFAULT_PORT}`,
      host: undefined,
      port: DEFAULT_PORT,
      telemetryPath: '/metrics',
      configFile: undefined,
      enableLifecycle: false,
    });
    expect(config.poll).toEqual({ intervalMs: 15_000, timeoutMs: 10_000, maxAgeMs: 45_000, peersIntervalMs: 60_000 });
    expect(config.nodes).toHaveLength(1);
    expect(config.nodes[0]).toMatchObject({
      name: '127.0.0.1:9650',
      url: 'http://127.0.0.1:9650',
      watch: { nodeIds: [], allValidators: false, subnetIds: [] },
    });
    expect(config.log).toEqual({ level: 'info', format: 'json' });
    expect(DEFAULT_PORT).toBeGreaterThanOrEqual(9100);
    expect(DEFAULT_PORT).toBeLessThanOrEqual(9999);
    expect([9090, 9650, 9651]).not.toContain(DEFAULT_PORT);
  });

  it('reads every flag', () => {
    const { config, checkOnly } = loadConfig(
      [
        '--web.listen-address=127.0.0.1:9999',
        '--web.telemetry-path=/m',
        '--node.url=http://a.example:9650',
        '--node.url',
        'https://b.example',
        '--poll.interval=30s',
        '--poll.timeout=5s',
        '--poll.max-age=2m',
        '--poll.peers-interval=2m',
        '--watch.node-id=NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD',
        '--watch.all-validators',
        '--watch.subnet-id=2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91',
        '--log.level=debug',
        '--log.format=pretty',
        '--config.check',
        '--web.config.file=web.yml',
        '--web.enable-lifecycle',
        '--watch.max-validators=300',
      ],
      {},
    );
    expect(checkOnly).toBe(true);
    expect(config.web).toEqual({
      listenAddress: '127.0.0.1:9999',
      host: '127.0.0.1',
      port: 9999,
      telemetryPath: '/m',
      configFile: 'web.yml',
      enableLifecycle: true,
    });
    expect(config.nodes[0]?.watch.maxValidators).toBe(300);
    expect(config.poll).toEqual({ intervalMs: 30_000, timeoutMs: 5_000, maxAgeMs: 120_000, peersIntervalMs: 120_000 });
    expect(config.nodes.map((n) => n.name)).toEqual(['a.example:9650', 'b.example:443']);
    expect(config.nodes[1]?.watch).toEqual({
      nodeIds: ['NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD'],
      allValidators: true,
      subnetIds: ['2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91'],
      maxValidators: 300,
    });
    expect(config.log).toEqual({ level: 'debug', format: 'pretty' });
  });

  it('reads AVAX_EXPORTER_* variables, and flags win over them', () => {
    expect(envNameOf('web.listen-address')).toBe('AVAX_EXPORTER_WEB_LISTEN_ADDRESS');
    const env = {
      AVAX_EXPORTER_NODE_URL: 'http://x.example:9650, http://y.example:9650',
      AVAX_EXPORTER_POLL_INTERVAL: '1m',
      AVAX_EXPORTER_WATCH_ALL_VALIDATORS: 'true',
      AVAX_EXPORTER_LOG_LEVEL: 'warn',
    };
    const { config } = loadConfig(['--log.level=error'], env);
    expect(config.nodes.map((n) => n.url)).toEqual(['http://x.example:9650', 'http://y.example:9650']);
    expect(config.poll.intervalMs).toBe(60_000);
    expect(config.nodes[0]?.watch.allValidators).toBe(true);
    expect(config.log.level).toBe('error');
  });

  it('reads a YAML file with several nodes, headers and per-node watch lists; flags override it', () => {
    const file = writeYaml(`
poll:
  interval: 20s
watch:
  subnet_ids: [2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91]
nodes:
  - name: validator-1
    url: http://10.0.0.1:9650/
    headers:
      Authorization: Bearer s3cret
      X-Team: ops
    watch:
      node_ids: [NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD]
  - url: http://10.0.0.2:9650
`);
    const { config } = loadConfig([`--config.file=${file}`, '--poll.timeout=3s'], {});
    expect(config.poll).toEqual({ intervalMs: 20_000, timeoutMs: 3_000, maxAgeMs: 60_000, peersIntervalMs: 60_000 });
    expect(config.nodes).toHaveLength(2);
    expect(config.nodes[0]).toMatchObject({
      name: 'validator-1',
      url: 'http://10.0.0.1:9650',
      headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
      watch: { nodeIds: ['NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD'], subnetIds: ['2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91'] },
    });
    expect(config.nodes[1]?.name).toBe('10.0.0.2:9650');
    const redacted = JSON.stringify(redactConfig(config));
    expect(redacted).not.toContain('s3cret');
    expect(redacted).toContain('ops');
  });

  it('reports every problem with its path', () => {
    const file = writeYaml(`
web:
  listen_address: "nowhere"
poll:
  interval: 15
  timeout: soon
nodes:
  - url: http://ok.example:9650
  - url: ftp://bad.example
    colour: blue
watch:
  node_ids: [not-a-node-id]
`);
    const problems = problemsOf(() => loadConfig([`--config.file=${file}`], {}));
    expect(problems).toEqual([
      'web.listen_address: "nowhere" must be host:port or :port',
      'poll.interval: 15 has no unit: write 15s for 15 seconds (a duration like 15s, 2m or 1h30m)',
      'poll.timeout: "soon" must be a duration like 15s, 2m or 1h30m',
      'watch.node_ids[0]: "not-a-node-id" is not a node id: it must start with NodeID- (like NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD)',
      'nodes[1].url: "ftp://bad.example" must be an http(s) URL',
      'nodes[1].colour: unknown key (the keys here: name, url, headers, secret_headers, watch)',
    ]);
  });

  it('rejects unknown flags, a timeout above the interval and duplicate node names', () => {
    expect(problemsOf(() => loadConfig(['--no-such-flag'], {}))).toEqual(['--no-such-flag: unknown flag (see --help)']);
    expect(problemsOf(() => loadConfig(['--poll.interval=5s', '--poll.timeout=10s'], {}))).toEqual([
      '--poll.timeout: 10s must not exceed --poll.interval (5s): a round must end before the next begins',
    ]);
    expect(problemsOf(() => loadConfig(['--poll.timeout=10s'], { AVAX_EXPORTER_POLL_INTERVAL: '5s' }))).toEqual([
      '--poll.timeout: 10s must not exceed AVAX_EXPORTER_POLL_INTERVAL (5s): a round must end before the next begins',
    ]);
    const file = writeYaml('nodes:\n  - {name: a, url: "http://x:1"}\n  - {name: a, url: "http://y:1"}\n');
    expect(problemsOf(() => loadConfig([`--config.file=${file}`], {}))[0]).toMatch(/^nodes\[1\]\.name: duplicate node name "a"/);
  });

  it('explains an unreadable or malformed file', () => {
    expect(problemsOf(() => loadConfig(['--config.file=/nonexistent/x.yml'], {}))).toEqual(['--config.file: cannot read /nonexistent/x.yml: ENOENT']);
    expect(problemsOf(() => loadConfig([], { AVAX_EXPORTER_CONFIG_FILE: '/nonexistent/x.yml' }))).toEqual([
      'AVAX_EXPORTER_CONFIG_FILE: cannot read /nonexistent/x.yml: ENOENT',
    ]);
    const bad = writeYaml('nodes: [\n');
    expect(problemsOf(() => loadConfig([`--config.file=${bad}`], {}))[0]).toMatch(/^--config\.file: .* is not valid YAML/);
    const list = writeYaml('- a\n- b\n');
    expect(problemsOf(() => loadConfig([`--config.file=${list}`], {}))).toEqual([
      `--config.file: the top level of ${list} must be a mapping (key: value lines), not a list`,
    ]);
  });

  it('with --demo polls only the demo node unless urls are given', () => {
    expect(loadConfig(['--demo'], {}).config).toMatchObject({ demo: true, nodes: [] });
    expect(loadConfig(['--demo', '--node.url=http://n:9650'], {}).config.nodes).toHaveLength(1);
  });
});

describe('Data API configuration', () => {
  const KEY = 'cfg-test-key-91ab';
  const cli = (args: string[], env: Record<string, string> = {}) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_')));
    return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { encoding: 'utf8', env: { ...clean, ...env }, timeout: 20_000 });
  };

  it('has the documented defaults: on, the public service, the nodes network, no key, 60/min, every 60s', () => {
    const { config } = loadConfig([], {});
    expect(config.dataApi).toEqual({
      enabled: true,
      url: undefined,
      network: undefined,
      key: undefined,
      keyHeader: 'x-glacier-api-key',
      rateLimitPerMinute: 60,
      intervalMs: 60_000,
      timeoutMs: 10_000,
      maxAgeMs: 180_000,
      maxPages: 10,
    });
  });

  it('reads every flag; the round deadline is the poll timeout, at most the interval', () => {
    const file = writeYaml(`${KEY}\n`);
    const { config } = loadConfig(
      [
        '--data-api.url=https://glacier-api.avax.network/',
        '--data-api.network=fuji',
        `--data-api.key-file=${file}`,
        '--data-api.key-header=X-Service-Api-Key',
        '--data-api.rate-limit=120',
        '--data-api.interval=5s',
        '--data-api.max-pages=3',
        '--data-api.enabled=false',
      ],
      {},
    );
    expect(config.dataApi).toEqual({
      enabled: false,
      url: 'https://glacier-api.avax.network',
      network: 'fuji',
      key: KEY,
      keyHeader: 'x-service-api-key',
      rateLimitPerMinute: 120,
      intervalMs: 5_000,
      timeoutMs: 5_000,
      maxAgeMs: 45_000,
      maxPages: 3,
      keyFile: file,
    });
    expect(loadConfig(['--data-api.enabled'], {}).config.dataApi.enabled).toBe(true);
  });

  it('reads the key from AVAX_EXPORTER_DATA_API_KEY and the rest from the YAML file or variables', () => {
    const file = writeYaml('data_api:\n  url: http://indexer.internal:8080\n  rate_limit: 600\n  interval: 2m\n  max_pages: 20\n');
    const { config } = loadConfig([`--config.file=${file}`], { AVAX_EXPORTER_DATA_API_KEY: ` ${KEY}\n`, AVAX_EXPORTER_DATA_API_NETWORK: 'mainnet' });
    expect(config.dataApi).toMatchObject({
      url: 'http://indexer.internal:8080',
      key: KEY,
      network: 'mainnet',
      rateLimitPerMinute: 600,
      intervalMs: 120_000,
      maxPages: 20,
    });
    expect(config.dataApi.maxAgeMs).toBe(360_000);
  });

  it('takes the key only from a file or the environment, once, and never quotes it in a problem', () => {
    expect(problemsOf(() => loadConfig([`--config.file=${writeYaml(`data_api:\n  key: ${KEY}\n`)}`], {}))).toEqual([
      'data_api.key: the API key is not read from the configuration; give it in AVAX_EXPORTER_DATA_API_KEY or in a file named by key_file',
    ]);
    const flagged = problemsOf(() => loadConfig([`--data-api.key=${KEY}`], {}));
    expect(flagged).toEqual([
      '--data-api.key: there is no flag for the API key (its value would show in ps): set AVAX_EXPORTER_DATA_API_KEY or --data-api.key-file',
    ]);
    const file = writeYaml(KEY);
    expect(problemsOf(() => loadConfig([`--data-api.key-file=${file}`], { AVAX_EXPORTER_DATA_API_KEY: KEY }))).toEqual([
      '--data-api.key-file: the API key is also set in AVAX_EXPORTER_DATA_API_KEY; give it in one place only',
    ]);
    expect(problemsOf(() => loadConfig([`--data-api.key-file=${writeYaml('\n')}`], {}))[0]).toMatch(
      /^--data-api\.key-file: .* is empty \(it should hold the Data API key\)$/,
    );
    expect(problemsOf(() => loadConfig(['--data-api.key-file=/nonexistent/key'], {}))).toEqual(['--data-api.key-file: cannot read /nonexistent/key: ENOENT']);
    const spaced = problemsOf(() => loadConfig([], { AVAX_EXPORTER_DATA_API_KEY: `${KEY} extra` }));
    expect(spaced).toEqual(['AVAX_EXPORTER_DATA_API_KEY: the API key must be printable ASCII without spaces (its value is not shown)']);
    const inFile = problemsOf(() => loadConfig([`--config.file=${writeYaml(`data_api:\n  key_file: ${writeYaml(`${KEY} extra`)}\n`)}`], {}));
    expect(inFile).toEqual([expect.stringMatching(/^data_api\.key_file: the key in \S+ must be printable ASCII without spaces \(its value is not shown\)$/)]);
    expect(inFile.join('')).not.toContain(KEY);
    expect(spaced.join('')).not.toContain(KEY);
  });

  it('reports bad values with their paths', () => {
    const problems = problemsOf(() =>
      loadConfig(
        [
          '--data-api.url=ftp://x',
          '--data-api.network=devnet',
          '--data-api.rate-limit=lots',
          '--data-api.interval=soon',
          '--data-api.max-pages=0',
          '--data-api.key-header=bad header',
        ],
        {},
      ),
    );
    expect(problems).toEqual([
      '--data-api.url: "ftp://x" must be an http(s) URL',
      '--data-api.network: "devnet" must be mainnet, fuji or testnet',
      '--data-api.key-header: "bad header" must be an HTTP header name',
      '--data-api.rate-limit: "lots" must be a number of requests per minute greater than zero',
      '--data-api.interval: "soon" must be a duration like 15s, 2m or 1h30m',
      '--data-api.max-pages: "0" must be a whole number greater than zero',
    ]);
  });

  it('redacts the key; --config.check shows only where it comes from', () => {
    const { config } = loadConfig([], { AVAX_EXPORTER_DATA_API_KEY: KEY });
    const redacted = redactConfig(config);
    expect(redacted.dataApi.key).toBe('<secret>');
    expect(JSON.stringify(redacted)).not.toContain(KEY);
    const r = cli(['--config.check', '--data-api.rate-limit=30'], { AVAX_EXPORTER_DATA_API_KEY: KEY });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('data_api:');
    expect(r.stdout).toContain('# the API key: <redacted>, from AVAX_EXPORTER_DATA_API_KEY');
    expect(r.stdout).toContain('rate_limit: 30');
    expect(r.stdout).toContain('# url is not set: the public service, https://data-api.avax.network');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });
});

describe('watched L1 validation ids', () => {
  const ID = '2wTscvX3JUsMbZHFRd9t8Ywz2q9j2BmETg8cTvgUHgawjbSvZX';
  it('come from repeatable flags, the environment or the file (per node or global), deduplicated, and are absent when none', () => {
    expect(loadConfig([`--watch.validation-id=${ID}`, `--watch.validation-id=${ID}`], {}).config.nodes[0]?.watch.validationIds).toEqual([ID]);
    expect(loadConfig([], { AVAX_EXPORTER_WATCH_VALIDATION_ID: ID }).config.nodes[0]?.watch.validationIds).toEqual([ID]);
    expect(loadConfig([], {}).config.nodes[0]?.watch).not.toHaveProperty('validationIds');
  });

  it('must be CB58 ids (the checksum and the length: see ids.test.ts)', () => {
    expect(() => loadConfig(['--watch.validation-id=not-an-id'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--watch.validation-id=not-an-id'], {})).toThrow(
      /--watch\.validation-id: "not-an-id" is not a validation id: "-" is not a base58 character/,
    );
  });
});
