import { createRequire } from 'node:module';
import { pino, type Logger, type DestinationStream } from 'pino';

type PrettyFactory = (typeof import('pino-pretty'))['prettyFactory'];

/** pino-pretty's formatter once loaded: only a daemon that logs in the pretty format holds pino-pretty (about 0.5 MB). */
let prettyFactory: PrettyFactory | undefined;

/**
 * Loads pino-pretty for the pretty log format. The CLI awaits it before
 * {@link createLogger} when that format is asked for: an `import()` is what the
 * single executable's bundle can resolve (it has no node_modules to require from).
 */
export async function loadPrettyFormat(): Promise<void> {
  prettyFactory ??= (await import('pino-pretty')).prettyFactory;
}

/** The pretty formatter: the one {@link loadPrettyFormat} loaded, else pino-pretty required now (from node_modules). */
function prettyFormatter(): PrettyFactory {
  prettyFactory ??= (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).prettyFactory;
  return prettyFactory;
}

/** Header names whose values are secrets wherever they appear (the Data API key headers of the service and of its spec). */
const SECRET_HEADERS = ['authorization', 'Authorization', 'x-glacier-api-key', 'x-service-api-key'];

/** The redact paths of a header name: in a `headers` object at the top level or one level down. */
function headerPaths(name: string): string[] {
  return [`headers[${JSON.stringify(name)}]`, `*.headers[${JSON.stringify(name)}]`];
}

/** Paths pino blanks in every log line: secrets never reach the logs even if a caller passes them. */
export const REDACT_PATHS = [...SECRET_HEADERS.flatMap(headerPaths), 'apiKey', '*.apiKey', 'password', '*.password', 'dataApi.key', '*.dataApi.key'];

/**
 * Creates the daemon's logger: JSON lines by default, pino-pretty's format when asked.
 * `destination` receives the lines (standard output when not given); `secretHeaders` adds header
 * names to redact (a configured Data API key header).
 */
export function createLogger(opts: { level: string; format: 'json' | 'pretty'; destination?: DestinationStream; secretHeaders?: readonly string[] }): Logger {
  const extra = (opts.secretHeaders ?? []).filter((h) => !SECRET_HEADERS.includes(h)).flatMap((h) => [...headerPaths(h), ...headerPaths(h.toLowerCase())]);
  const base = {
    level: opts.level,
    base: { service: 'avax-exporter' },
    redact: { paths: [...new Set([...REDACT_PATHS, ...extra])], censor: '<secret>' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.format === 'pretty') {
    // pino-pretty's formatter run in this thread, line by line, into a synchronous destination: not its
    // transport, a worker thread that loads pino-pretty by file path, which the single executable (a
    // bundle without node_modules) cannot do. Same options as the transport had; an undefined `colorize`
    // (no TTY) leaves pino-pretty's own colour detection, as the transport's JSON-encoded options did.
    const prettify = prettyFormatter()({ translateTime: 'SYS:standard', ...(process.stdout.isTTY ? { colorize: true } : {}) });
    const out = opts.destination ?? pino.destination({ dest: 1, sync: true });
    return pino(base, { write: (line: string) => void out.write(prettify(line)) });
  }
  return opts.destination ? pino(base, opts.destination) : pino(base);
}

export type { Logger };
