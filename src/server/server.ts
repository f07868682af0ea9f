import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Exposition } from '../exposition/render.js';
import type { ProcessBlock } from '../exposition/process-metrics.js';

/** What the HTTP server serves. */
export interface ServerOptions {
  telemetryPath: string;
  /** The current exposition (rendered after each poll round). */
  exposition: () => Exposition;
  /** Per-scrape process metrics appended after the exposition. */
  processBlock?: () => ProcessBlock;
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
      const proc = opts.processBlock?.();
      const gz = acceptsGzip(req);
      const head = gz ? exp.gzip : exp.text;
      const tail = proc ? (gz ? proc.gzip : proc.text) : undefined;
      res.writeHead(200, {
        'content-type': exp.contentType,
        'content-length': String(head.length + (tail?.length ?? 0)),
        vary: 'Accept-Encoding',
        ...(gz ? { 'content-encoding': 'gzip' } : {}),
      });
      if (req.method === 'HEAD') return void res.end();
      // Two ready buffers, no copy: the cached exposition and the process block.
      if (tail && tail.length) res.write(head);
      res.end(tail && tail.length ? tail : head);
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
