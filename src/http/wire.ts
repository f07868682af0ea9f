import { z } from 'zod';

/**
 * Zod building blocks for AvalancheGo's wire conventions: 64-bit integers as
 * decimal strings, percentages as decimal strings, hex quantities. Anything
 * that does not match fails validation, so a strange value becomes an
 * `invalid_response` failure rather than a wrong number.
 */

const MAX_UINT64 = (1n << 64n) - 1n;

/** A json.Uint64/Uint32 value: a decimal string (at most 2^64-1), as a bigint. */
export const uintString = z
  .string()
  .regex(/^\d{1,20}$/, 'expected an unsigned decimal integer string')
  .transform((s, ctx) => {
    const v = BigInt(s);
    if (v > MAX_UINT64) {
      ctx.addIssue({ code: 'custom', message: 'integer exceeds uint64' });
      return z.NEVER;
    }
    return v;
  });

/** A small decimal-string integer (network id, peer count, uptime percent), as a number. */
export const smallUintString = z
  .string()
  .regex(/^\d{1,15}$/, 'expected an unsigned decimal integer string')
  .transform((s) => Number(s));

/** A percentage 0..100 sent as a decimal string ("99.8712"), as a ratio 0..1. */
export const percentStringAsRatio = z
  .string()
  .regex(/^\d{1,3}(\.\d+)?$/, 'expected a decimal percentage string')
  .transform((s) => Number(s))
  .refine((v) => v >= 0 && v <= 100, 'percentage outside 0..100')
  .transform((v) => v / 100);

/**
 * Where the node interface's specification and real answers disagree. The
 * specification (docs/service.md signatures) declares `info.getNetworkID`'s
 * `networkID` and `info.peers`' `numPeers` integers and `info.uptime`'s
 * percentages float64, while AvalancheGo sends them through its json.Uint32 /
 * json.Float64 wrappers (utils/json/uint32.go, float64.go), i.e. as quoted
 * strings. Both forms are accepted; anything else (a negative, a fraction
 * where an integer is due, `"NaN"`, an exponent) is still rejected.
 */

/** A small unsigned integer sent as a decimal string ("5") or a JSON number (5), as a number. */
export const smallUint = z.union([smallUintString, z.number().refine((v) => Number.isSafeInteger(v) && v >= 0 && v < 1e15, 'expected an unsigned integer')], {
  error: 'expected an unsigned integer (decimal string or number)',
});

/** A percentage 0..100 sent as a decimal string ("99.7214") or a JSON number (99.7214), as a ratio 0..1. */
export const percentAsRatio = z.union(
  [
    percentStringAsRatio,
    z
      .number()
      .refine((v) => Number.isFinite(v) && v >= 0 && v <= 100, 'percentage outside 0..100')
      .transform((v) => v / 100),
  ],
  { error: 'expected a percentage 0..100 (decimal string or number)' },
);

/** A `0x` hex quantity (geth), as a bigint. */
export const hexQuantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, 'expected a 0x hex quantity')
  .transform((s) => BigInt(s));

/** A finite JSON number. */
export const finiteNumber = z.number().refine(Number.isFinite, 'expected a finite number');

/** Converts nAVAX (bigint) to AVAX without losing the integer part's precision. */
export function navaxToAvax(navax: bigint): number {
  const whole = navax / 1_000_000_000n;
  const frac = navax % 1_000_000_000n;
  return Number(whole) + Number(frac) / 1e9;
}

/** Flattens zod issues into one readable line: `path: message; ...` (first few). */
export function describeIssues(err: z.ZodError, limit = 3): string {
  const parts = err.issues.slice(0, limit).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  if (err.issues.length > limit) parts.push(`and ${err.issues.length - limit} more`);
  return parts.join('; ');
}
