/**
 * What the web server tests share: a fixed one-line exposition to serve, and
 * throwaway EC certificates made with openssl (a system tool the suite
 * already needs).
 */
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import type { Exposition } from '../../src/exposition/render.js';

const BODY = 'avax_exporter_ready 1\n';

/** A fixed exposition of one series, plain and gzip. */
export const STATIC_EXPOSITION: Exposition = {
  text: Buffer.from(BODY),
  gzip: () => Promise.resolve(gzipSync(BODY)),
  series: 1,
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
};

/**
 * A self-signed P-256 certificate and key in `dir` (`<name>.crt`, `<name>.key`),
 * valid two days, for `cn`; for 127.0.0.1 it carries the IP as subjectAltName.
 */
export function selfSignedCert(dir: string, name: string, cn = '127.0.0.1'): void {
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  args.push('-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${cn}`);
  if (cn === '127.0.0.1') args.push('-addext', 'subjectAltName=IP:127.0.0.1');
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}
