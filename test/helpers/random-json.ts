/** Random JSON values for tests of the byte-level JSON readers (src/http/json-array-split.ts, json-bytes.ts). */

const KEYS = ['', 'plain', 'br[ack]{et}', 'co,mma:colon', 'ünï ✓ 𝄞', 'tab\tnl\n'];

/** A random JSON value with awkward strings (escapes, quotes, brackets, multi-byte UTF-8). */
export function randomJsonValue(rng: () => number, depth: number): unknown {
  const r = rng();
  const strings = ['', 'plain', 'q"uote', 'back\\slash', 'br[ack]{et}', 'co,mma:colon', 'ünï ✓ 𝄞', '\\"', 'tab\tnl\n', '\\\\'];
  if (depth > 3 || r < 0.3) return strings[Math.floor(rng() * strings.length)];
  if (r < 0.45) return Math.floor(rng() * 1e6) / 100;
  if (r < 0.5) return [true, false, null][Math.floor(rng() * 3)];
  if (r < 0.75) return Array.from({ length: Math.floor(rng() * 4) }, () => randomJsonValue(rng, depth + 1));
  const o: Record<string, unknown> = {};
  // Keys without backslashes: Node 24's JSON.parse (V8 13.6) misreads an escaped key that follows an
  // escaped string value of the same length (JSON.parse('["\\\\\\\\",{"\\\\\\"":2}]') gives the key `\\\\`,
  // not `\\"`), which this test would report as ours. Values keep every escape.
  for (let i = 0; i < Math.floor(rng() * 4); i++) o[KEYS[Math.floor(rng() * KEYS.length)] as string] = randomJsonValue(rng, depth + 1);
  return o;
}
