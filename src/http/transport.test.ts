import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from './errors.js';
import { ByteBudget, HttpTransport } from './transport.js';

const servers: Server[] = [];
const transports: HttpTransport[] = [];

/** A server on 127.0.0.1 whose every answer `answer` writes. */
async function serve(answer: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function transport(opts: ConstructorParameters<typeof HttpTransport>[0] = {}): HttpTransport {
  const t = new HttpTransport(opts);
  transports.push(t);
  return t;
}

const get = (url: string, extra: { maxBytes?: number; budget?: ByteBudget } = {}) => ({
  url,
  method: 'GET' as const,
  signal: AbortSignal.timeout(5_000),
  ...extra,
});

async function rejection(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('HttpTransport body reading', () => {
  it('reads a body sent in many chunks whole, in order', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let i = 0;
      const next = (): void => {
        if (i === 50) return void res.end();
        res.write(`chunk ${i++};`);
        setImmediate(next);
      };
      next();
    });
    const res = await transport().send(get(url));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(Array.from({ length: 50 }, (_, i) => `chunk ${i};`).join(''));
  });

  it('fails a body cut off mid-way as a connection error, and gives back what it had counted of the process budget', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '100000' });
        res.write(Buffer.alloc(40_000, 0x61), () => res.socket?.destroy());
        return;
      }
      res.end(Buffer.alloc(90_000, 0x62));
    });
    // A budget that holds one body at a time: had the cut one's 40,000 bytes stayed counted, the next would be refused.
    const t = transport({ processBudgetBytes: 100_000 });
    const err = await rejection(t.send(get(`${url}cut`)));
    expect(err.reason).toBe('connect');
    expect((await t.send(get(`${url}whole`))).body.length).toBe(90_000);
  });

  it('refuses a body past its cap as it arrives (no length declared), with the cap in the message', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write(Buffer.alloc(6_000));
      setImmediate(() => res.end(Buffer.alloc(6_000)));
    });
    const err = await rejection(transport().send(get(url, { maxBytes: 10_000 })));
    expect(err.reason).toBe('invalid_response');
    expect(err.message).toBe('response exceeds the limit of 10000 bytes');
  });

  it("refuses a body past its round's budget", async () => {
    const url = await serve((_req, res) => res.end(Buffer.alloc(5_000)));
    const budget = new ByteBudget(8_000);
    const t = transport();
    expect((await t.send(get(url, { budget }))).body.length).toBe(5_000);
    const err = await rejection(t.send(get(url, { budget })));
    expect(err.message).toBe("the poll round's responses exceed its budget of 8000 bytes");
  });

  it('ends a body that outlives its deadline as a timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('a first part, then nothing');
    });
    const err = await rejection(transport().send({ url, method: 'GET', signal: AbortSignal.timeout(200) }));
    expect(err.reason).toBe('timeout');
  });
});
