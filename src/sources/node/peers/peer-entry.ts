/**
 * A hand-written reader for info.peers entries, in front of the zod schema
 * (peerSchema in index.ts), as validator-entry.ts is for the validators:
 * 2,000 peers through zod cost a few ms every round. It gives exactly what
 * `peerSchema.parse(raw)` gives (the same keys, in the schema's order, each
 * present only when the input has it), or undefined for anything it is not
 * sure of; zod then decides, and words any rejection. peers.test.ts checks
 * the equivalence on many mutated entries.
 *
 * The rules mirrored: nodeID and version strings; benched an array of
 * strings, null or undefined; observedUptime a decimal string (/^\d{1,15}$/)
 * of at most 100, or undefined; upgradeTime kept when a non-negative safe integer
 * number, undefined for anything else (its schema's `.catch`).
 */
import { bytesAre, digitsValue, isEmptyArray, isNumberToken, objectFields, plainString } from '../../../http/json-bytes.js';

/** A validated info.peers entry, as zod gives it. */
export interface PeerEntryRead {
  nodeID: string;
  version: string;
  benched?: string[] | null | undefined;
  observedUptime?: number | undefined;
  upgradeTime?: number | undefined;
}

/** The value of a valid observedUptime string (at most 3 ASCII digits here: "0" to "100"), else NaN; undefined stays undefined. */
function uptimeOf(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > 3) return NaN;
  let x = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    x = x * 10 + c;
  }
  return x <= 100 ? x : NaN;
}

/** Distinct strings {@link interned} keeps at most (mainnet has about 2,000 peers and a few versions); past it, it starts again. */
const MAX_INTERNED = 16_384;

const internedStrings = new Map<string, string>();

/**
 * The one kept copy of a string equal to `s`. The entries of an info.peers
 * answer live until its last batch is read, across the answer's yields, so
 * young-generation collections promote what they hold; the node ids and
 * versions are the same in every answer (and, in a fleet, every node's), so
 * an entry holds the kept copy and the one just parsed dies young.
 */
export function interned(s: string): string {
  const kept = internedStrings.get(s);
  if (kept !== undefined) return kept;
  if (internedStrings.size >= MAX_INTERNED) internedStrings.clear();
  internedStrings.set(s, s);
  return s;
}

/**
 * The `benched` of every entry benched nowhere (98 % of mainnet's peers): one
 * frozen array, not a new empty one per entry, since an answer's entries live
 * across its batches' yields (see {@link interned}). Nothing writes to an
 * entry's list; frozen, a write would throw rather than change every entry.
 */
const BENCHED_NOWHERE = Object.freeze([]) as unknown as string[];

/** Reads one info.peers entry: exactly `peerSchema.parse(raw)` when it returns a value, or undefined to let zod decide. */
export function readPeerEntry(raw: unknown): PeerEntryRead | undefined {
  if (typeof raw !== 'object' || raw === null || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  const r = raw as Record<string, unknown>;
  const nodeID = r['nodeID'];
  const version = r['version'];
  if (typeof nodeID !== 'string' || typeof version !== 'string') return undefined;
  const out: PeerEntryRead = { nodeID: interned(nodeID), version: interned(version) };
  if ('benched' in r) {
    const b = r['benched'];
    if (b === null || b === undefined) out.benched = b;
    else {
      if (!Array.isArray(b)) return undefined;
      for (const c of b) if (typeof c !== 'string') return undefined;
      out.benched = b.length === 0 ? BENCHED_NOWHERE : (b.slice() as string[]);
    }
  }
  if ('observedUptime' in r) {
    const u = uptimeOf(r['observedUptime']);
    if (Number.isNaN(u)) return undefined;
    out.observedUptime = u;
  }
  if ('upgradeTime' in r) {
    const t = r['upgradeTime'];
    out.upgradeTime = typeof t === 'number' && Number.isSafeInteger(t) && t >= 0 ? t : undefined;
  }
  return out;
}

const NODE_ID = 1;
const VERSION = 2;
const BENCHED = 4;
const OBSERVED_UPTIME = 8;
const UPGRADE_TIME = 16;

/** Which of the fields readPeerEntry reads the key from `ks` to `ke` is (a bit of its own each), 0 for any other. */
function fieldBit(b: Buffer, ks: number, ke: number): number {
  switch (ke - ks) {
    case 6:
      return bytesAre(b, ks, ke, 'nodeID') ? NODE_ID : 0;
    case 7:
      return bytesAre(b, ks, ke, 'version') ? VERSION : bytesAre(b, ks, ke, 'benched') ? BENCHED : 0;
    case 14:
      return bytesAre(b, ks, ke, 'observedUptime') ? OBSERVED_UPTIME : 0;
    case 11:
      return bytesAre(b, ks, ke, 'upgradeTime') ? UPGRADE_TIME : 0;
    default:
      return 0;
  }
}

/** Field offsets, reused by every call of {@link readPeerEntryBytes} (it keeps none across calls). */
const fields: number[] = [];

/**
 * {@link readPeerEntry} on the entry's bytes (`body` from `start` to `end`),
 * without parsing it: the keys it reads are decoded, the others only checked
 * to JSON's grammar (json-bytes.ts), so an answer's dozen other fields per
 * peer (addresses, times, subnet and ACP lists) are never built. Exactly
 * `readPeerEntry(JSON.parse(text))` when it returns a value; undefined, for
 * the entry to be parsed the usual way, whenever the bytes are not valid
 * JSON or hold anything it does not read itself: a key given twice, an
 * escape or a non-ASCII byte in a string it reads, a non-empty `benched`,
 * an `observedUptime` other than one to three digits.
 */
export function readPeerEntryBytes(body: Buffer, start: number, end: number): PeerEntryRead | undefined {
  const count = objectFields(body, start, end, fields);
  if (count < 0) return undefined;
  let nodeID: string | undefined;
  let version: string | undefined;
  let seen = 0;
  let benched: string[] | null | undefined;
  let observedUptime: number | undefined;
  let upgradeTime: number | undefined;
  for (let f = 0; f < 4 * count; f += 4) {
    const bit = fieldBit(body, fields[f] as number, fields[f + 1] as number);
    if (bit === 0) continue;
    // A key given twice: JSON.parse keeps the last; rare enough to leave to it.
    if (seen & bit) return undefined;
    seen |= bit;
    const vs = fields[f + 2] as number;
    const ve = fields[f + 3] as number;
    if (bit === NODE_ID) {
      nodeID = plainString(body, vs, ve);
      if (nodeID === undefined) return undefined;
    } else if (bit === VERSION) {
      version = plainString(body, vs, ve);
      if (version === undefined) return undefined;
    } else if (bit === BENCHED) {
      if (isEmptyArray(body, vs, ve)) benched = BENCHED_NOWHERE;
      else if (bytesAre(body, vs, ve, 'null')) benched = null;
      else return undefined;
    } else if (bit === OBSERVED_UPTIME) {
      // A string of one to three digits, as uptimeOf takes; anything else is left to the full parse.
      const u = body[vs] === 0x22 && ve - vs <= 5 ? digitsValue(body, vs + 1, ve - 1) : -1;
      if (u < 0 || u > 100) return undefined;
      observedUptime = u;
    } else {
      // A plain integer's digits are its value; any other number goes through Number(), whose grammar
      // includes JSON's and which gives the same double JSON.parse does.
      let t = isNumberToken(body, vs) ? digitsValue(body, vs, ve) : undefined;
      if (t === -1) t = Number(body.toString('latin1', vs, ve));
      upgradeTime = t !== undefined && Number.isSafeInteger(t) && t >= 0 ? t : undefined;
    }
  }
  if (nodeID === undefined || version === undefined) return undefined;
  const out: PeerEntryRead = { nodeID: interned(nodeID), version: interned(version) };
  if (seen & BENCHED) out.benched = benched;
  if (seen & OBSERVED_UPTIME) out.observedUptime = observedUptime;
  if (seen & UPGRADE_TIME) out.upgradeTime = upgradeTime;
  return out;
}
