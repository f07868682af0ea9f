import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The reference exchanges, inside the checkout (test/fixtures/reference/README.md says where each comes from). */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/reference/', import.meta.url));

/** One reference exchange. */
export interface FixtureExchange {
  request: { httpMethod: string; path: string; headers: Record<string, string>; body: unknown; query?: Record<string, unknown> };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

/** A fixture file, or one of its variants by name. */
export function loadFixture(file: string, variant?: string): FixtureExchange {
  const doc = JSON.parse(readFileSync(resolve(FIXTURE_DIR, file), 'utf8')) as FixtureExchange & { variants?: (FixtureExchange & { name: string })[] };
  if (variant === undefined) return doc;
  const v = doc.variants?.find((x) => x.name === variant);
  if (!v) throw new Error(`no variant ${variant} in ${file}`);
  return v;
}

/** The JSON-RPC `result` of a fixture's response body. */
export function fixtureResult(file: string, variant?: string): unknown {
  return (loadFixture(file, variant).response.body as { result: unknown }).result;
}
