import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Exposition } from '../exposition/render.js';

/** What the HTTP server serves. */
export interface ServerOptions {
  telemetryPath: string;
  /** The current exposition (rendered after each poll round). */
  exposition: () => Exposition;
  ready: () => boolean;
  landing: () => string;
}

function acceptsGzip(req: IncomingMessage): boolean {
  const ae = req.headers['accept-encoding'];
  return typeof ae === 'string' && /\bgzip\b/i.test(ae) && !/\bgzip\s*;\s*q=0(\.0*)?\b/i.test(ae);
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': type, 'content-length': String(buf.length), ...extra });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

/**
 * The exporter's HTTP server. `/metrics` writes a buffer rendered after the
 * last poll round, so a scrape costs no rendering and never waits on (or
 * fails because of) an upstream node.
 */
export function createExporterServer(opts: ServerOptions): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, req, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    if (path === opts.telemetryPath) {
      const exp = opts.exposition();
      if (acceptsGzip(req)) send(res, req, 200, exp.contentType, exp.gzip, { 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
      else send(res, req, 200, exp.contentType, exp.text, { vary: 'Accept-Encoding' });
      return;
    }
    if (path === '/-/healthy') return send(res, req, 200, 'text/plain; charset=utf-8', 'OK\n');
    if (path === '/-/ready') {
      return opts.ready()
        ? send(res, req, 200, 'text/plain; charset=utf-8', 'OK\n')
        : send(res, req, 503, 'text/plain; charset=utf-8', 'waiting for the first poll round\n');
    }
    if (path === '/') return send(res, req, 200, 'text/html; charset=utf-8', opts.landing());
    send(res, req, 404, 'text/plain; charset=utf-8', 'not found\n');
  });
  // Bounded timeouts so idle or slow clients cannot hold connections forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 512;
  return server;
}
