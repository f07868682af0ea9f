import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { splitJsonArray } from './json-array-split.js';
import { JsonRpcClient } from './json-rpc.js';
import { HttpTransport } from './transport.js';
import { FakeNode } from '../../test/fakes/fake-node.js';
import { createPrng, generateValidators } from '../../test/fakes/fake-data.js';
import { randomJsonValue } from '../../test/helpers/random-json.js';
import { failure } from '../../test/helpers/upstream.js';

const pause = () => Promise.resolve();

/** The items splitJsonArray finds, parsed one by one. */
async function itemsOf(text: string, path: string[]): Promise<unknown[] | undefined> {
  const body = Buffer.from(text, 'utf8');
  const split = await splitJsonArray(body, path, pause);
  if (!split) return undefined;
  const out: unknown[] = [];
  for (let i = 0; i < split.spans.length; i += 2) out.push(JSON.parse(body.subarray(split.spans[i], split.spans[i + 1]).toString('utf8')));
  // What is left around the array is valid JSON holding an empty array.
  const rest = JSON.parse(Buffer.concat([body.subarray(0, split.open + 1), body.subarray(split.close)]).toString('utf8')) as unknown;
  let at: unknown = rest;
  for (const k of path) at = (at as Record<string, unknown>)[k];
  expect(at).toEqual([]);
  return out;
}

describe('splitJsonArray', () => {
  it('finds the items of the array at the path, whatever they contain', async () => {
    const rng = createPrng(7);
    for (let round = 0; round < 300; round++) {
      const items = Array.from({ length: Math.floor(rng() * 6) }, () => randomJsonValue(rng, 0));
      const doc = { jsonrpc: '2.0', result: { before: randomJsonValue(rng, 1), validators: items, after: [randomJsonValue(rng, 1)] }, id: 1 };
      const pretty = rng() < 0.5;
      expect(await itemsOf(JSON.stringify(doc, null, pretty ? 2 : undefined), ['result', 'validators'])).toEqual(items);
    }
  });

  it('ignores arrays with the same key elsewhere and keys inside strings', async () => {
    const text = '{"x":{"validators":[9]},"result":{"note":"\\"validators\\":[8]","validators":[1,{"validators":[2]},[3]]},"id":1}';
    expect(await itemsOf(text, ['result', 'validators'])).toEqual([1, { validators: [2] }, [3]]);
    expect(await itemsOf('{"result":{"validators":[]},"id":1}', ['result', 'validators'])).toEqual([]);
    expect(await itemsOf('{"result":{"validators":[ 1 , 2 ]},"id":1}', ['result', 'validators'])).toEqual([1, 2]);
  });

  it('gives up (so the caller parses the body whole and reports it) on anything else', async () => {
    for (const text of [
      '{"error":{"code":-32000,"message":"x"},"id":1}', // no such array
      '{"result":{"validators":{"a":1}},"id":1}', // not an array
      '{"result":[{"validators":[1]}],"id":1}', // the parent is not an object
      '{"result":{"validators":[1,2', // truncated
      '{"result":{"validators":[1,,2]},"id":1}', // empty item
      '{"result":{"validators":[1,2,]},"id":1}', // trailing comma
      '{"result":{"validators":[1],"validators":[2]},"id":1}', // the key twice
      '{"result":{"validators":["unterminated]},"id":1}',
      '{"result":{"validators":[1]}}}',
    ]) {
      expect(await splitJsonArray(Buffer.from(text), ['result', 'validators'], pause), text).toBeUndefined();
    }
  });
});

describe('JsonRpcClient.callArray and the round memo', () => {
  it('reads a mainnet-sized set exactly as a whole parse does, and one request per round serves every caller', async () => {
    const node = await FakeNode.start({ state: { primaryValidators: generateValidators(1800, { delegatorsPerValidator: 1 }) } });
    try {
      const transport = new HttpTransport({});
      const base = new JsonRpcClient(transport, node.url);
      const deadline = { signal: new AbortController().signal, at: Date.now() + 30_000 };
      const item = z.object({ nodeID: z.string(), weight: z.string() }).passthrough();
      const whole = await base.call('/ext/bc/P', 'platform.getCurrentValidators', {}, z.object({ validators: z.array(item) }), deadline);
      const before = node.calls.length;
      const round = base.forRound();
      const [a, b] = await Promise.all([
        // Split into batches (whatever the size), and parsed whole (under any threshold): the same items.
        round.callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', item, deadline, undefined, 0),
        round.callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', item, deadline, (v) => v.nodeID, Infinity),
      ]);
      expect(a).toEqual(whole.validators);
      expect(b).toEqual(whole.validators.map((v) => v.nodeID));
      expect(a.length).toBe(1800);
      expect(node.calls.length - before).toBe(1);
      // A new round asks again.
      await base.forRound().callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', item, deadline);
      expect(node.calls.length - before).toBe(2);
    } finally {
      await node.stop();
    }
  });

  it('reads a null array (a Go nil slice) as empty and validates the rest of the result', async () => {
    const node = await FakeNode.start();
    try {
      const rpc = new JsonRpcClient(new HttpTransport({}), node.url);
      const deadline = { signal: new AbortController().signal, at: Date.now() + 10_000 };
      const spec = { key: 'peers', item: z.object({ nodeID: z.string() }), rest: z.object({ numPeers: z.string() }) };
      node.setFault('info.peers', { kind: 'result', json: '{"numPeers":"0","peers":null}' });
      expect(await rpc.callWithArray('/ext/info', 'info.peers', {}, spec, deadline)).toEqual({ items: [], rest: { numPeers: '0' } });
      node.setFault('info.peers', { kind: 'result', json: '{"numPeers":"2","peers":[{"nodeID":"a"},{"nodeID":"b"}]}' });
      expect(await rpc.callWithArray('/ext/info', 'info.peers', {}, spec, deadline)).toEqual({
        items: [{ nodeID: 'a' }, { nodeID: 'b' }],
        rest: { numPeers: '2' },
      });
      expect(await rpc.callWithArray('/ext/info', 'info.peers', {}, { ...spec, splitMinBytes: 0 }, deadline)).toEqual({
        items: [{ nodeID: 'a' }, { nodeID: 'b' }],
        rest: { numPeers: '2' },
      });
      node.setFault('info.peers', { kind: 'result', json: '{"numPeers":2,"peers":[]}' });
      await expect(rpc.callWithArray('/ext/info', 'info.peers', {}, spec, deadline)).rejects.toThrow(/numPeers/);
    } finally {
      await node.stop();
    }
  });

  it('takes the items a bytes reader reads as it reads them, and words a body that is not JSON as without the reader', async () => {
    const node = await FakeNode.start();
    try {
      const rpc = new JsonRpcClient(new HttpTransport({}), node.url);
      const deadline = () => ({ signal: new AbortController().signal, at: Date.now() + 10_000 });
      const item = z.object({ nodeID: z.string() });
      let asked = 0;
      // Reads the items whose bytes are exactly {"nodeID":"<letters>"}; leaves the rest to the parse.
      const fastBytes = (body: Buffer, s: number, e: number) => {
        asked++;
        const m = /^\{"nodeID":"([a-z]+)"\}$/.exec(body.toString('latin1', s, e));
        return m ? { nodeID: `${m[1]}!` } : undefined;
      };
      const plain = { key: 'validators', item, splitMinBytes: 0 };
      node.setFault('platform.getCurrentValidators', { kind: 'result', json: '{"validators":[{"nodeID":"a"}, {"nodeID" : "b"},{"nodeID":"c"}]}' });
      const got = await rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', {}, { ...plain, fastBytes }, deadline());
      expect(got.items).toEqual([{ nodeID: 'a!' }, { nodeID: 'b' }, { nodeID: 'c!' }]);
      expect(asked).toBe(3);
      // An item that is not JSON amid ones the reader takes: the same refusal, word for word, as without the reader.
      node.setFault('platform.getCurrentValidators', { kind: 'result', json: '{"validators":[{"nodeID":"a"},{"nodeID":"b",},{"nodeID":"c"}]}' });
      const without = await failure(rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', {}, plain, deadline()));
      const withReader = await failure(rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', {}, { ...plain, fastBytes }, deadline()));
      expect(without.message).toMatch(/not valid JSON/);
      expect(withReader.message).toBe(without.message);
    } finally {
      await node.stop();
    }
  });

  it('yields to the event loop while a long answer is read, every few ms', async () => {
    const node = await FakeNode.start();
    try {
      const rpc = new JsonRpcClient(new HttpTransport({}), node.url);
      const items = Array.from({ length: 4_000 }, (_, i) => `{"nodeID":"n${i}"}`).join(',');
      node.setFault('platform.getCurrentValidators', { kind: 'result', json: `{"validators":[${items}]}` });
      // Each item takes 0.05 ms to read: 200 ms in all, which must not hold the loop for more than a slice.
      const slowRead = (body: Buffer, s: number, e: number) => {
        const until = performance.now() + 0.05;
        while (performance.now() < until) {
          // reading
        }
        return { nodeID: body.toString('latin1', s + 11, e - 2) };
      };
      let turns = 0;
      let longest = 0;
      let last = performance.now();
      let reading = true;
      const tick = () => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        turns++;
        if (reading) setImmediate(tick);
      };
      setImmediate(tick);
      const spec = { key: 'validators', item: z.object({ nodeID: z.string() }), fastBytes: slowRead, splitMinBytes: 0 };
      const got = await rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', {}, spec, {
        signal: new AbortController().signal,
        at: Date.now() + 30_000,
      });
      reading = false;
      expect(got.items).toHaveLength(4_000);
      expect(got.items[3_999]).toEqual({ nodeID: 'n3999' });
      expect(turns).toBeGreaterThanOrEqual(10);
      // One slice (5 ms) and one batch of items (200 x 0.05 ms) at most between two turns, with room for a slow machine.
      expect(longest).toBeLessThan(100);
    } finally {
      await node.stop();
    }
  });

  it('reports a bad item with its index, and an error answer as an RPC error', async () => {
    const node = await FakeNode.start();
    try {
      const rpc = new JsonRpcClient(new HttpTransport({}), node.url);
      const deadline = { signal: new AbortController().signal, at: Date.now() + 10_000 };
      node.setFault('platform.getCurrentValidators', { kind: 'result', json: '{"validators":[{"nodeID":"a"},{"nodeID":7}]}' });
      for (const min of [0, Infinity]) {
        await expect(
          rpc.callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', z.object({ nodeID: z.string() }), deadline, undefined, min),
        ).rejects.toThrow(/validators\.1\.nodeID/);
      }
      node.setFault('platform.getCurrentValidators', { kind: 'rpc-error', code: -32000, message: 'boom' });
      await expect(rpc.callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', z.object({ nodeID: z.string() }), deadline)).rejects.toThrow(
        /JSON-RPC error -32000: boom/,
      );
      node.setFault('platform.getCurrentValidators', { kind: 'body', body: '{"jsonrpc":"2.0","id":1,"result":{"validators":[{"nodeID":"a"},{"nodeID":"b"' });
      await expect(
        rpc.callArray('/ext/bc/P', 'platform.getCurrentValidators', {}, 'validators', z.object({ nodeID: z.string() }), deadline, undefined, 0),
      ).rejects.toThrow(/not valid JSON/);
    } finally {
      await node.stop();
    }
  });
});
