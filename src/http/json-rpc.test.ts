import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeNode } from '../../test/fakes/fake-node.js';
import { failure } from '../../test/helpers/upstream.js';
import { JsonRpcClient, RpcError, parseRetryAfter, type Deadline } from './json-rpc.js';
import { HttpTransport } from './transport.js';
import { healthSource } from '../sources/node/health/index.js';
import { nodeIdResult } from '../sources/node/info/index.js';
import type { PollContext } from '../sources/node/source.js';

let node: FakeNode;
let transport: HttpTransport;
let rpc: JsonRpcClient;

beforeAll(async () => {
  node = await FakeNode.start();
  transport = new HttpTransport();
  rpc = new JsonRpcClient(transport, node.url);
});
afterAll(async () => {
  await node.stop();
  await transport.close();
});
afterEach(async () => {
  // A fresh client for each test, the last one's sockets destroyed first: an attempt of one test still in flight on a
  // busy machine (CI once counted one retry too many in a test and one call too many in the next) must not reach the
  // node after the calls are cleared and be counted in the next test.
  await transport.close();
  node.clearFaults();
  await node.restart();
  node.clearCalls();
  transport = new HttpTransport();
  rpc = new JsonRpcClient(transport, node.url);
});

function deadline(ms: number): Deadline {
  return { signal: AbortSignal.timeout(ms), at: Date.now() + ms };
}

const getNodeId = (ms = 1_000) => rpc.call('/ext/info', 'info.getNodeID', {}, nodeIdResult, deadline(ms));
const calls = (method: string) => node.calls.filter((c) => c.rpcMethod === method).length;

describe('JSON-RPC client', () => {
  it('200: returns the validated result', async () => {
    expect(await getNodeId()).toEqual({ nodeID: node.state.nodeId });
    const call = node.calls.find((c) => c.rpcMethod === 'info.getNodeID');
    expect(call).toMatchObject({ httpMethod: 'POST', path: '/ext/info' });
  });

  it('5xx: retried, then http_status with the status', async () => {
    node.setFault('info.getNodeID', { kind: 'status', status: 502 });
    const err = await failure(getNodeId(3_000));
    expect(err.reason).toBe('http_status');
    expect(err.status).toBe(502);
    expect(calls('info.getNodeID')).toBe(3); // first attempt + 2 retries
  });

  it('5xx that recovers within the deadline: success', async () => {
    node.setFault('info.getNodeID', { kind: 'status', status: 503 });
    setTimeout(() => node.setFault('info.getNodeID', undefined), 50);
    expect(await getNodeId(3_000)).toEqual({ nodeID: node.state.nodeId });
  });

  it('hang past the deadline: timeout, on time', async () => {
    node.setFault('info.getNodeID', { kind: 'hang' });
    const t0 = Date.now();
    const err = await failure(getNodeId(300));
    expect(err.reason).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('connection refused: connect', async () => {
    await node.stop();
    const err = await failure(getNodeId(500));
    expect(err.reason).toBe('connect');
  });

  it('reset mid-body: connect (a transport failure), retried', async () => {
    node.setFault('info.getNodeID', { kind: 'reset' });
    const err = await failure(getNodeId(3_000));
    expect(err.reason).toBe('connect');
    expect(calls('info.getNodeID')).toBe(3);
  });

  it.each([
    ['malformed JSON', '{"jsonrpc":"2.0","result":{"nodeID":'],
    ['not JSON at all', '<html>bad gateway</html>'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1')],
  ])('%s: invalid_response, not retried', async (_name, body) => {
    node.setFault('info.getNodeID', { kind: 'body', body });
    const err = await failure(getNodeId());
    expect(err.reason).toBe('invalid_response');
    expect(calls('info.getNodeID')).toBe(1);
  });

  it('JSON-RPC error object on HTTP 200: rpc_error with the code, not retried', async () => {
    node.setFault('info.getNodeID', { kind: 'rpc-error', code: -32000, message: 'something broke' });
    const err = await failure(getNodeId());
    expect(err).toBeInstanceOf(RpcError);
    expect(err.reason).toBe('rpc_error');
    expect(err.rpcCode).toBe(-32000);
    expect((err as RpcError).rpcMessage).toBe('something broke');
    expect(calls('info.getNodeID')).toBe(1);
  });

  it('the real node error for an unknown method is an rpc_error', async () => {
    const err = await failure(rpc.call('/ext/info', 'info.getFoo', {}, z.unknown(), deadline(1_000)));
    expect(err.reason).toBe('rpc_error');
    expect(err.message).toContain('rpc: can\'t find method "info.GetFoo"');
  });

  it('unexpected shape: invalid_response naming the field', async () => {
    node.setFault('info.getNodeID', { kind: 'body', body: '{"jsonrpc":"2.0","result":{"nodeId":"x"},"id":1}\n' });
    // The id must match the request's; use a fresh client so its first id is 1.
    const fresh = new JsonRpcClient(transport, node.url);
    const err = await failure(fresh.call('/ext/info', 'info.getNodeID', {}, nodeIdResult, deadline(1_000)));
    expect(err.reason).toBe('invalid_response');
    expect(err.message).toMatch(/nodeID/);
  });

  it('a 200 with both result and error, or with a wrong id: invalid_response', async () => {
    const fresh = new JsonRpcClient(transport, node.url);
    node.setFault('info.getNodeID', { kind: 'body', body: '{"jsonrpc":"2.0","result":{"nodeID":"x"},"error":{"code":1,"message":"m","data":null},"id":1}' });
    expect((await failure(fresh.call('/ext/info', 'info.getNodeID', {}, nodeIdResult, deadline(1_000)))).message).toMatch(/both result and error/);
    node.setFault('info.getNodeID', { kind: 'body', body: '{"jsonrpc":"2.0","result":{"nodeID":"x"},"id":999}' });
    expect((await failure(fresh.call('/ext/info', 'info.getNodeID', {}, nodeIdResult, deadline(1_000)))).message).toMatch(/does not match/);
  });

  it('a body over the size limit: invalid_response', async () => {
    const small = new HttpTransport({ maxResponseBytes: 256 });
    const client = new JsonRpcClient(small, node.url);
    const err = await failure(client.call('/ext/info', 'info.peers', {}, z.unknown(), deadline(1_000)));
    expect(err.reason).toBe('invalid_response');
    expect(err.message).toMatch(/exceeds the limit/);
    await small.close();
  });

  it('chain not bootstrapped (503 text): http_status', async () => {
    node.state.bootstrapped['P'] = false;
    try {
      const err = await failure(rpc.call('/ext/bc/P', 'platform.getHeight', {}, z.unknown(), deadline(500)));
      expect(err.reason).toBe('http_status');
      expect(err.message).toMatch(/not done bootstrapping/);
    } finally {
      node.state.bootstrapped['P'] = true;
    }
  });
});

describe('health GET client', () => {
  function ctx(ms = 1_000): PollContext {
    const d = deadline(ms);
    return {
      node: { name: 'n', url: node.url, headers: {}, secretHeaders: [], watch: { nodeIds: [], allValidators: false, subnetIds: [], maxValidators: 5_000 } },
      rpc,
      get: (path) => transport.send({ url: node.url + path, method: 'GET', signal: d.signal }),
      deadline: d,
      known: {},
      round: 0,
    };
  }

  it('200: healthy', async () => {
    const v = await healthSource.poll(ctx(), undefined);
    expect(v).toMatchObject({ healthy: true, ready: true, live: true });
  });

  it('503 is a valid answer: unhealthy, not a failure', async () => {
    node.failCheck('database', 'disk full');
    try {
      const v = await healthSource.poll(ctx(), undefined);
      expect(v.healthy).toBe(false);
      expect(v.checks.find((c) => c.name === 'database')).toMatchObject({ passing: false, contiguousFailures: 1 });
    } finally {
      node.passCheck('database');
    }
  });

  it('a 502 from a proxy in front of the node is a failure', async () => {
    node.setFault('health', { kind: 'status', status: 502 });
    expect((await failure(healthSource.poll(ctx(2_000), undefined))).reason).toBe('http_status');
  });

  it('a health body of the wrong shape: invalid_response', async () => {
    node.setFault('liveness', { kind: 'body', body: '{"checks":[],"healthy":"yes"}' });
    expect((await failure(healthSource.poll(ctx(), undefined))).reason).toBe('invalid_response');
  });
});

describe('transport', () => {
  let server: Server;
  let connections = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('{"ok":true}'));
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reuses keep-alive connections', async () => {
    const t = new HttpTransport();
    for (let i = 0; i < 10; i++) await t.send({ url, method: 'GET', signal: AbortSignal.timeout(1_000) });
    // The agent may open a second socket while the first is being released; never one per request.
    expect(connections).toBeLessThanOrEqual(2);
    await t.close();
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-22T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Sat, 21 Nov 2026 00:00:30 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
