import type { RawConfig } from './schema.js';
import { DEFAULT_LOG_FORMAT, DEFAULT_LOG_LEVEL } from './defaults.js';

/** The `log` section. */
export interface LogConfig {
  level: string;
  format: 'json' | 'pretty';
}

/** Applies the section's defaults. */
export function finalizeLog(raw: RawConfig['log']): LogConfig {
  return { level: raw?.level ?? DEFAULT_LOG_LEVEL, format: raw?.format ?? DEFAULT_LOG_FORMAT };
}

/** The section as `--config.check` prints it. */
export function printLog(c: LogConfig): Record<string, unknown> {
  return { level: c.level, format: c.format };
}
