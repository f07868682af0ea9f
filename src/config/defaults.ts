/**
 * The settings' defaults, as numbers and strings the section modules apply and
 * the table of settings (settings.ts) shows in `--help` and
 * docs/configuration.md. A leaf module: both import it, neither the other.
 */

/** Default port: 9785, in the exporter range 9100-9999 (not 9090, 9650 or 9651). */
export const DEFAULT_PORT = 9785;
/** Default path of the metrics endpoint. */
export const DEFAULT_TELEMETRY_PATH = '/metrics';
/** Default AvalancheGo API address. */
export const DEFAULT_NODE_URL = 'http://127.0.0.1:9650';
/** Default cap on validators exported per node and subnet: above mainnet's primary set, below what would hurt a Prometheus. */
export const DEFAULT_MAX_VALIDATORS = 5_000;
/** The environment variable the Data API key is read from (there is deliberately no flag: flags show up in `ps`). */
export const DATA_API_KEY_ENV = 'AVAX_EXPORTER_DATA_API_KEY';
/** Default poll interval of a node. */
export const DEFAULT_POLL_INTERVAL_MS = 15_000;
/** Default deadline of one round (at most the interval). */
export const DEFAULT_POLL_TIMEOUT_MS = 10_000;
/** Default least time between two info.peers calls to a node. */
export const DEFAULT_PEERS_INTERVAL_MS = 60_000;
/** The public Avalanche Data API. */
export const DEFAULT_DATA_API_URL = 'https://data-api.avax.network';
/**
 * The header the public service reads the API key from. The written spec
 * names `x-service-api-key`; the deployed service (and its docs) use this one.
 */
export const DEFAULT_DATA_API_KEY_HEADER = 'x-glacier-api-key';
/** Default client-side limit, requests per minute: modest enough for a user without a key. */
export const DEFAULT_DATA_API_RATE_LIMIT = 60;
/** Default poll interval of the Data API: it is an indexer, slower-moving than a node, and shared. */
export const DEFAULT_DATA_API_INTERVAL_MS = 60_000;
/** Default bound on the pages one Data API listing may fetch. */
export const DEFAULT_DATA_API_MAX_PAGES = 10;
/** Default cap on allow-listed URLs polled for `/probe` at the same time. */
export const DEFAULT_PROBE_MAX_TARGETS = 100;
/** Default time a probe-only target is kept without being probed: long enough to outlast a slow scrape interval. */
export const DEFAULT_PROBE_IDLE_TIMEOUT_MS = 5 * 60_000;
/** Default log level and format. */
export const DEFAULT_LOG_LEVEL = 'info';
export const DEFAULT_LOG_FORMAT = 'json';
/** The headers whose values are secrets whatever `secret_headers` says. */
export const ALWAYS_SECRET_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie'];
