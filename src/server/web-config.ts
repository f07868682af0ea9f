import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import bcrypt from 'bcryptjs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

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
        headers: z.record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), z.string()).optional(),
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
    raw = parseYaml(text.toString('utf8')) ?? {};
  } catch (err) {
    throw new WebConfigError([`web.config.file: ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
  }
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
 * Checks HTTP basic auth against bcrypt hashes. bcrypt is slow on purpose, so
 * a successful check is remembered (keyed by a SHA-256 of the credentials and
 * the hash) and a scraper sending the same credentials every 15 s costs one
 * bcrypt comparison, not one per scrape.
 */
export class BasicAuth {
  readonly #users: Map<string, string>;
  readonly #verified = new Set<string>();

  constructor(
    users: Record<string, string>,
    private readonly compare: (password: string, hash: string) => Promise<boolean> = (p, h) => bcrypt.compare(p, h),
  ) {
    this.#users = new Map(Object.entries(users));
  }

  /** True when no users are configured (auth off). */
  get disabled(): boolean {
    return this.#users.size === 0;
  }

  /** Verifies an Authorization header. */
  async check(header: string | undefined): Promise<boolean> {
    if (this.disabled) return true;
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    const decoded = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const user = colon >= 0 ? decoded.slice(0, colon) : '';
    const password = colon >= 0 ? decoded.slice(colon + 1) : '';
    const hash = this.#users.get(user);
    const cacheKey = createHash('sha256')
      .update(`${user}\u0000${password}\u0000${hash ?? ''}`)
      .digest('hex');
    if (hash && this.#verified.has(cacheKey)) return true;
    // Unknown users (and missing headers) pay for a comparison too.
    const ok = await this.compare(password, hash ?? DUMMY_HASH);
    if (ok && hash !== undefined && m) {
      if (this.#verified.size > 1_000) this.#verified.clear();
      this.#verified.add(cacheKey);
      return true;
    }
    return false;
  }
}
