/**
 * `/probe` of a configured node on a large node: answered like /metrics, from
 * one render per /metrics render whose text and gzip are shared by every
 * scraper, so many concurrent probes cost neither CPU nor memory per probe.
 */
import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../src/config/load.js';
import { startDaemon, testHandle } from '../src/daemon.js';
import { generateValidators } from './fakes/fake-data.js';
import { FakeNode } from './fakes/fake-node.js';
import { createLogger } from '../src/log.js';
import { LogCapture } from './helpers/daemon.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('/probe of a configured node', () => {
  it('is rendered once per /metrics render and shared: 40 concurrent probes, plain and gzip, one render, bounded RSS', async () => {
    const node = await FakeNode.start({ state: { primaryValidators: generateValidators(1_500, { delegatorsPerValidator: 1 }) } });
    cleanups.push(() => node.stop());
    const config = buildConfig({
      nodes: [{ name: 'big', url: node.url, watch: { all_validators: true } }],
      data_api: { enabled: false },
      web: { listen_address: '127.0.0.1:0' },
    });
    const daemon = await startDaemon(config, {
      logger: createLogger({ level: 'warn', format: 'json', destination: new LogCapture() }),
      jitter: 0,
      autoStart: false,
    });
    cleanups.push(() => daemon.stop());
    await testHandle(daemon).pollNow();
    const url = `${daemon.url}/probe?target=big`;
    // One probe first: its size, and the render it costs.
    const first = await request(url, { headers: { 'accept-encoding': 'identity' } });
    const text = await first.body.text();
    expect(first.statusCode).toBe(200);
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(testHandle(daemon).probeRenders()).toBe(1);

    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const res = await request(url, { headers: { 'accept-encoding': i % 2 ? 'gzip' : 'identity' } });
          // Hashed as it streams in, so the client holds no bodies: the RSS measured is the server's.
          const hash = createHash('sha256');
          const body = res.headers['content-encoding'] === 'gzip' ? res.body.pipe(createGunzip()) : res.body;
          for await (const chunk of body) hash.update(chunk as Buffer);
          return { status: res.statusCode, digest: hash.digest('hex') };
        }),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      // Every answer is the same exposition (the same render), plain or gzip.
      expect(new Set(answers.map((a) => a.digest))).toEqual(new Set([createHash('sha256').update(text).digest('hex')]));
    } finally {
      clearInterval(sampler);
    }
    expect(testHandle(daemon).probeRenders()).toBe(1);
    // 40 renders of this node held about 390 MB here (the fix's own test run, before it); one shared answer, a few.
    expect((peak - base) / 1e6).toBeLessThan(120);

    // A new /metrics render (after a round) makes the next probe render again, once.
    await testHandle(daemon).pollNow();
    await Promise.all(Array.from({ length: 20 }, () => request(url).then((r) => r.body.dump())));
    expect(testHandle(daemon).probeRenders()).toBe(2);
  }, 60_000);
});
