import { ConfigError } from '../../src/config/load.js';

/** The problems a configuration error lists; fails when `fn` does not throw a ConfigError. */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
