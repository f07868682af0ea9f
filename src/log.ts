import { pino, type Logger, type DestinationStream } from 'pino';

/** Header names whose values are secrets wherever they appear (the Data API key headers of the service and of its spec). */
const SECRET_HEADERS = ['authorization', 'Authorization', 'x-glacier-api-key', 'x-service-api-key'];

/** The redact paths of a header name: in a `headers` object at the top level or one level down. */
function headerPaths(name: string): string[] {
  return [`headers[${JSON.stringify(name)}]`, `*.headers[${JSON.stringify(name)}]`];
}

/** Paths pino blanks in every log line: secrets never reach the logs even if a caller passes them. */
export const REDACT_PATHS = [...SECRET_HEADERS.flatMap(headerPaths), 'apiKey', '*.apiKey', 'password', '*.password', 'dataApi.key', '*.dataApi.key'];

/**
 * Creates the daemon's logger: JSON lines by default, pino-pretty when asked.
 * `secretHeaders` adds header names to redact (a configured Data API key header).
 */
export function createLogger(opts: { level: string; format: 'json' | 'pretty'; destination?: DestinationStream; secretHeaders?: readonly string[] }): Logger {
  const extra = (opts.secretHeaders ?? []).filter((h) => !SECRET_HEADERS.includes(h)).flatMap((h) => [...headerPaths(h), ...headerPaths(h.toLowerCase())]);
  const base = {
    level: opts.level,
    base: { service: 'avax-exporter' },
    redact: { paths: [...new Set([...REDACT_PATHS, ...extra])], censor: '<secret>' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.destination) return pino(base, opts.destination);
  if (opts.format === 'pretty') {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: process.stdout.isTTY, translateTime: 'SYS:standard' } } });
  }
  return pino(base);
}

export type { Logger };
