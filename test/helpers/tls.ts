/**
 * What the web server tests share: a fixed one-line exposition to serve, and
 * throwaway EC certificates made with openssl (a system tool the suite
 * already needs).
 */
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Exposition } from '../../src/exposition/render.js';
import { createExporterServer, type ServerOptions } from '../../src/server/server.js';

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

/** The exporter's HTTP server serving {@link STATIC_EXPOSITION} (options overridden by `extra`), listening on a free loopback port; kept in `servers` for {@link closeServers}. */
export async function startStaticServer(servers: Server[], extra: Partial<ServerOptions>): Promise<{ server: Server; port: number }> {
  const server = createExporterServer({
    telemetryPath: '/metrics',
    exposition: () => STATIC_EXPOSITION,
    ready: () => true,
    landing: () => '<html></html>',
    ...extra,
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Closes every server started by {@link startStaticServer}, cutting their connections, and empties the list. */
export async function closeServers(servers: Server[]): Promise<void> {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}
