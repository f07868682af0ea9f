import { z } from 'zod';
import { parseDuration } from './duration.js';
import { idProblem, nodeIdProblem, type IdKind } from './ids.js';
import { REDACTED, type ValueShown } from './problems.js';

/**
 * The schemas of the configuration's values (a duration, a URL, an id, a
 * number greater than zero, …), from which the table of settings
 * (settings.ts) declares each setting's.
 */

/** How a duration is written, said in every message about one. */
const DURATION_FORM = 'a duration like 15s, 2m or 1h30m';

/**
 * A duration: a string with units. A bare number (YAML `interval: 15`, or
 * `--poll.interval=15`) is refused with the unit it most likely lacks, never
 * read as milliseconds or seconds by guess.
 */
export const duration = z.unknown().transform((v, ctx) => {
  const bare = typeof v === 'number' || (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) && v.trim() !== '0');
  if (bare) {
    ctx.addIssue({ code: 'custom', message: `has no unit: write ${String(v).trim()}s for ${String(v).trim()} seconds (${DURATION_FORM})` });
    return z.NEVER;
  }
  const ms = typeof v === 'string' ? parseDuration(v) : undefined;
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `must be ${DURATION_FORM}` });
    return z.NEVER;
  }
  return ms;
});

export const positiveDuration = duration.refine((ms) => ms > 0, 'must be greater than zero (a duration like 15s)');

export const httpUrl = z
  .string()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL')
  .superRefine((s, ctx) => {
    // The exporter sends URL credentials as a Basic Authorization header, decoded: a stray % would
    // make that fail at start-up or on every poll. Said here, once, without echoing the value.
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      return;
    }
    for (const [part, value] of [
      ['user name', u.username],
      ['password', u.password],
    ] as const) {
      try {
        decodeURIComponent(value);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: `the ${part} in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)`,
          params: { value: 'hidden' } satisfies ValueShown,
        });
      }
    }
    if (decodeOrRaw(u.password) === REDACTED || (u.password === '' && decodeOrRaw(u.username) === REDACTED)) {
      ctx.addIssue({ code: 'custom', message: REDACTED_MESSAGE });
    }
  });

function decodeOrRaw(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What a `<redacted>` placeholder (from --config.check's output) read back as a value is told. */
export const REDACTED_MESSAGE = `holds ${REDACTED}, which --config.check prints in place of a secret: write the secret back (or give it in a file or variable)`;

/**
 * The part of a URL's path that makes it something other than an AvalancheGo
 * base URL: an API's own path (`/ext/bc/C/rpc`, `/ext/info`; the exporter adds
 * those itself), or a query or fragment. A path before `/ext` stays (a proxy's
 * prefix or a provider's token). Undefined for a base URL.
 */
export function nonBasePart(s: string): string | undefined {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  const ext = /\/ext(\/|$)/.exec(u.pathname);
  if (ext) return `${u.pathname.slice(ext.index)}${u.search}${u.hash}`;
  if (u.search !== '' || u.hash !== '' || s.includes('?') || s.includes('#')) return `${u.search}${u.hash}` || s.slice(s.search(/[?#]/));
  return undefined;
}

/** An AvalancheGo base URL: http(s), and nothing of an API's path, a query or a fragment (which probe targets could never match either). */
export const baseUrl = httpUrl.superRefine((s, ctx) => {
  const part = nonBasePart(s);
  if (part === undefined) return;
  const api = part.startsWith('/ext');
  ctx.addIssue({
    code: 'custom',
    message: api
      ? `is the URL of one AvalancheGo API, not the node's base URL: remove "${part}" (the exporter adds /ext/info, /ext/health, /ext/bc/… itself)`
      : `must be a base URL without a query or fragment: remove "${part}"`,
  });
});

/** A node id as AvalancheGo prints it, checksum and length checked (ids.ts). */
export const nodeIdSchema = z.string().superRefine((s, ctx) => {
  const problem = nodeIdProblem(s);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { value: 'named' } satisfies ValueShown });
});

/** A CB58 id of 32 bytes (subnet, blockchain, validation id), checksum and length checked (ids.ts). */
function cb58Id(kind: IdKind) {
  return z.string().superRefine((s, ctx) => {
    const problem = idProblem(s, kind);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { value: 'named' } satisfies ValueShown });
  });
}
/** A subnet / L1 id. */
export const subnetIdSchema = cb58Id('subnet id');
/** An L1 validation id. */
export const validationIdSchema = cb58Id('validation id');

export const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

/**
 * A number greater than zero, written as a number in YAML or as text in a flag
 * or variable (any way JavaScript writes a finite number: `60`, `1.5`, `-5`,
 * `1e3`), so `-5` is told it must be greater than zero, not that it is no number.
 */
export function positiveNumber(what: string, integer = false) {
  const message = `must be ${what} greater than zero`;
  return z.union([z.number(), z.string()], { error: message }).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v.trim());
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return n;
  });
}

export function positiveInt(what: string) {
  return positiveNumber(what, true);
}

/** The Data API's base URL: the client adds /v1/… itself. */
export const dataApiUrl = httpUrl.superRefine((s, ctx) => {
  let path: string;
  try {
    path = new URL(s).pathname;
  } catch {
    return;
  }
  const v1 = /\/v1(\/|$)/.exec(path);
  if (v1) ctx.addIssue({ code: 'custom', message: `must be the Data API's base URL: remove "${path.slice(v1.index)}" (the exporter adds /v1/… itself)` });
});

export const listenAddress = z.string().refine((s) => parseListenAddress(s) !== undefined, 'must be host:port or :port');

/** Splits a listen address (`:9785`, `127.0.0.1:9785`, `[::1]:9785`) into host and port. */
export function parseListenAddress(s: string): { host: string | undefined; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  const host = m[1] ?? (m[2] === '' ? undefined : m[2]);
  return { host, port };
}
