/**
 * Hand-written readers for platform.getCurrentValidators entries: the fast
 * path in front of the zod schemas (validatorSchema, stakeEntrySchema).
 *
 * zod costs 4 to 13 µs per entry (warm to typical), up to ~25 ms per round
 * for mainnet's 1,800 validators: the largest single item of a round's CPU.
 * These readers (~0.6 µs per entry) do the same checks with plain
 * comparisons and give exactly what the schema (and toRecord) would, or
 * undefined for anything they are not sure of; the caller then runs zod,
 * which accepts the entry after all or produces its usual error message. So
 * they only have to be right when they accept: every failure, and every
 * error text, stays zod's. test/validator-entry.test.ts checks the
 * equivalence on thousands of mutated entries.
 *
 * The wire rules mirrored (src/http/wire.ts):
 * - uintString: /^\d{1,20}$/ (ASCII digits only), then BigInt, at most 2^64-1;
 * - percentStringAsRatio: /^\d{1,3}(\.\d+)?$/, Number, 0..100, then / 100;
 * - z.string().min(1): a string of at least one code point (any non-empty string);
 * - z.object: extra keys are ignored; an optional key may be missing or
 *   undefined (not null); the input must be an object that is not an array.
 */
import type { ValidatorRecord } from './value.js';

/** 2^64-1 in decimal: a 20-digit string is a uint64 when it sorts at or below it (same length, so string order is number order). */
const MAX_UINT64_DIGITS = '18446744073709551615';

/** Up to this many digits an integer is below 10^15 < 2^53: accumulated digit by digit in a double, it stays exact. */
const EXACT_DIGITS = 15;

/** {@link scanUint}: uintString rejects the value. */
const BAD = -1;
/** {@link scanUint}: a valid uint of more than EXACT_DIGITS digits, to convert through BigInt. */
const LONG = -2;
/** {@link scanOptUint}: undefined (or missing), which an optional uintString accepts. */
const ABSENT = -3;

/**
 * Whether `raw` is a plain object (as JSON.parse makes). zod takes any
 * non-array object, class instances too; those are left to zod rather than
 * reasoned about (getters, odd prototypes), so the fast path only ever sees
 * the shape it was written for.
 */
function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && Object.getPrototypeOf(raw) === Object.prototype;
}

/**
 * uintString's check and conversion in one pass over the characters (the
 * regex, then BigInt(s), cost several times more, ~10 times per entry):
 * the value itself when it has at most EXACT_DIGITS digits (exact as a
 * number), LONG for a longer valid one, BAD for anything uintString rejects:
 * not a string, empty, over 20 digits, a non-ASCII-digit character (\d is
 * ASCII only without the u flag), above 2^64-1.
 */
function scanUint(v: unknown): number {
  if (typeof v !== 'string') return BAD;
  const n = v.length;
  if (n === 0 || n > 20) return BAD;
  let x = 0;
  for (let i = 0; i < n; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return BAD;
    x = x * 10 + d;
  }
  if (n <= EXACT_DIGITS) return x;
  return n < 20 || v <= MAX_UINT64_DIGITS ? LONG : BAD;
}

/** {@link scanUint} for an optional uintString: ABSENT for undefined. */
function scanOptUint(v: unknown): number {
  return v === undefined ? ABSENT : scanUint(v);
}

/** The bigint uintString gives for a value `scanUint` scanned as `code` (not BAD or ABSENT). */
function bigOf(code: number, v: unknown): bigint {
  return code >= 0 ? BigInt(code) : BigInt(v as string);
}

/** Number(BigInt(s)), as toRecord computes it, for a value `scanUint` scanned as `code` (not BAD or ABSENT). */
function numberOf(code: number, v: unknown): number {
  return code >= 0 ? code : Number(BigInt(v as string));
}

/** Powers of ten up to 10^15, all exact doubles. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * percentStringAsRatio's value for `v`: undefined for undefined, NaN when it
 * rejects `v` (NaN is never a value it gives). It accepts what
 * /^\d{1,3}(\.\d+)?$/ matches and Number(s) puts in 0..100, and gives
 * Number(s) / 100.
 *
 * Number(s) is computed without parsing the string again when it has at
 * most EXACT_DIGITS digits ("99.8712", always so on the wire): as the
 * integer of its digits (exact, under 2^53) divided by 10^decimals (exact):
 * IEEE division rounds the exact quotient, the same rational number
 * Number(s) rounds, so the double is the same bit for bit. Longer strings
 * go through Number(s).
 */
function optPercentRatio(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return NaN;
  const n = v.length;
  let i = 0;
  let m = 0;
  // 1..3 integer digits.
  for (; i < n && i < 3; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    m = m * 10 + d;
  }
  if (i === 0) return NaN;
  let decimals = 0;
  if (i < n) {
    // Then only a dot and at least one digit.
    if (v.charCodeAt(i) !== 46 /* . */ || i + 1 === n) return NaN;
    for (i++; i < n; i++) {
      const d = v.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return NaN;
      m = m * 10 + d;
      decimals++;
    }
  }
  const pct = n - (decimals > 0 ? 1 : 0) <= EXACT_DIGITS ? m / (POW10[decimals] as number) : Number(v);
  return pct >= 0 && pct <= 100 ? pct / 100 : NaN;
}

/**
 * Reads one platform.getCurrentValidators entry as the validators source
 * keeps it: exactly `toRecord(validatorSchema.parse(raw))` when it returns a
 * value (same keys, in the same order, so records share one shape), or
 * undefined when `raw` is not a plain, valid entry, to let zod decide and
 * word the error.
 */
export function readValidatorEntry(raw: unknown): ValidatorRecord | undefined {
  if (!isPlainObject(raw)) return undefined;
  // Every key the schema knows is read and checked, used or not (txID is
  // only validated): an entry zod rejects must not get through here.
  const nodeID = raw['nodeID'];
  if (typeof nodeID !== 'string' || nodeID.length === 0) return undefined;
  const txID = raw['txID'];
  const validationID = raw['validationID'];
  const connected = raw['connected'];
  if (txID !== undefined && typeof txID !== 'string') return undefined;
  if (validationID !== undefined && typeof validationID !== 'string') return undefined;
  if (connected !== undefined && typeof connected !== 'boolean') return undefined;
  const weight = raw['weight'];
  const startTime = raw['startTime'];
  const endTime = raw['endTime'];
  const balance = raw['balance'];
  const potentialReward = raw['potentialReward'];
  const delegatorCount = raw['delegatorCount'];
  const delegatorWeight = raw['delegatorWeight'];
  const weightCode = scanUint(weight);
  const startTimeCode = scanUint(startTime);
  const endTimeCode = scanOptUint(endTime);
  const balanceCode = scanOptUint(balance);
  const potentialRewardCode = scanOptUint(potentialReward);
  const delegatorCountCode = scanOptUint(delegatorCount);
  const delegatorWeightCode = scanOptUint(delegatorWeight);
  const nextPeriod = raw['nextPeriod'];
  const autoCompoundRewardShares = raw['autoCompoundRewardShares'];
  const nextPeriodCode = scanOptUint(nextPeriod);
  const sharesCode = scanOptUint(autoCompoundRewardShares);
  if (nextPeriodCode === BAD || sharesCode === BAD) return undefined;
  if (weightCode === BAD || startTimeCode === BAD || endTimeCode === BAD || balanceCode === BAD) return undefined;
  if (potentialRewardCode === BAD || delegatorCountCode === BAD || delegatorWeightCode === BAD) return undefined;
  const delegationFeeRatio = optPercentRatio(raw['delegationFee']);
  const uptimeRatio = optPercentRatio(raw['uptime']);
  // NaN marks a rejected percentage (Number.isNaN(undefined) is false).
  if (Number.isNaN(delegationFeeRatio) || Number.isNaN(uptimeRatio)) return undefined;
  // Keys and order as toRecord builds them.
  return {
    nodeId: nodeID,
    weight: bigOf(weightCode, weight),
    startTime: numberOf(startTimeCode, startTime),
    endTime: endTimeCode === ABSENT ? undefined : numberOf(endTimeCode, endTime),
    validationId: validationID,
    balance: balanceCode === ABSENT ? undefined : bigOf(balanceCode, balance),
    potentialReward: potentialRewardCode === ABSENT ? undefined : bigOf(potentialRewardCode, potentialReward),
    delegationFeeRatio,
    uptimeRatio,
    connected,
    delegatorCount: delegatorCountCode === ABSENT ? undefined : numberOf(delegatorCountCode, delegatorCount),
    delegatorWeight: delegatorWeightCode === ABSENT ? undefined : bigOf(delegatorWeightCode, delegatorWeight),
    nextPeriod: nextPeriodCode === ABSENT ? undefined : numberOf(nextPeriodCode, nextPeriod),
    autoCompoundRewardShares: sharesCode === ABSENT ? undefined : numberOf(sharesCode, autoCompoundRewardShares),
  };
}

/**
 * A validated stakeEntrySchema entry (src/sources/peers/index.ts; as zod
 * gives it: `delegatorWeight` is a key only when the input has it).
 */
export interface StakeEntry {
  nodeID: string;
  weight: bigint;
  delegatorWeight?: bigint | undefined;
}

/**
 * Reads one platform.getCurrentValidators entry for the stake map: exactly
 * `stakeEntrySchema.parse(raw)` when it returns a value, or undefined to let
 * zod decide. Like zod's output, `delegatorWeight` is a key only when the
 * input has that key (then possibly undefined).
 */
export function readStakeEntry(raw: unknown): StakeEntry | undefined {
  if (!isPlainObject(raw)) return undefined;
  const nodeID = raw['nodeID'];
  const weight = raw['weight'];
  const delegatorWeight = raw['delegatorWeight'];
  const weightCode = scanUint(weight);
  const delegatorWeightCode = scanOptUint(delegatorWeight);
  if (typeof nodeID !== 'string' || nodeID.length === 0 || weightCode === BAD || delegatorWeightCode === BAD) return undefined;
  if (!('delegatorWeight' in raw)) return { nodeID, weight: bigOf(weightCode, weight) };
  return {
    nodeID,
    weight: bigOf(weightCode, weight),
    delegatorWeight: delegatorWeightCode === ABSENT ? undefined : bigOf(delegatorWeightCode, delegatorWeight),
  };
}
