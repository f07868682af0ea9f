import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import bcrypt from 'bcryptjs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** Whether a header value holds a control character (tab allowed, as HTTP allows it): CR and LF would split the response. */
function hasControlCharacter(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/**
 * `--web.config.file` in the Prometheus exporter-toolkit format: TLS
 * (optionally mutual), HTTP basic auth with bcrypt hashes, and extra response
 * headers. Paths in the file are relative to the file itself, as in the
 * toolkit.
 */

const CLIENT_AUTH_TYPES = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

const bcryptHash = z.string().regex(/^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/, 'must be a bcrypt hash ($2y$10$...)');

/** Headers the toolkit lets operators set, and that we therefore accept. */
const HEADER_NAME = /^[A-Za-z0-9-]+$/;

const webConfigSchema = z
  .strictObject({
    tls_server_config: z
      .strictObject({
        cert_file: z.string().min(1),
        key_file: z.string().min(1),
        client_ca_file: z.string().min(1).optional(),
        client_auth_type: z.enum(CLIENT_AUTH_TYPES).optional(),
        min_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).optional(),
        max_version: z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).optional(),
      })
      .optional(),
    http_server_config: z
      .strictObject({
        // A CR or LF would end the header early (Node then refuses every response): rejected here, with its path.
        headers: z
          .record(
            z.string().regex(HEADER_NAME, 'must be an HTTP header name'),
            z.string().refine((v) => !hasControlCharacter(v), 'must not contain CR, LF or other control characters'),
          )
          .optional(),
      })
      .optional(),
    basic_auth_users: z.record(z.string().min(1), bcryptHash).optional(),
  })
  .superRefine((c, ctx) => {
    const t = c.tls_server_config;
    const needsCa = t?.client_auth_type === 'VerifyClientCertIfGiven' || t?.client_auth_type === 'RequireAndVerifyClientCert';
    if (t && needsCa && !t.client_ca_file) {
      ctx.addIssue({ code: 'custom', path: ['tls_server_config', 'client_ca_file'], message: `is required with client_auth_type ${t.client_auth_type}` });
    }
    const order = Object.keys(TLS_VERSIONS);
    // min_version defaults to TLS12, so a lone max_version below it is the same mistake.
    const min = t?.min_version ?? 'TLS12';
    if (t?.max_version && order.indexOf(min) > order.indexOf(t.max_version)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tls_server_config', 'min_version'],
        message: `${min}${t.min_version ? '' : ' (the default)'} is above max_version ${t.max_version}`,
      });
    }
  });

/** The validated web configuration, with files read. */
export interface WebConfig {
  /** TLS settings for https.createServer / setSecureContext; undefined for plain HTTP. */
  tls: (SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean; minVersion?: string; maxVersion?: string }) | undefined;
  /** Extra headers on every response. */
  headers: Record<string, string>;
  /** User → bcrypt hash; empty means no authentication. */
  users: Record<string, string>;
  /** Files whose changes should trigger a reload (the config and what it names). */
  files: string[];
}

/** A web config file that cannot be used; every problem with its path. */
export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid web config:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

function readOrFail(path: string, label: string, problems: string[]): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    problems.push(`${label}: cannot read ${path}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Reads and validates a web config file. Throws {@link WebConfigError}. */
export function loadWebConfig(path: string): WebConfig {
  const problems: string[] = [];
  const text = readOrFail(path, 'web.config.file', problems);
  if (!text) throw new WebConfigError(problems);
  let raw: unknown;
  try {
    raw = parseYaml(text.toString('utf8'));
  } catch (err) {
    throw new WebConfigError([`web.config.file: ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
  // An empty file is a file being written (or truncated by mistake), not "no TLS, no auth":
  // taken as such, a reload would open the server. A config without any setting says `{}`.
  if (raw === null || raw === undefined) throw new WebConfigError([`web.config.file: ${path} is empty (write {} for a web config without settings)`]);
  const parsed = webConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new WebConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.code === 'unrecognized_keys' ? `unknown key(s): ${i.keys.join(', ')}` : i.message}`),
    );
  }
  const c = parsed.data;
  const base = dirname(resolve(path));
  const files = [resolve(path)];
  let tls: WebConfig['tls'];
  if (c.tls_server_config) {
    const t = c.tls_server_config;
    const certPath = resolve(base, t.cert_file);
    const keyPath = resolve(base, t.key_file);
    const caPath = t.client_ca_file ? resolve(base, t.client_ca_file) : undefined;
    files.push(certPath, keyPath, ...(caPath ? [caPath] : []));
    const cert = readOrFail(certPath, 'tls_server_config.cert_file', problems);
    const key = readOrFail(keyPath, 'tls_server_config.key_file', problems);
    const ca = caPath ? readOrFail(caPath, 'tls_server_config.client_ca_file', problems) : undefined;
    const type = t.client_auth_type ?? 'NoClientCert';
    // Node verifies a presented certificate against `ca` whenever rejectUnauthorized is set;
    // "any" certificate (no verification) is checked by hand in the request handler.
    tls = {
      cert,
      key,
      ...(ca ? { ca } : {}),
      requestCert: type !== 'NoClientCert',
      rejectUnauthorized: type === 'RequireAndVerifyClientCert',
      minVersion: TLS_VERSIONS[t.min_version ?? 'TLS12'],
      ...(t.max_version ? { maxVersion: TLS_VERSIONS[t.max_version] } : {}),
      clientAuthType: type,
    } as WebConfig['tls'] & { clientAuthType: string };
    if (cert && key && (!caPath || ca)) {
      // What https.createServer would do at start-up (and die on with a stack trace): parse the
      // certificate, the key and the CA, and check that the key is the certificate's.
      try {
        createSecureContext({
          cert,
          key,
          ...(ca ? { ca } : {}),
          ...(tls.minVersion ? { minVersion: tls.minVersion as never } : {}),
          ...(tls.maxVersion ? { maxVersion: tls.maxVersion as never } : {}),
        });
      } catch (err) {
        problems.push(`tls_server_config: cert_file ${certPath}, key_file ${keyPath}${caPath ? `, client_ca_file ${caPath}` : ''}: ${(err as Error).message}`);
      }
    }
  }
  if (problems.length) throw new WebConfigError(problems);
  return { tls, headers: c.http_server_config?.headers ?? {}, users: c.basic_auth_users ?? {}, files };
}

/** The client-certificate policy of a loaded config (for checks the TLS layer cannot do alone). */
export function clientAuthType(config: WebConfig): string {
  return (config.tls as { clientAuthType?: string } | undefined)?.clientAuthType ?? 'NoClientCert';
}

/** Modification times of the config's files, to notice rotation. */
export function fileStamps(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${f}:${s.mtimeMs}:${s.size}`;
      } catch {
        return `${f}:missing`;
      }
    })
    .join('|');
}

/**
 * Checked when the user is unknown, so timing does not reveal which users
 * exist: a cost-10 bcrypt hash of a throwaway password. A constant, not
 * hashed at start-up, because hashing it took ~80 ms of blocked event loop
 * in every process that imported this module, auth configured or not.
 */
export const DUMMY_HASH = '$2b$10$sFHxm6Fh.dRHxvfnDi.v1ul/OSGMUFmolal4G5kUV5Dn7rXRiN.Xe';

/**
 * {@link DUMMY_HASH} at another cost: the cost field is only a parameter of
 * the comparison, so the hash stays one no password matches, and comparing
 * against it costs exactly what a user's hash of that cost costs.
 */
export function dummyHashOfCost(cost: number): string {
  return DUMMY_HASH.replace(/^\$2b\$10\$/, `$2b$${String(cost).padStart(2, '0')}$`);
}

/** Bounds on what basic auth may spend: bcrypt is slow on purpose, so unchecked it is a denial of service. */
export interface BasicAuthLimits {
  /** bcrypt comparisons running at once. */
  concurrency: number;
  /** Comparisons waiting for a slot; a request beyond is answered at once (429), without one. */
  queue: number;
  /** Verified credentials remembered, and for how long. */
  cacheSize: number;
  cacheTtlMs: number;
}

/** Defaults of {@link BasicAuthLimits}: two comparisons at once (the machine may have two cores), eight waiting. */
export const DEFAULT_BASIC_AUTH_LIMITS: BasicAuthLimits = { concurrency: 2, queue: 8, cacheSize: 1_000, cacheTtlMs: 10 * 60_000 };

/** The outcome of a check: `busy` when the comparison queue is full (answer 429, nothing was compared). */
export type AuthResult = 'ok' | 'denied' | 'busy';

/** Per-process key of the verified-credentials cache: its keys reveal nothing without it, and it never leaves memory. */
const CACHE_KEY = randomBytes(32);

/**
 * Checks HTTP basic auth against bcrypt hashes. A successful check is
 * remembered for a while, keyed by an HMAC (random per-process key) of the
 * user, the password and the hash, never the password itself, so a scraper
 * sending the same credentials every 15 s pays one bcrypt comparison, not one
 * per scrape. Comparisons run in a small pool with a short queue: a flood of
 * wrong passwords gets 429 at once instead of queueing CPU work in front of
 * the valid scrapes. Unknown users are compared against a dummy hash of the
 * configured users' cost, so timing does not reveal who exists.
 */
export class BasicAuth {
  readonly #users: Map<string, string>;
  readonly #verified = new Map<string, number>();
  readonly #limits: BasicAuthLimits;
  readonly #dummy: string;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** bcrypt comparisons made (for tests and the curious). */
  comparisons = 0;
  /** Checks answered `busy`. */
  refused = 0;

  constructor(
    users: Record<string, string>,
    private readonly compare: (password: string, hash: string) => Promise<boolean> = (p, h) => bcrypt.compare(p, h),
    limits: Partial<BasicAuthLimits> = {},
  ) {
    this.#users = new Map(Object.entries(users));
    this.#limits = { ...DEFAULT_BASIC_AUTH_LIMITS, ...limits };
    const costs = [...this.#users.values()].map((h) => bcrypt.getRounds(h));
    this.#dummy = costs.length && Math.max(...costs) !== 10 ? dummyHashOfCost(Math.max(...costs)) : DUMMY_HASH;
  }

  /** True when no users are configured (auth off). */
  get disabled(): boolean {
    return this.#users.size === 0;
  }

  /** The hash unknown users are compared against. */
  get dummyHash(): string {
    return this.#dummy;
  }

  /** Verifies an Authorization header. */
  async check(header: string | undefined): Promise<boolean> {
    return (await this.verify(header)) === 'ok';
  }

  /** Verifies an Authorization header, saying when it could not be compared for lack of capacity. */
  async verify(header: string | undefined): Promise<AuthResult> {
    if (this.disabled) return 'ok';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    const decoded = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const user = colon >= 0 ? decoded.slice(0, colon) : '';
    const password = colon >= 0 ? decoded.slice(colon + 1) : '';
    const hash = this.#users.get(user);
    const cacheKey = createHmac('sha256', CACHE_KEY)
      .update(`${user}\u0000${password}\u0000${hash ?? ''}`)
      .digest('base64');
    const now = Date.now();
    const at = hash !== undefined ? this.#verified.get(cacheKey) : undefined;
    if (at !== undefined && now - at <= this.#limits.cacheTtlMs) return 'ok';
    if (!(await this.#slot())) {
      this.refused++;
      return 'busy';
    }
    let ok: boolean;
    try {
      this.comparisons++;
      // Unknown users (and missing headers) pay for a comparison too.
      ok = await this.compare(password, hash ?? this.#dummy);
    } finally {
      this.#release();
    }
    if (ok && hash !== undefined && m) {
      if (this.#verified.size >= this.#limits.cacheSize) {
        // The oldest entry goes (a Map iterates in insertion order).
        const oldest = this.#verified.keys().next().value;
        if (oldest !== undefined) this.#verified.delete(oldest);
      }
      this.#verified.delete(cacheKey);
      this.#verified.set(cacheKey, Date.now());
      return 'ok';
    }
    return 'denied';
  }

  /** Waits for a comparison slot; false at once when the queue is full. */
  #slot(): Promise<boolean> {
    if (this.#running < this.#limits.concurrency) {
      this.#running++;
      return Promise.resolve(true);
    }
    if (this.#waiting.length >= this.#limits.queue) return Promise.resolve(false);
    return new Promise((resolve) => this.#waiting.push(() => resolve(true)));
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next in line.
    if (next) next();
    else this.#running--;
  }
}
