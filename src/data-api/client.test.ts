import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultFakeDataApiState, FakeDataApi, fixtureActiveValidation } from '../../test/fakes/fake-data-api.js';
import { FIXTURE_IDS, FIXTURE_NOW } from '../../test/fakes/fake-data.js';
import { DataApiClient, DataApiHttpError, type DataApiClientOptions } from './client.js';
import { TokenBucket } from './token-bucket.js';
import type { DataApiContext } from '../sources/data-api/source.js';
import { dataApiBlocksSource } from '../sources/data-api/blocks/index.js';
import { dataApiNodeBlocksSource } from '../sources/data-api/node-blocks/index.js';
import { dataApiValidatorsSource, validationItem } from '../sources/data-api/validators/index.js';
import { failure } from '../../test/helpers/upstream.js';
import { setMaxListeners } from 'node:events';
import type { Deadline } from '../http/json-rpc.js';
import { HttpTransport } from '../http/transport.js';
import { createLogger } from '../log.js';
import { LogCapture } from '../../test/helpers/daemon.js';

const KEY = 'dapi-key-7f3c9a1e5b';
const SELF = FIXTURE_IDS.nodeId;
const VALIDATORS = `/v1/networks/mainnet/validators/${SELF}`;

let api: FakeDataApi;
let transport: HttpTransport;

beforeAll(async () => {
  api = await FakeDataApi.start({ apiKey: KEY });
  transport = new HttpTransport();
});
afterAll(async () => {
  await api.stop();
  await transport.close();
});
afterEach(async () => {
  api.clearFaults();
  api.clearCalls();
  api.state = defaultFakeDataApiState();
  await api.restart();
});

/** A round's deadline as the scheduler makes it: one signal every request and slot wait of the round listens to, so no listener cap. */
function deadline(ms: number): Deadline {
  const signal = AbortSignal.timeout(ms);
  setMaxListeners(0, signal);
  return { signal, at: Date.now() + ms };
}

function client(opts: Partial<DataApiClientOptions> = {}): DataApiClient {
  return new DataApiClient({ transport, baseUrl: api.url, apiKey: KEY, ratePerMinute: 6000, ...opts });
}

function ctx(c: DataApiClient, nodeIds: string[], ms = 5_000, maxPages = 10): DataApiContext {
  return { client: c, network: 'mainnet', nodeIds, maxPages, deadline: deadline(ms), round: 0 };
}

const anyBody = z.unknown();
const get = (c: DataApiClient, path = VALIDATORS, ms = 5_000) => c.get(path, {}, anyBody, deadline(ms));

describe('Data API client: key, errors, retries', () => {
  it('sends the key in the configured header, and the service refuses a request without it', async () => {
    await get(client());
    expect(api.calls.at(-1)).toMatchObject({ route: 'validators', apiKey: KEY });
    const err = await failure(get(client({ apiKey: undefined })));
    expect(err).toMatchObject({ reason: 'http_status', status: 401 });
    expect(err.message).toContain('Unauthorized: Invalid API key');
    expect(api.calls).toHaveLength(2); // a 401 is not retried

    const spec = await FakeDataApi.start({ apiKey: KEY, keyHeader: 'x-service-api-key' });
    try {
      await new DataApiClient({ transport, baseUrl: spec.url, apiKey: KEY, keyHeader: 'X-Service-Api-Key', ratePerMinute: 600 }).get(
        VALIDATORS,
        {},
        anyBody,
        deadline(2_000),
      );
      expect(spec.calls[0]?.apiKey).toBe(KEY);
    } finally {
      await spec.stop();
    }
  });

  it('never puts the key in an error or a log line, whatever the failure', async () => {
    const logs = new LogCapture();
    const logger = createLogger({ level: 'debug', format: 'json', destination: logs });
    const c = client({ maxRateLimitRetries: 0 });
    const faults = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 403 },
      { kind: 'rate-limit', retryAfter: '0' },
      { kind: 'body', body: '{"validators": [' },
      { kind: 'hang' },
    ] as const;
    for (const f of faults) {
      api.setFault('*', { ...f });
      const err = await failure(get(c, VALIDATORS, 1_200));
      // The full error as pino serialises it (message, stack, cause chain), plus the request headers a careless caller might log.
      logger.warn({ err, reason: err.reason, headers: { 'x-glacier-api-key': KEY } }, 'source down');
    }
    api.clearFaults();
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.lines).toHaveLength(faults.length);
    expect(logs.raw.join('\n')).not.toContain(KEY);
    expect(logs.lines.map((l) => l['reason'])).toEqual(['http_status', 'http_status', 'rate_limited', 'invalid_response', 'timeout']);
  });

  it('5xx: retried inside the deadline; one that persists is http_status with the service message', async () => {
    api.setFault('validators', { kind: 'status', status: 502, times: 2 });
    await get(client());
    expect(api.callsTo('validators')).toHaveLength(3);
    api.clearCalls();
    api.setFault('validators', { kind: 'status', status: 503 });
    const err = await failure(get(client()));
    expect(err).toMatchObject({ reason: 'http_status', status: 503 });
    expect(err.message).toContain('Service Unavailable');
    expect(api.callsTo('validators')).toHaveLength(3);
  });

  it('4xx other than 429: final at once, with the error body parsed into the message', async () => {
    const c = client();
    const bad = await failure(c.get(VALIDATORS, { pageSize: 500 }, anyBody, deadline(2_000)));
    expect(bad).toMatchObject({ reason: 'http_status', status: 400 });
    expect(bad.message).toBe(`GET ${VALIDATORS}?pageSize=500: HTTP 400 Bad Request: pageSize must not be greater than 100`);
    const missing = await failure(get(c, '/v1/networks/mainnet/blockchains/q-chain/blocks'));
    expect(missing.message).toContain('HTTP 404 Not Found: Blockchain q-chain not found');
    expect(missing).toBeInstanceOf(DataApiHttpError);
    expect((missing as DataApiHttpError).serviceError).toBe(true);
    expect(api.calls).toHaveLength(2);
  });

  it('malformed JSON: invalid_response, not retried; a proxy page: http_status with a snippet', async () => {
    api.setFault('validators', { kind: 'body', body: '{"validators": [{"txHash": ' });
    expect((await failure(get(client()))).reason).toBe('invalid_response');
    expect(api.calls).toHaveLength(1);
    api.setFault('validators', { kind: 'body', status: 404, body: '<html><body>nginx: not found</body></html>' });
    const err = await failure(get(client()));
    expect(err.message).toContain('<html><body>nginx: not found');
    expect((err as DataApiHttpError).serviceError).toBe(false);
  });

  it('an attempt that hangs is abandoned and retried inside the deadline', async () => {
    api.setFault('validators', { kind: 'hang', times: 1 });
    const t0 = Date.now();
    await get(client(), VALIDATORS, 4_000);
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(api.callsTo('validators')).toHaveLength(2);
  });

  it('in a long round, an attempt waits no longer than the attempt timeout for its answer', async () => {
    // The Data API round may last most of its interval (for the rate limit's slots); an answer, only the poll timeout.
    api.setFault('validators', { kind: 'hang', times: 1 });
    const t0 = Date.now();
    await get(client({ attemptTimeoutMs: 1_000 }), VALIDATORS, 10_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(api.callsTo('validators')).toHaveLength(2);
  });

  it('a hang past the deadline: timeout, on time', async () => {
    api.setFault('validators', { kind: 'hang' });
    const t0 = Date.now();
    expect((await failure(get(client(), VALIDATORS, 600))).reason).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1_500);
  });
});

describe('Data API client: 429 and the request rate', () => {
  it('429 with Retry-After in seconds: waits as told, counts it, then succeeds', async () => {
    const c = client();
    api.setFault('validators', { kind: 'rate-limit', retryAfter: '1', times: 1 });
    const t0 = Date.now();
    await get(c);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
    expect(c.stats.rateLimited).toBe(1);
    expect(api.callsTo('validators')).toHaveLength(2);
  });

  it('429 with Retry-After as an HTTP date: waits until then', async () => {
    const c = client();
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2_000);
    api.setFault('validators', { kind: 'rate-limit', retryAfter: at.toUTCString(), times: 1 });
    await get(c);
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime() - 1_000); // the date has whole seconds
    expect(c.stats.rateLimited).toBe(1);
  });

  it('429 asking for longer than the deadline: rate_limited at once; the pause holds every later request off the service', async () => {
    const c = client();
    api.setFault('*', { kind: 'rate-limit', retryAfter: '30', times: 1 });
    const t0 = Date.now();
    const err = await failure(get(c, VALIDATORS, 3_000));
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(err).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: expect.any(Number) as unknown });
    expect(err.message).toContain('Too Many Requests: Too many requests, please try again later.');
    expect(c.stats.rateLimited).toBe(1);
    // Later requests of this client fail fast without being sent: no hammering while the service said wait.
    for (const path of [VALIDATORS, '/v1/networks/mainnet/blockchains/p-chain/blocks'])
      expect((await failure(get(c, path, 2_000))).reason).toBe('rate_limited');
    expect(api.calls).toHaveLength(1);
  });

  it('429 without Retry-After: exponential backoff with jitter, a bounded number of times', async () => {
    const c = client({ maxRateLimitRetries: 2 });
    api.setFault('validators', { kind: 'rate-limit' });
    const t0 = Date.now();
    const err = await failure(get(c, VALIDATORS, 10_000));
    expect(err.reason).toBe('rate_limited');
    const calls = api.callsTo('validators');
    expect(calls).toHaveLength(3);
    expect(c.stats.rateLimited).toBe(3);
    const gaps = calls.slice(1).map((x, i) => x.at - (calls[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(950);
    expect(gaps[1]).toBeGreaterThanOrEqual(1_950);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('the token bucket holds the request rate under the limit over a burst of watched ids', async () => {
    const perMinute = 600; // 10 per second
    const c = client({ ratePerMinute: perMinute, burst: 2 });
    const ids = Array.from({ length: 14 }, (_, i) => (i === 0 ? SELF : `NodeID-${String(i).padStart(33, '1')}`));
    const t0 = Date.now();
    const v = await dataApiValidatorsSource.poll(ctx(c, ids, 10_000), undefined);
    expect(v.nodes).toHaveLength(14);
    const at = api
      .callsTo('validators')
      .map((x) => x.at)
      .sort((a, b) => a - b);
    expect(at).toHaveLength(14);
    // Any run of requests fits in burst + rate × its span (one extra for clock granularity).
    for (let i = 0; i < at.length; i++) {
      for (let j = i; j < at.length; j++) {
        const span = ((at[j] ?? 0) - (at[i] ?? 0)) / 1000;
        expect(j - i + 1).toBeLessThanOrEqual(2 + (perMinute / 60) * span + 1);
      }
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(((14 - 2) / 10) * 1000 - 50);
  });

  it('a round that needs more requests than the limit allows before its deadline fails as rate_limited without sending them', async () => {
    const c = client({ ratePerMinute: 60, burst: 2 });
    const ids = Array.from({ length: 6 }, (_, i) => `NodeID-${String(i + 1).padStart(33, '2')}`);
    const err = await failure(dataApiValidatorsSource.poll(ctx(c, ids, 1_500), undefined));
    expect(err.reason).toBe('rate_limited');
    expect(err.message).toMatch(/client-side rate limit/);
    expect(api.callsTo('validators').length).toBeLessThanOrEqual(3);
    expect(c.stats.rateLimited).toBe(0); // not a 429
  });
});

describe('token bucket', () => {
  const at = (ms: number): Deadline => ({ signal: new AbortController().signal, at: ms });

  it('lets a burst through, then spaces requests at the rate, first come first served', async () => {
    let now = 0;
    const b = new TokenBucket({ perMinute: 60, burst: 3, now: () => now });
    for (let i = 0; i < 3; i++) await b.take(at(10_000));
    expect(b.nextSlotInMs()).toBe(1000);
    now = 500;
    expect(b.nextSlotInMs()).toBe(500);
  });

  it('refuses a slot after the deadline without using it up', async () => {
    let now = 0;
    const b = new TokenBucket({ perMinute: 60, burst: 1, now: () => now });
    await b.take(at(10_000));
    await expect(b.take(at(500))).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(b.nextSlotInMs()).toBe(1000);
    now = 1000;
    await b.take(at(1_000)); // the refused slot is still free
  });

  it('a pause holds every request and is not followed by a burst', async () => {
    let now = 0;
    const b = new TokenBucket({ perMinute: 60, burst: 5, now: () => now });
    b.pauseUntil(5_000);
    await expect(b.take(at(4_000))).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(b.nextSlotInMs()).toBe(6_000);
    now = 6_000;
    await b.take(at(6_000));
    expect(b.nextSlotInMs()).toBe(1_000);
  });

  it('a deadline that fires while waiting gives the slot back', async () => {
    const b = new TokenBucket({ perMinute: 600, burst: 1 });
    await b.take(at(Date.now() + 1_000));
    const controller = new AbortController();
    const waiting = b.take({ signal: controller.signal, at: Date.now() + 1_000 });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ reason: 'timeout' });
    expect(b.nextSlotInMs()).toBeLessThanOrEqual(100);
  });
});

describe('Data API sources against the fake service', () => {
  it('validators: follows nextPageToken across pages, newest first, extra fields ignored', async () => {
    const paged = await FakeDataApi.start({ maxPageSize: 1 });
    try {
      const active = paged.state.validations[SELF]?.find((v) => v.validationStatus === 'active');
      if (active) active['aFieldFromTheFuture'] = { deeply: ['nested'] };
      const c = new DataApiClient({ transport, baseUrl: paged.url, ratePerMinute: 6000 });
      const v = await dataApiValidatorsSource.poll(ctx(c, [SELF]), undefined);
      expect(v.nodes[0]?.validations.map((x) => x.status)).toEqual(['pending', 'active', 'removed', 'completed']);
      const calls = paged.callsTo('validators');
      expect(calls).toHaveLength(4);
      expect(calls[0]?.query).toMatchObject({ pageSize: '100', sortOrder: 'desc' });
      expect(calls.slice(1).every((x) => /^[0-9a-f-]{36}$/.test(x.query['pageToken'] ?? ''))).toBe(true);
      // The page bound: two pages, the two newest validations.
      paged.clearCalls();
      const bounded = await dataApiValidatorsSource.poll(ctx(c, [SELF], 5_000, 2), undefined);
      expect(bounded.nodes[0]?.validations.map((x) => x.status)).toEqual(['pending', 'active']);
      expect(paged.callsTo('validators')).toHaveLength(2);
    } finally {
      await paged.stop();
    }
  });

  it('validators: a node the service does not know (200 empty, or its own 404) has no validations', async () => {
    const c = client();
    const v = await dataApiValidatorsSource.poll(ctx(c, ['NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu']), undefined);
    expect(v.nodes).toEqual([{ nodeId: 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', validations: [] }]);
    api.setFault('validators', { kind: 'status', status: 404 });
    expect((await dataApiValidatorsSource.poll(ctx(c, [SELF]), undefined)).nodes[0]?.validations).toEqual([]);
  });

  it('validators: a wrong type in a required field fails the whole answer as invalid_response', async () => {
    const broken = { ...fixtureActiveValidation(), amountStaked: 2000 };
    api.setFault('validators', { kind: 'body', body: JSON.stringify({ validators: [broken] }) });
    const err = await failure(dataApiValidatorsSource.poll(ctx(client(), [SELF]), undefined));
    expect(err.reason).toBe('invalid_response');
    expect(err.message).toMatch(/validators\.0\.amountStaked/);
    expect(validationItem.safeParse(fixtureActiveValidation()).success).toBe(true);
  });

  it('node blocks: baseline first (one block asked for), then only blocks since the last one', async () => {
    const c = client();
    const first = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), undefined);
    expect(first.proposers).toEqual([
      { nodeId: SELF, chain: 'P', count: 0, last: { height: 23797322n, timestampSeconds: 1766080368 }, sinceSeconds: expect.any(Number) as unknown },
      { nodeId: SELF, chain: 'C', count: 0, last: { height: 71234567n, timestampSeconds: FIXTURE_NOW }, sinceSeconds: expect.any(Number) as unknown },
    ]);
    const pCalls = () => api.callsTo('nodeBlocks').filter((r) => r.path.includes('/p-chain/'));
    expect(pCalls()[0]).toMatchObject({ path: `/v1/networks/mainnet/blockchains/p-chain/nodes/${SELF}/blocks`, query: { pageSize: '1' } });
    api.addBlock('p-chain', SELF);
    api.addBlock('p-chain', 'NodeID-Lrn2ZrcnusnEQwVBU8i7spYM1G3V9ZVW9');
    const second = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), first);
    expect(second.proposers[0]).toMatchObject({ count: 1, last: { height: 23797324n } });
    expect(pCalls()[1]?.query).toMatchObject({ startTimestamp: '1766080368', pageSize: '100' });
    const third = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), second);
    expect(third.proposers[0]?.count).toBe(1);
  });

  it('node blocks per chain: C-Chain blocks count on their own chain; X not served (4xx) is left out; a P failure fails the source', async () => {
    const c = client();
    const first = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), undefined);
    expect(first.proposers.map((p) => p.chain)).toEqual(['P', 'C']);
    // The fake does not serve X: the request was made and answered 400.
    expect(api.callsTo('nodeBlocks').some((r) => r.path.includes('/x-chain/'))).toBe(true);
    api.addBlock('c-chain', SELF);
    api.addBlock('c-chain', SELF);
    api.addBlock('c-chain', 'NodeID-Lrn2ZrcnusnEQwVBU8i7spYM1G3V9ZVW9');
    const second = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), first);
    expect(second.proposers.map((p) => [p.chain, p.count])).toEqual([
      ['P', 0],
      ['C', 2],
    ]);
    expect(second.proposers[1]?.last?.height).toBe(71234569n);
    api.setFault(`/v1/networks/mainnet/blockchains/c-chain/nodes/${SELF}/blocks`, { kind: 'status', status: 403 });
    const third = await dataApiNodeBlocksSource.poll(ctx(c, [SELF]), second);
    expect(third.proposers.map((p) => p.chain)).toEqual(['P']);
    api.setFault(`/v1/networks/mainnet/blockchains/p-chain/nodes/${SELF}/blocks`, { kind: 'status', status: 400 });
    const err = await failure(dataApiNodeBlocksSource.poll(ctx(c, [SELF]), third));
    expect(err.message).toMatch(/400/);
  });

  it('blocks: P, X and C heads; X or C not served (4xx) is left out, a P failure fails the source', async () => {
    const c = client();
    const v = await dataApiBlocksSource.poll(ctx(c, []), undefined);
    expect(v.heads.map((h) => [h.chain, h.height])).toEqual([
      ['P', 23797323n],
      ['X', 5094088n],
      ['C', 71234567n],
    ]);
    api.setFault('/v1/networks/mainnet/blockchains/x-chain/blocks', { kind: 'status', status: 404 });
    api.setFault('/v1/networks/mainnet/blockchains/c-chain/blocks', { kind: 'status', status: 400 });
    expect((await dataApiBlocksSource.poll(ctx(c, []), undefined)).heads.map((h) => h.chain)).toEqual(['P']);
    api.setFault('/v1/networks/mainnet/blockchains/c-chain/blocks', { kind: 'status', status: 503 });
    expect((await failure(dataApiBlocksSource.poll(ctx(c, []), undefined))).reason).toBe('http_status');
    api.clearFaults();
    api.setFault('/v1/networks/mainnet/blockchains/p-chain/blocks', { kind: 'status', status: 404 });
    expect((await failure(dataApiBlocksSource.poll(ctx(c, []), undefined))).status).toBe(404);
  });
});
