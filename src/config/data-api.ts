import { readFileSync } from 'node:fs';
import type { RawConfig } from './schema.js';
import type { WatchedAddress } from './addresses.js';
import { writeDuration } from './duration.js';
import { slowPollerMaxAgeMs } from './max-age.js';
import {
  DATA_API_KEY_ENV,
  DEFAULT_DATA_API_INTERVAL_MS,
  DEFAULT_DATA_API_KEY_HEADER,
  DEFAULT_DATA_API_MAX_PAGES,
  DEFAULT_DATA_API_RATE_LIMIT,
  DEFAULT_DATA_API_URL,
} from './defaults.js';
import { REDACTED, redactUrlText } from './problems.js';

// The `data_api` section: what the configuration knows of the Avalanche Data API, its defaults and rules,
// and how --config.check prints it. It imports nothing of the Data API client (which imports it).

export { DEFAULT_DATA_API_KEY_HEADER, DEFAULT_DATA_API_URL };

/** The `network` path value of the Data API. */
export const DATA_API_NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
/** A network the Data API serves. */
export type DataApiNetwork = (typeof DATA_API_NETWORKS)[number];

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
  /** Longest wait for one answer: the poll timeout, at most the interval (a round may wait longer for its rate-limit slots: dataApiRoundMs). */
  timeoutMs: number;
  /** Age after which its series are dropped: the poll max age, at least three of its intervals (max-age.ts). */
  maxAgeMs: number;
  /** Most pages one listing fetches. */
  maxPages: number;
  /** P-Chain addresses whose balance is asked for (`addresses` on chain P); absent when none. */
  addresses?: WatchedAddress[];
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

/** What the section needs of the rest of the configuration. */
export interface DataApiContext {
  /** Whether any node is polled (configured or the demo's): then there is something to ask about. */
  polling: boolean;
  pollTimeoutMs: number;
  pollMaxAgeMs: number;
  /** Where the key may come from. */
  env: NodeJS.ProcessEnv;
}

/** Applies the section's defaults and rules (the key read from its file or variable); problems are appended to `problems`. */
export function finalizeDataApi(raw: RawConfig['data_api'], ctx: DataApiContext, problems: string[]): DataApiConfig {
  const d = raw ?? {};
  const intervalMs = d.interval ?? DEFAULT_DATA_API_INTERVAL_MS;
  return {
    // There is something to watch whenever a node is polled: at least its own id and the chains' heads.
    enabled: d.enabled ?? ctx.polling,
    url: d.url?.replace(/\/+$/, ''),
    network: d.network,
    key: readDataApiKey(d.key_file, ctx.env, problems),
    keyFile: d.key_file,
    keyHeader: (d.key_header ?? DEFAULT_DATA_API_KEY_HEADER).toLowerCase(),
    rateLimitPerMinute: d.rate_limit ?? DEFAULT_DATA_API_RATE_LIMIT,
    intervalMs,
    timeoutMs: Math.min(ctx.pollTimeoutMs, intervalMs),
    maxAgeMs: slowPollerMaxAgeMs(ctx.pollMaxAgeMs, intervalMs),
    maxPages: d.max_pages ?? DEFAULT_DATA_API_MAX_PAGES,
  };
}

/** The section as `--config.check` prints it: unset keys left out, the key never (named as its file, or in the notes). */
export function printDataApi(c: DataApiConfig): Record<string, unknown> {
  return {
    enabled: c.enabled,
    url: c.url !== undefined ? redactUrlText(c.url) : undefined,
    network: c.network,
    key_file: c.keyFile,
    key_header: c.keyHeader,
    rate_limit: c.rateLimitPerMinute,
    interval: writeDuration(c.intervalMs),
    max_pages: c.maxPages,
  };
}

/** The comments `--config.check` puts above key_header: what applies to the settings left unset, and where the key comes from. */
export function dataApiNotes(c: DataApiConfig, demo: boolean): string[] {
  const notes: string[] = [];
  if (c.url === undefined) notes.push(`url is not set: ${demo ? 'the built-in demo Data API' : `the public service, ${DEFAULT_DATA_API_URL}`}`);
  if (c.network === undefined) notes.push("network is not set: the polled nodes' network");
  if (c.key !== undefined && c.keyFile === undefined) notes.push(`the API key: ${REDACTED}, from ${DATA_API_KEY_ENV}`);
  else if (c.key === undefined) notes.push(`no API key (set ${DATA_API_KEY_ENV} or key_file for a higher rate limit)`);
  return notes;
}
