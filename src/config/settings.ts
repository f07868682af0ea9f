import { z } from 'zod';
import {
  baseUrl,
  dataApiUrl,
  duration,
  headerName,
  listenAddress,
  nodeIdSchema,
  positiveDuration,
  positiveInt,
  positiveNumber,
  REDACTED_MESSAGE,
  subnetIdSchema,
  validationIdSchema,
} from './values.js';
import { addressChainSchema, refineAddressEntry, refineAddressList } from './addresses.js';
import { REDACTED } from './problems.js';
import { writeDuration } from './duration.js';
import * as D from './defaults.js';
import { leaf, list, section } from './table.js';

/**
 * The table of settings: one declaration per setting, with its YAML path (its
 * place here), its flag and variable when it has them, its schema, its
 * default, its description and whether it holds a secret. From it come the
 * schema of the YAML file (schema.ts), the flag and variable readers and
 * `--help` (flags.ts), the origin an error names (load.ts), and the reference
 * tables of docs/configuration.md (`npm run docs:config`); `--config.check`
 * prints every key it declares (test/config-messages.test.ts checks). The
 * defaults are applied by each section's module (web.ts, poll.ts, nodes.ts,
 * log.ts, data-api.ts, probe.ts, addresses.ts) from the same constants
 * (defaults.ts).
 *
 * The order is the file's: problems are reported in it, and `--help` and the
 * docs list the settings in it.
 */

const w = writeDuration;

/** The headers always treated as secrets, as the docs write them. */
const ALWAYS_SECRET = 'Authorization, Proxy-Authorization and Cookie';

/** What to watch: the global list, and each node's own (`nodes[].watch`) without the flags. */
function watchKeys(withFlags: boolean) {
  const flag = (name: string) => (withFlags ? { flag: name } : {});
  return {
    node_ids: leaf(z.array(nodeIdSchema), {
      kind: 'list',
      ...flag('watch.node-id'),
      defaultText: "each node's own id",
      describe: 'Validator node id to watch, repeatable',
      docs: 'validator node ids to watch (repeatable)',
    }),
    all_validators: leaf(z.boolean(), {
      kind: 'boolean',
      ...flag('watch.all-validators'),
      defaultText: 'off',
      describe: 'Export every current primary-network validator',
      docs: 'export every current primary-network validator',
    }),
    subnet_ids: leaf(z.array(subnetIdSchema), {
      kind: 'list',
      ...flag('watch.subnet-id'),
      defaultText: 'none',
      describe: 'Subnet / L1 id whose validators and chains to watch, repeatable',
      docs: 'subnets / L1s whose validators and chains to watch (repeatable)',
    }),
    max_validators: leaf(positiveInt('a whole number'), {
      kind: 'number',
      ...flag('watch.max-validators'),
      default: String(D.DEFAULT_MAX_VALIDATORS),
      describe: 'Most validators exported per node and subnet',
      docs: 'most validators exported per node and subnet: watched ones first, then the heaviest; the rest are counted in `avax_exporter_validators_omitted` and logged once',
    }),
    /** L1 validation ids looked up one by one with platform.getL1Validator. */
    validation_ids: leaf(z.array(validationIdSchema), {
      kind: 'list',
      ...flag('watch.validation-id'),
      defaultText: 'none',
      describe: 'L1 validation id to look up with platform.getL1Validator (balance, runway), repeatable',
      docs: 'L1 validation ids to look up with `platform.getL1Validator` every round (repeatable): balance and runway of a validator whose L1 is not watched, and `avax_l1_validation_found 0` once the P-Chain no longer knows it; an error or an invalid answer about one id gives `avax_l1_validation_lookup_success 0` for that id only',
    }),
  };
}

const nodes = list('the nodes to poll, each with its own name (the `node` label), request headers and watch list; `--node.url` replaces the list', {
  name: leaf(
    z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII'),
    { kind: 'string', defaultText: 'host:port of its URL', describe: 'the `node` label of its series; unique' },
  ),
  url: leaf(baseUrl, {
    kind: 'string',
    required: true,
    flag: 'node.url',
    default: D.DEFAULT_NODE_URL,
    describe: 'AvalancheGo API base URL, repeatable',
    docs: "AvalancheGo API base URL (`http://host:9650`, or a proxy's URL up to where `/ext/…` would begin); repeat for several nodes. `user:password@` becomes Basic auth and is never shown",
    secret: `its password (or a user name alone: a token) as \`${REDACTED}\``,
  }),
  headers: leaf(
    z.record(
      headerName,
      z.string().refine((v) => v !== REDACTED, REDACTED_MESSAGE),
    ),
    {
      kind: 'mapping',
      defaultText: 'none',
      describe: 'request headers sent to the node (`name: value`)',
      secret: `the values of ${ALWAYS_SECRET} and of those in secret_headers as \`${REDACTED}\``,
    },
  ),
  /** Header names whose values are secrets (never logged or shown). Authorization is always secret. */
  secret_headers: leaf(z.array(headerName), {
    kind: 'list',
    defaultText: 'none',
    describe: `names of headers whose values are secrets, never logged or shown (${ALWAYS_SECRET} always are)`,
  }),
  watch: section('what to watch on this node: the keys of `watch`, each overriding the global one', watchKeys(false), 'watch'),
});

const addresses = list(
  'wallets whose balance keeps something running (see [Wallet balances](#wallet-balances))',
  {
    alias: leaf(
      z
        .string()
        .min(1, 'must not be empty')
        .max(64, 'must be at most 64 characters')
        .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII'),
      {
        kind: 'string',
        required: true,
        describe: 'the `alias` label: what the wallet is for (printable ASCII, unique)',
      },
    ),
    chain: leaf(addressChainSchema, { kind: 'string', required: true, describe: '`P`, `C`, or the blockchain id of an EVM L1' }),
    address: leaf(z.string(), {
      kind: 'string',
      required: true,
      describe: '`P-avax1…`/`P-fuji1…` on the P-Chain (bech32 checksum verified), `0x` and 40 hex digits elsewhere',
    }),
    floor_avax: leaf(
      z
        .number({ error: 'must be a number' })
        .refine((v) => Number.isFinite(v) && v > 0, 'must be a number greater than zero (leave floor_avax out to watch the balance without an alert)'),
      { kind: 'number', defaultText: 'none (no alert)', describe: 'balance in whole tokens under which the alerts fire' },
    ),
    /** The configured node whose `/ext/bc/<chain>/rpc` answers `eth_getBalance`; default the first node. */
    rpc_node: leaf(z.string().min(1), {
      kind: 'string',
      defaultText: 'the first node',
      describe: 'the node (by name) asked for a C-Chain or L1 balance; not for P-Chain addresses',
    }),
  },
  { refineEntry: refineAddressEntry, refineList: refineAddressList },
);

/** Every setting, by YAML path. */
export const SETTINGS = {
  web: section('the web server', {
    listen_address: leaf(listenAddress, {
      kind: 'string',
      flag: 'web.listen-address',
      default: `:${D.DEFAULT_PORT}`,
      describe: 'Address to listen on',
      docs: 'address to listen on. 9785 is in the exporter port range and is not 9090 (Prometheus) or 9650/9651 (AvalancheGo)',
    }),
    telemetry_path: leaf(z.string().regex(/^\/[\x21-\x7e]*$/, 'must be a path starting with /'), {
      kind: 'string',
      flag: 'web.telemetry-path',
      default: D.DEFAULT_TELEMETRY_PATH,
      describe: 'Path of the metrics endpoint',
      docs: 'path of the metrics',
    }),
    config_file: leaf(z.string().min(1), {
      kind: 'string',
      flag: 'web.config.file',
      defaultText: 'none',
      describe: 'Web config (TLS, basic auth, headers) in the Prometheus exporter-toolkit format',
      docs: 'TLS, client certificates, basic auth and response headers, in the Prometheus exporter-toolkit format (see [Security](security.md))',
    }),
    enable_lifecycle: leaf(z.boolean(), {
      kind: 'boolean',
      flag: 'web.enable-lifecycle',
      defaultText: 'off',
      describe: 'Reload the configuration on POST /-/reload',
      docs: 'answer `POST /-/reload`',
    }),
  }),
  poll: section('how often and how long nodes are polled', {
    interval: leaf(positiveDuration, {
      kind: 'duration',
      flag: 'poll.interval',
      default: w(D.DEFAULT_POLL_INTERVAL_MS),
      describe: 'Time between two polls of a node',
      docs: "time between two rounds of a node (with ±5 % jitter; rounds never overlap). Nodes started together begin their first rounds 50 ms apart (closer for a fleet, so all begin within half an interval), so a fleet never holds every node's answers in memory at once; a fleet that fills that half moves its later rounds, up to half an interval at a time, until they come evenly over the whole interval",
    }),
    timeout: leaf(positiveDuration, {
      kind: 'duration',
      flag: 'poll.timeout',
      default: w(D.DEFAULT_POLL_TIMEOUT_MS),
      describe: 'Deadline of one poll, retries included',
      docs: 'deadline of one round, retries included; at most the interval. Time the exporter itself could not run does not count: when its event loop was busy for 90 % of the timeout, the deadline moves one timeout on, twice at most (`avax_exporter_poll_deadline_extensions_total`)',
    }),
    max_age: leaf(positiveDuration, {
      kind: 'duration',
      flag: 'poll.max-age',
      defaultText: '3 × interval',
      describe: "Age after which a failed source's series are dropped",
      docs: "age after which a failed source's series are dropped (a source asked less often, like `info.peers`, keeps its value that much longer while its node answers; the Data API's, at least 3 of its intervals)",
    }),
    /** How often info.peers is asked (0: every round). */
    peers_interval: leaf(duration, {
      kind: 'duration',
      flag: 'poll.peers-interval',
      default: w(D.DEFAULT_PEERS_INTERVAL_MS),
      describe: 'Least time between two info.peers calls to a node, 0s for every round',
      docs: 'least time between two `info.peers` calls to a node (`0s`: every round); a failed call is retried the next round',
    }),
  }),
  watch: section('what to watch on every node (and on probe-only targets)', watchKeys(true)),
  nodes,
  log: section('logging', {
    level: leaf(z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], { error: 'must be trace, debug, info, warn, error, fatal or silent' }), {
      kind: 'string',
      flag: 'log.level',
      default: D.DEFAULT_LOG_LEVEL,
      describe: 'trace, debug, info, warn, error',
      docs: '`trace`, `debug`, `info`, `warn`, `error`',
    }),
    format: leaf(z.enum(['json', 'pretty'], { error: 'must be json or pretty' }), {
      kind: 'string',
      flag: 'log.format',
      default: D.DEFAULT_LOG_FORMAT,
      describe: 'json or pretty',
      docs: '`json` or `pretty`',
    }),
  }),
  data_api: section('the Avalanche Data API (see [data-api.md](data-api.md)); every key is optional', {
    enabled: leaf(z.boolean(), {
      kind: 'boolean',
      flag: 'data-api.enabled',
      defaultText: 'on',
      describe: 'Poll the Avalanche Data API (--data-api.enabled=false turns it off)',
      docs: 'poll the Avalanche Data API (`--data-api.enabled=false` turns it off)',
    }),
    url: leaf(dataApiUrl, {
      kind: 'string',
      flag: 'data-api.url',
      default: D.DEFAULT_DATA_API_URL,
      describe: 'Data API base URL',
      docs: 'Data API base URL (`https://glacier-api.avax.network` serves the same API)',
      secret: `its password (or a user name alone: a token) as \`${REDACTED}\``,
    }),
    network: leaf(z.enum(['mainnet', 'fuji', 'testnet'], { error: 'must be mainnet, fuji or testnet' }), {
      kind: 'string',
      flag: 'data-api.network',
      defaultText: "the nodes' network",
      describe: 'mainnet, fuji or testnet',
      docs: '`mainnet`, `fuji` or `testnet`',
    }),
    key: leaf(z.never({ error: `the API key is not read from the configuration; give it in ${D.DATA_API_KEY_ENV} or in a file named by key_file` }), {
      kind: 'string',
      env: D.DATA_API_KEY_ENV,
      defaultText: 'none',
      describe: `the Data API key: only in ${D.DATA_API_KEY_ENV} or the file of key_file, never in the YAML file or a flag (its value would show in ps)`,
      secret: `no value: its key_file, or a comment naming ${D.DATA_API_KEY_ENV}`,
    }),
    key_file: leaf(z.string().min(1), {
      kind: 'string',
      flag: 'data-api.key-file',
      defaultText: 'none',
      describe: `File holding the Data API key (or set ${D.DATA_API_KEY_ENV})`,
      docs: `file holding the Data API key; or set \`${D.DATA_API_KEY_ENV}\` (there is no flag for the key itself)`,
    }),
    key_header: leaf(headerName, {
      kind: 'string',
      flag: 'data-api.key-header',
      default: D.DEFAULT_DATA_API_KEY_HEADER,
      describe: 'Header that carries the key',
      docs: 'header that carries the key',
    }),
    rate_limit: leaf(
      positiveNumber('a number of requests per minute').refine((v) => v <= 100_000, 'must be at most 100000 requests per minute'),
      {
        kind: 'number',
        flag: 'data-api.rate-limit',
        default: String(D.DEFAULT_DATA_API_RATE_LIMIT),
        describe: 'Data API requests per minute, at most',
        docs: 'Data API requests per minute, at most',
      },
    ),
    interval: leaf(positiveDuration, {
      kind: 'duration',
      flag: 'data-api.interval',
      default: w(D.DEFAULT_DATA_API_INTERVAL_MS),
      describe: 'Time between two Data API rounds',
      docs: 'time between two Data API rounds; longer when a round needs more requests than `data_api.rate_limit` gives in 90 % of it ([data-api.md](data-api.md))',
    }),
    max_pages: leaf(
      positiveInt('a whole number').refine((v) => v <= 1000, 'must be at most 1000'),
      {
        kind: 'number',
        flag: 'data-api.max-pages',
        default: String(D.DEFAULT_DATA_API_MAX_PAGES),
        describe: 'Most pages one Data API listing fetches',
        docs: 'most pages one Data API listing fetches',
      },
    ),
  }),
  probe: section('`/probe`: the URLs beyond the configured nodes it may poll, and how many at once (see [Many nodes](probe-and-sharding.md))', {
    targets: leaf(z.array(baseUrl), {
      kind: 'list',
      flag: 'probe.target',
      defaultText: 'none',
      describe: 'URL that /probe?target= may poll besides the configured nodes, repeatable',
      docs: 'URL that `/probe?target=` may poll besides the configured nodes (repeatable; see [Many nodes](probe-and-sharding.md))',
      secret: `its password (or a user name alone: a token) as \`${REDACTED}\``,
    }),
    max_targets: leaf(
      positiveInt('a whole number').refine((v) => v <= 10_000, 'must be at most 10000'),
      {
        kind: 'number',
        flag: 'probe.max-targets',
        default: String(D.DEFAULT_PROBE_MAX_TARGETS),
        describe: 'Most probe-only URLs polled at once',
        docs: 'most such URLs polled at once',
      },
    ),
    idle_timeout: leaf(positiveDuration, {
      kind: 'duration',
      flag: 'probe.idle-timeout',
      defaultText: `${w(D.DEFAULT_PROBE_IDLE_TIMEOUT_MS)} (at least 4 poll intervals)`,
      describe: 'Time after which a probe-only URL not probed is dropped',
      docs: 'such a URL not probed for this long is dropped with its state',
    }),
  }),
  /** Wallets whose balance keeps things running (fee payers, relayers); see addresses.ts. */
  addresses,
  demo: leaf(z.boolean(), {
    kind: 'boolean',
    flag: 'demo',
    defaultText: 'off',
    describe: 'Start a built-in simulated node and poll it',
    docs: 'start a built-in simulated node and a simulated Data API, and poll them',
  }),
};

/** A flag that steers the command rather than setting a value of the configuration. */
export interface CommandFlag {
  flag: string;
  kind: 'string' | 'boolean';
  /** Not read from a variable (`--help`, `--version`). */
  noEnv?: true;
  defaultText?: string;
  describe: string;
  docs: string;
}

/** The flags that set no value of the configuration, in `--help` order after the settings'. */
export const COMMAND_FLAGS: readonly CommandFlag[] = [
  { flag: 'config.file', kind: 'string', defaultText: 'none', describe: 'YAML configuration file', docs: 'YAML file (below)' },
  {
    flag: 'config.check',
    kind: 'boolean',
    describe: 'Validate the configuration, print it (a file --config.file reads back) and exit',
    docs: 'validate the configuration, print it as a file `--config.file` reads back with secrets redacted (see Validation), exit 0 (or 2); node ids, subnet, blockchain and validation ids and P-Chain addresses are checked with their CB58 / bech32 checksum, so a typo is an error naming the id, not a validator that reads as absent',
  },
  {
    flag: 'version',
    kind: 'boolean',
    noEnv: true,
    describe: 'Print the version (and the build revision when known) and exit',
    docs: 'print the version (and the revision the build was made from, when known: the Docker image knows it) and exit',
  },
  { flag: 'help', kind: 'boolean', noEnv: true, describe: 'Show help', docs: 'list the flags and exit' },
];
