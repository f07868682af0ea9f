import { z } from 'zod';
import { parseDuration } from './duration.js';
import { addressesSchema } from './addresses.js';
import { idProblem, nodeIdProblem, type IdKind } from './ids.js';

/**
 * The configuration schema. Flags, environment variables and the YAML file are
 * merged into this raw shape (snake_case keys, as in the file) and validated
 * once; unknown keys are errors so a typo never silently does nothing.
 */

const duration = z.string().transform((s, ctx) => {
  const ms = parseDuration(s);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `must be a duration like 15s, 2m or 1h30m (got "${s}")` });
    return z.NEVER;
  }
  return ms;
});

const positiveDuration = duration.refine((ms) => ms > 0, 'must be greater than zero');

const httpUrl = z
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
        ctx.addIssue({ code: 'custom', message: `the ${part} in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)` });
      }
    }
  });

/** A node id as AvalancheGo prints it, checksum and length checked (ids.ts). */
export const nodeIdSchema = z.string().superRefine((s, ctx) => {
  const problem = nodeIdProblem(s);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A CB58 id of 32 bytes (subnet, blockchain, validation id), checksum and length checked (ids.ts). */
function cb58Id(kind: IdKind) {
  return z.string().superRefine((s, ctx) => {
    const problem = idProblem(s, kind);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
/** A subnet / L1 id. */
export const subnetIdSchema = cb58Id('subnet id');
/** An L1 validation id. */
export const validationIdSchema = cb58Id('validation id');

const watchSchema = z.strictObject({
  node_ids: z.array(nodeIdSchema).optional(),
  all_validators: z.boolean().optional(),
  subnet_ids: z.array(subnetIdSchema).optional(),
  max_validators: z.number().int().positive().optional(),
  /** L1 validation ids looked up one by one with platform.getL1Validator. */
  validation_ids: z.array(validationIdSchema).optional(),
});

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

const nodeSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
    .optional(),
  url: httpUrl,
  headers: z.record(headerName, z.string()).optional(),
  /** Header names whose values are secrets (never logged or shown). Authorization is always secret. */
  secret_headers: z.array(headerName).optional(),
  watch: watchSchema.optional(),
});

/** A positive number, written as a number in YAML or as a decimal string in a flag or variable. */
const positiveNumber = z
  .union(
    [
      z.number(),
      z
        .string()
        .trim()
        .regex(/^\d+(\.\d+)?$/)
        .transform(Number),
    ],
    { error: 'must be a number' },
  )
  .refine((v) => Number.isFinite(v) && v > 0, 'must be a number greater than zero');

const positiveInt = positiveNumber.refine((v) => Number.isInteger(v), 'must be a whole number');

/** The Data API section. The key itself has no key here: it is a secret, read from a file or the environment only. */
const dataApiSchema = z.strictObject({
  enabled: z.boolean().optional(),
  url: httpUrl.optional(),
  network: z.enum(['mainnet', 'fuji', 'testnet'], { error: 'must be mainnet, fuji or testnet' }).optional(),
  key: z.never({ error: 'the API key is not read from the configuration; give it in AVAX_EXPORTER_DATA_API_KEY or in a file named by key_file' }).optional(),
  key_file: z.string().min(1).optional(),
  key_header: headerName.optional(),
  rate_limit: positiveNumber.refine((v) => v <= 100_000, 'must be at most 100000 requests per minute').optional(),
  interval: positiveDuration.optional(),
  max_pages: positiveInt.refine((v) => v <= 1000, 'must be at most 1000').optional(),
});

/** A node API base URL: no query or fragment, which a probe target could never match. */
const baseUrl = httpUrl.refine((s) => !s.includes('?') && !s.includes('#'), 'must be a base URL without a query or fragment');

/** `/probe`: the URLs beyond the configured nodes it may poll, and how many at once (see src/probe/). */
const probeSchema = z.strictObject({
  targets: z.array(baseUrl).optional(),
  max_targets: positiveInt.refine((v) => v <= 10_000, 'must be at most 10000').optional(),
  idle_timeout: positiveDuration.optional(),
});

const listenAddress = z.string().refine((s) => parseListenAddress(s) !== undefined, 'must be host:port or :port');

/** The raw (file-shaped) configuration accepted from any input. */
export const rawConfigSchema = z.strictObject({
  web: z
    .strictObject({
      listen_address: listenAddress.optional(),
      telemetry_path: z
        .string()
        .regex(/^\/[\x21-\x7e]*$/, 'must be a path starting with /')
        .optional(),
      config_file: z.string().min(1).optional(),
      enable_lifecycle: z.boolean().optional(),
    })
    .optional(),
  poll: z
    .strictObject({
      interval: positiveDuration.optional(),
      timeout: positiveDuration.optional(),
      max_age: positiveDuration.optional(),
      /** How often info.peers is asked (0: every round). */
      peers_interval: duration.optional(),
    })
    .optional(),
  watch: watchSchema.optional(),
  nodes: z.array(nodeSchema).optional(),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
      format: z.enum(['json', 'pretty']).optional(),
    })
    .optional(),
  data_api: dataApiSchema.optional(),
  probe: probeSchema.optional(),
  /** Wallets whose balance keeps things running (fee payers, relayers); see addresses.ts. */
  addresses: addressesSchema.optional(),
  demo: z.boolean().optional(),
});

/** Splits a listen address (`:9785`, `127.0.0.1:9785`, `[::1]:9785`) into host and port. */
export function parseListenAddress(s: string): { host: string | undefined; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  const host = m[1] ?? (m[2] === '' ? undefined : m[2]);
  return { host, port };
}
