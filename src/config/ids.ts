import { createHash } from 'node:crypto';

/**
 * Avalanche identifiers checked as AvalancheGo checks them, so a typo in a
 * configured id is a start-up error (exit 2, with the path and the id) rather
 * than a validator that silently reads as absent. Pure.
 *
 * CB58, as in avalanchego `utils/formatting/encoding.go` (EncodeWithChecksum /
 * Decode) and `utils/formatting/cb58.go`: the payload followed by the last 4
 * bytes of sha256(payload) (`hashing.Checksum(b, 4)`), all in Bitcoin's base58
 * alphabet; decoding fails with "invalid input checksum" when those 4 bytes do
 * not match. Lengths from avalanchego `ids/id.go` (an ID is 32 bytes: tx,
 * subnet, blockchain and validation ids) and `ids/node_id.go` (`NodeID-` +
 * a ShortID, 20 bytes; NodeIDFromString is ShortFromPrefixedString).
 *
 * P-Chain addresses, as in avalanchego `utils/formatting/address/address.go`
 * (Parse: `<chain>-<bech32>`, ParseBech32: bech32 with its checksum, then 5 to
 * 8 bits): a 20-byte short id; the human-readable part is the network's, from
 * `utils/constants/network_ids.go` (avax, fuji, local, and custom for any
 * other network id).
 */

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_INDEX = new Map<string, number>([...B58].map((c, i) => [c, i]));

/** Bytes of an ID (ids.ID). */
export const ID_LEN = 32;
/** Bytes of a node id or an address (ids.ShortID). */
export const SHORT_ID_LEN = 20;
/** The prefix of a node id as AvalancheGo prints it (ids.NodeIDPrefix). */
export const NODE_ID_PREFIX = 'NodeID-';

/** Why a string is not a CB58 value. */
export type Cb58Failure = 'empty' | 'alphabet' | 'checksum';

/** The payload of a CB58 string, or why it is not one. */
export type Cb58Result = { ok: true; bytes: Uint8Array } | { ok: false; why: Cb58Failure; char?: string; size?: number };

/** Decodes CB58 and verifies its 4-byte checksum. */
export function decodeCb58(s: string): Cb58Result {
  if (s === '') return { ok: false, why: 'empty' };
  let n = 0n;
  for (const c of s) {
    const i = B58_INDEX.get(c);
    if (i === undefined) return { ok: false, why: 'alphabet', char: c };
    n = n * 58n + BigInt(i);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  // Each leading '1' is a leading zero byte (base58's convention).
  for (const c of s) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  if (bytes.length < 4) return { ok: false, why: 'checksum', size: bytes.length };
  const full = Uint8Array.from(bytes);
  const payload = full.subarray(0, full.length - 4);
  const sum = createHash('sha256').update(payload).digest().subarray(28);
  for (let i = 0; i < 4; i++) if (full[full.length - 4 + i] !== sum[i]) return { ok: false, why: 'checksum', size: full.length };
  return { ok: true, bytes: payload };
}

/** The kinds of 32-byte id the configuration holds, as named in error messages. */
export type IdKind = 'subnet id' | 'blockchain id' | 'validation id';

/**
 * Why a CB58 string is not the `what` it should be, whose payload holds
 * `payloadBytes` bytes. A string of the wrong length fails the checksum too,
 * but is told its length: a copy cut short (or run on) is not a typo.
 */
function cb58Problem(s: string, r: Cb58Result & { ok: false }, what: string, payloadBytes: number, shown = s): string {
  if (r.why === 'empty') return `must be a ${what}, got an empty string`;
  if (r.why === 'alphabet') return `"${shown}" is not a ${what}: ${JSON.stringify(r.char)} is not a base58 character (0, O, I and l never appear in CB58)`;
  const size = r.size ?? 0;
  if (size !== payloadBytes + 4) {
    // The usual length of such a string: the payload and its 4 checksum bytes in base58 digits (one fewer when the first byte is small).
    const usual = Math.ceil(((payloadBytes + 4) * 8) / Math.log2(58));
    const short = size < payloadBytes + 4;
    const n = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
    const chars = `${n(s.length, 'character')}${shown !== s ? ` after ${NODE_ID_PREFIX}` : ''}`;
    return `"${shown}" is not a ${what}: it is too ${short ? 'short' : 'long'} (${chars} holding ${n(size, 'byte')}; a ${what} is ${payloadBytes} bytes and a 4-byte checksum, usually ${
      usual - 1
    } or ${usual} characters${shown !== s ? ` after ${NODE_ID_PREFIX}` : ''}): ${short ? 'cut short' : 'run on'} when copied?`;
  }
  return `"${shown}" is not a valid ${what}: its checksum does not match (a character mistyped, or one lost or added when copied?)`;
}

/**
 * Why `s` is not a CB58 id of 32 bytes (subnet, blockchain, validation id),
 * or undefined when it is one. The message names the value.
 */
export function idProblem(s: string, kind: IdKind): string | undefined {
  if (s.startsWith(NODE_ID_PREFIX)) return `"${s}" is a node id, not a ${kind}`;
  const r = decodeCb58(s);
  if (!r.ok) return cb58Problem(s, r, kind, ID_LEN);
  if (r.bytes.length !== ID_LEN) {
    const hint = r.bytes.length === SHORT_ID_LEN ? ` (a node id without its ${NODE_ID_PREFIX} prefix?)` : '';
    return `"${s}" is not a ${kind}: it holds ${r.bytes.length} bytes, an id holds ${ID_LEN}${hint}`;
  }
  return undefined;
}

/** Why `s` is not a node id (`NodeID-` + CB58 of 20 bytes), or undefined when it is one. */
export function nodeIdProblem(s: string): string | undefined {
  if (!s.startsWith(NODE_ID_PREFIX)) return `"${s}" is not a node id: it must start with ${NODE_ID_PREFIX} (like NodeID-5mb46qkSBj81k9g9e4VFjGGSbaaSLFRzD)`;
  const body = s.slice(NODE_ID_PREFIX.length);
  const r = decodeCb58(body);
  if (!r.ok) return cb58Problem(body, r, 'node id', SHORT_ID_LEN, s);
  if (r.bytes.length !== SHORT_ID_LEN) {
    const hint = r.bytes.length === ID_LEN ? ' (a subnet, blockchain or validation id?)' : '';
    return `"${s}" is not a node id: it holds ${r.bytes.length} bytes, a node id holds ${SHORT_ID_LEN}${hint}`;
  }
  return undefined;
}

/** The network of each P-Chain address prefix (avalanchego utils/constants/network_ids.go). */
export const P_ADDRESS_HRPS = ['avax', 'fuji', 'local', 'custom'] as const;
/** One P-Chain address prefix. */
export type PAddressHrp = (typeof P_ADDRESS_HRPS)[number];

/** A checked P-Chain address: its human-readable part. */
export type PAddressResult = { ok: true; hrp: PAddressHrp } | { ok: false; problem: string };

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;

function bech32Polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= BECH32_GENERATORS[i] as number;
  }
  return chk;
}

/**
 * Whether `s` is a bech32 string (lower case) with a valid checksum. A typo in
 * a configured address is then a start-up error rather than a wallet that
 * silently reads as empty.
 */
export function isValidBech32(s: string): boolean {
  const sep = s.lastIndexOf('1');
  if (sep < 1 || s.length - sep - 1 < 6 || s !== s.toLowerCase()) return false;
  const hrp = s.slice(0, sep);
  const data: number[] = [];
  for (const c of s.slice(sep + 1)) {
    const v = BECH32_CHARSET.indexOf(c);
    if (v === -1) return false;
    data.push(v);
  }
  const expanded = [...hrp]
    .map((c) => c.charCodeAt(0) >> 5)
    .concat(
      [0],
      [...hrp].map((c) => c.charCodeAt(0) & 31),
    );
  return bech32Polymod([...expanded, ...data]) === 1;
}

const BECH32_DATA = /^[02-9ac-hj-np-z]+$/;

/**
 * Checks a P-Chain address: `P-` + bech32 (lower case) with a known network
 * prefix, a valid checksum and a 20-byte payload (32 five-bit characters,
 * then 6 of checksum).
 */
export function checkPAddress(s: string): PAddressResult {
  const m = /^P-([a-z]+)1(.*)$/.exec(s);
  if (!m) {
    const hint = /^[XC]-/.test(s)
      ? ' (an X- or C-Chain address: P-Chain balances need the P- form)'
      : /^0x[0-9a-fA-F]{40}$/.test(s)
        ? ' (an EVM address: its chain is C or an L1 blockchain id)'
        : /^p-/i.test(s) && s !== s.toLowerCase()
          ? ' (bech32 addresses are lower case)'
          : '';
    return { ok: false, problem: `"${s}" is not a P-Chain address: expected P-avax1…, P-fuji1…, P-local1… or P-custom1…${hint}` };
  }
  const hrp = m[1] as string;
  const data = m[2] as string;
  if (!(P_ADDRESS_HRPS as readonly string[]).includes(hrp)) {
    return { ok: false, problem: `"${s}" is not a P-Chain address: "${hrp}" is not a network prefix (avax, fuji, local or custom)` };
  }
  if (!BECH32_DATA.test(data)) {
    return { ok: false, problem: `"${s}" is not a P-Chain address: bech32 uses neither 1, b, i nor o after the separator` };
  }
  if (!isValidBech32(s.slice(2)))
    return { ok: false, problem: `"${s}" is not a valid P-Chain address: its checksum does not match (a typo or a truncated copy?)` };
  if (data.length !== 32 + 6)
    return {
      ok: false,
      problem: `"${s}" is not a P-Chain address: it holds ${Math.floor(((data.length - 6) * 5) / 8)} bytes, an address holds ${SHORT_ID_LEN}`,
    };
  return { ok: true, hrp: hrp as PAddressHrp };
}
