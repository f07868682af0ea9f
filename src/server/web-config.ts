import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { z } from 'zod';
import { parseYaml } from '../runtime/yaml.js';

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

/**
 * Go's cipher-suite names (crypto/tls, what exporter-toolkit's `cipher_suites`
 * takes) and OpenSSL's names for the same suites, which Node's `ciphers`
 * takes. As in Go, the list restricts TLS 1.0-1.2 only: TLS 1.3's suites stay
 * on unless the list names some of them (which Go cannot honour, Node can).
 */
const CIPHER_SUITES: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // Go's older aliases of the two above.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** TLS 1.3 suites: the same names in Go and OpenSSL. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** Go suites Node's OpenSSL 3 does not offer at all (RC4, 3DES): refused rather than silently dropped. */
const UNAVAILABLE_SUITES = /_RC4_|_3DES_/;

/** Go's curve names (`curve_preferences`) as OpenSSL's group names (Node's `ecdhCurve`). */
const CURVES: Record<string, string> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519', X25519MLKEM768: 'X25519MLKEM768' };

/** `ciphers` for Node from Go suite names; the problems with their index. */
function ciphersOf(names: readonly string[], problems: string[]): string | undefined {
  const tls12: string[] = [];
  const tls13: string[] = [];
  names.forEach((name, i) => {
    const at = `tls_server_config.cipher_suites[${i}]`;
    if (TLS13_SUITES.includes(name)) tls13.push(name);
    else if (CIPHER_SUITES[name]) tls12.push(CIPHER_SUITES[name]);
    else if (UNAVAILABLE_SUITES.test(name)) problems.push(`${at}: ${name} is not available in Node's TLS (OpenSSL 3 has no RC4 or 3DES); remove it`);
    else problems.push(`${at}: unknown cipher suite ${JSON.stringify(name)} (expected one of ${[...Object.keys(CIPHER_SUITES), ...TLS13_SUITES].join(', ')})`);
  });
  if (tls12.length === 0 && tls13.length === 0) return undefined;
  // Go keeps every TLS 1.3 suite whatever the list says; so do we unless the list names some.
  return [...tls12, ...(tls13.length ? tls13 : TLS13_SUITES)].join(':');
}

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
        cipher_suites: z.array(z.string()).optional(),
        curve_preferences: z.array(z.string()).optional(),
        prefer_server_cipher_suites: z.boolean().optional(),
      })
      .optional(),
    http_server_config: z
      .strictObject({
        // The toolkit's switch for HTTP/2 over TLS. This server speaks HTTP/1.1 only; clients negotiate it by ALPN
        // whichever way it is set (so true is accepted, as a permission nobody is refused for), see docs/security.md.
        http2: z.boolean().optional(),
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

/** Largest web config, certificate, key or CA file read (a symlink to /dev/zero or a huge file must not be slurped). */
export const MAX_WEB_CONFIG_FILE_BYTES = 1024 * 1024;

/**
 * Reads a regular file of at most {@link MAX_WEB_CONFIG_FILE_BYTES}. Opened
 * non-blocking, so a FIFO cannot hang the open; then the open file itself is
 * checked (not the path, which could be swapped in between): a device, FIFO,
 * socket or directory is refused, and so is a file over the limit, by its
 * size and by what could be read.
 */
export function readBoundedFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MAX_WEB_CONFIG_FILE_BYTES) throw new Error(`larger than ${MAX_WEB_CONFIG_FILE_BYTES} bytes (${st.size})`);
    const buf = Buffer.alloc(MAX_WEB_CONFIG_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > MAX_WEB_CONFIG_FILE_BYTES) throw new Error(`larger than ${MAX_WEB_CONFIG_FILE_BYTES} bytes`);
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function readOrFail(path: string, label: string, problems: string[]): Buffer | undefined {
  try {
    return readBoundedFile(path);
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
    const ciphers = t.cipher_suites ? ciphersOf(t.cipher_suites, problems) : undefined;
    const unknownCurves = (t.curve_preferences ?? []).filter((c) => !CURVES[c]);
    for (const c of unknownCurves)
      problems.push(`tls_server_config.curve_preferences: unknown curve ${JSON.stringify(c)} (expected one of ${Object.keys(CURVES).join(', ')})`);
    const ecdhCurve = t.curve_preferences?.length ? t.curve_preferences.map((c) => CURVES[c] ?? c).join(':') : undefined;
    if (ecdhCurve && unknownCurves.length === 0) {
      try {
        createSecureContext({ ecdhCurve });
      } catch {
        problems.push(
          `tls_server_config.curve_preferences: ${t.curve_preferences?.join(', ')}: not all are supported by this Node's OpenSSL (${process.versions.openssl})`,
        );
      }
    }
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
      ...(ciphers ? { ciphers } : {}),
      ...(ecdhCurve ? { ecdhCurve } : {}),
      // The toolkit's default is true (Go has ignored it since 1.18 and always picks well); Node honours it.
      honorCipherOrder: t.prefer_server_cipher_suites ?? true,
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
          ...(ciphers ? { ciphers } : {}),
          ...(ecdhCurve ? { ecdhCurve } : {}),
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
        return `${f}:${s.ino}:${s.mtimeMs}:${s.ctimeMs}:${s.size}`;
      } catch {
        return `${f}:missing`;
      }
    })
    .join('|');
}
