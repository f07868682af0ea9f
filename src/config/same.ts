/**
 * Whether two parts of a configuration say the same, setting for setting. A
 * configuration is plain data (strings, numbers, booleans, lists, records, in
 * the order load.ts builds them), so its JSON compares it; a reload keeps what
 * this finds unchanged.
 */
export function sameSettings(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
