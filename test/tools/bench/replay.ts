/**
 * A recorded upstream call as any process of the bench can ask it again, with
 * Node's own node:http (no fetch: a daemon measured under --jitless has no
 * WebAssembly, which fetch's parser needs). Kept apart from role-fake.ts so a
 * measured daemon process does not load the fakes to use it.
 */
import { request, type Agent } from 'node:http';

/** A call as it can be asked again by any HTTP client. */
export interface ReplayRequest {
  url: string;
  method: string;
  /** A JSON-RPC call's body (sent as application/json). */
  body?: string;
}

/** The request of a JSON-RPC call of `method` (no params) at `url`. */
export const rpcRequest = (url: string, method: string): ReplayRequest => ({
  url,
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
});

/** Asks `r` (through `agent`, or a connection of its own) and resolves with the answer's whole body. */
export function askBody(r: ReplayRequest, agent?: Agent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (r.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(r.body);
    }
    const req = request(r.url, { method: r.method, headers, ...(agent ? { agent } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve(Buffer.concat(chunks)));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}
