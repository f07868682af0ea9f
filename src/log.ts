import { pino, type Logger, type DestinationStream } from 'pino';

/** Paths pino blanks in every log line: secrets never reach the logs even if a caller passes them. */
export const REDACT_PATHS = [
  'headers.authorization',
  'headers.Authorization',
  'headers["x-glacier-api-key"]',
  'headers["x-service-api-key"]',
  '*.headers.authorization',
  '*.headers.Authorization',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
];

/** Creates the daemon's logger: JSON lines by default, pino-pretty when asked. */
export function createLogger(opts: { level: string; format: 'json' | 'pretty'; destination?: DestinationStream }): Logger {
  const base = {
    level: opts.level,
    base: { service: 'avax-exporter' },
    redact: { paths: REDACT_PATHS, censor: '<secret>' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.destination) return pino(base, opts.destination);
  if (opts.format === 'pretty') {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: process.stdout.isTTY, translateTime: 'SYS:standard' } } });
  }
  return pino(base);
}

export type { Logger };
