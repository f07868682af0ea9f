import type { IncomingMessage } from 'node:http';
import type { Exposition } from '../exposition/render.js';

/** Whether the client takes gzip (and did not refuse it with q=0). */
export function acceptsGzip(req: IncomingMessage): boolean {
  const ae = req.headers['accept-encoding'];
  return typeof ae === 'string' && /\bgzip\b/i.test(ae) && !/\bgzip\s*;\s*q=0(\.0*)?\b/i.test(ae);
}

/**
 * The exposition's body for this request: its gzip form when the client takes
 * gzip, else (or when zlib failed, out of memory) the plain text, which is a
 * valid answer to any client.
 */
export async function expositionBody(exp: Exposition, req: IncomingMessage): Promise<{ body: Buffer; gzip: boolean }> {
  if (acceptsGzip(req)) {
    try {
      return { body: await exp.gzip(), gzip: true };
    } catch {
      // fall through to the plain text
    }
  }
  return { body: exp.text, gzip: false };
}
