import type { z } from 'zod';
import { SETTINGS } from './settings.js';
import { schemaOf } from './table.js';

/**
 * The schema of the configuration, generated from the table of settings
 * (settings.ts). Flags, environment variables and the YAML file are merged
 * into this raw shape (snake_case keys, as in the file) and validated once;
 * unknown keys are errors so a typo never silently does nothing.
 */
export const rawConfigSchema = schemaOf(SETTINGS);

/** The validated raw (file-shaped) configuration, before defaults. */
export type RawConfig = z.output<typeof rawConfigSchema>;
