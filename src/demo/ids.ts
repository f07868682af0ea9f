/**
 * Avalanche IDs and seeded randomness for the demo world: CB58 (base58 with a 4-byte sha256
 * checksum, the encoding of every Avalanche ID), a small seeded PRNG, and random or derived IDs.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { decodeCb58 } from '../config/ids.js';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function checksum(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest().subarray(28);
}

/** CB58-encodes bytes (appends the last 4 bytes of their sha256). */
export function cb58Encode(bytes: Uint8Array): string {
  const full = new Uint8Array(bytes.length + 4);
  full.set(bytes);
  full.set(checksum(bytes), bytes.length);
  // Byte-wise base conversion into a preallocated digit buffer: far cheaper than BigInt
  // arithmetic, which matters when generating thousands of IDs.
  const digits = new Uint8Array(Math.ceil(full.length * 1.37) + 1);
  let len = 0;
  for (let k = 0; k < full.length; k++) {
    let carry = full[k] as number;
    for (let i = 0; i < len; i++) {
      carry += (digits[i] as number) << 8;
      digits[i] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits[len++] = carry % 58;
      carry = (carry / 58) | 0;
    }
  }
  let out = '';
  for (let k = 0; k < full.length && full[k] === 0; k++) out += '1';
  for (let i = len - 1; i >= 0; i--) out += B58[digits[i] as number];
  return out;
}

/** Decodes CB58 and verifies the checksum; undefined when the string is not valid CB58 (the configuration's decoder). */
export function cb58Decode(s: string): Uint8Array | undefined {
  const r = decodeCb58(s);
  return r.ok ? r.bytes : undefined;
}

/** True for a CB58 32-byte ID (tx, blockchain, subnet, validation IDs). */
export function isCb58Id(s: string): boolean {
  return cb58Decode(s)?.length === 32;
}

/** True for `NodeID-` + CB58 of 20 bytes. */
export function isCb58NodeId(s: string): boolean {
  return s.startsWith('NodeID-') && cb58Decode(s.slice('NodeID-'.length))?.length === 20;
}

// ---------------------------------------------------------------------------------------------
// Seeded PRNG
// ---------------------------------------------------------------------------------------------

/** A deterministic PRNG (mulberry32) returning floats in [0, 1). */
export type Prng = () => number;

/** Creates a mulberry32 PRNG: small, fast and good enough for simulated data. */
export function createPrng(seed: number): Prng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBytes(rng: Prng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * 256);
  return out;
}

export function randomHex(rng: Prng, n: number): string {
  return `0x${Buffer.from(randomBytes(rng, n)).toString('hex')}`;
}

export function randInt(rng: Prng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** A bech32-looking P-Chain address (the checksum is not real, the format is). */
export function randomAddress(rng: Prng, hrp = 'avax'): string {
  let s = `P-${hrp}1`;
  for (let i = 0; i < 38; i++) s += BECH32[Math.floor(rng() * 32)];
  return s;
}

/** A random, valid CB58 node ID. */
export function randomNodeId(rng: Prng): string {
  return `NodeID-${cb58Encode(randomBytes(rng, 20))}`;
}

/** A random, valid CB58 32-byte ID. */
export function randomId(rng: Prng): string {
  return cb58Encode(randomBytes(rng, 32));
}

/** A valid CB58 32-byte ID derived from a string, so derived objects are deterministic and distinct. */
export function idFrom(seed: string): string {
  return cb58Encode(createHash('sha256').update(seed).digest());
}
