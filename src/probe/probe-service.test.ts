/**
 * What one client can do to `/probe`'s probe-only slots and to the log:
 * one-off targets do not hold slots for probe.idle_timeout, and refusals are
 * logged at a bounded rate that refills, rather than never again after a
 * fixed number.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../config/load.js';
import { HttpTransport } from '../http/transport.js';
import { createLogger } from '../log.js';
import { ProbeService, REFUSAL_WARN_BURST } from './probe-service.js';
import { IDENTITY_SOURCE, NODE_SOURCES } from '../sources/catalog.js';
import { StateStore } from '../state/store.js';
import { LogCapture, perTestResources, seriesOf, valueOf } from '../../test/helpers/daemon.js';

const { daemonFor, fakeNode } = perTestResources();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('probe-only slots', () => {
  it('a client probing allowed URLs once each cannot hold every slot for idle_timeout: a one-off makes room after a poll interval, a scraped target keeps its slot', async () => {
    // Nothing listens there: every round fails at once, which is all the slots need.
    const urls = [1, 2, 3, 4, 5].map((i) => `http://127.0.0.1:9/t${i}`);
    const { daemon, logs } = await daemonFor({
      nodes: [],
      probe: { targets: urls, max_targets: 2, idle_timeout: '5m' },
      poll: { interval: '300ms', timeout: '200ms' },
    });
    const probe = async (url: string) => (await fetch(`${daemon.url}/probe?${new URLSearchParams({ target: url }).toString()}`)).status;
    // A scraped target: probed again and again.
    expect(await probe(urls[0] as string)).toBe(200);
    expect(await probe(urls[0] as string)).toBe(200);
    // A one-off takes the other slot; the next URL is refused while the one-off is fresh...
    expect(await probe(urls[1] as string)).toBe(200);
    expect(await probe(urls[2] as string)).toBe(503);
    // ...and takes its place a poll interval later, not after idle_timeout (5 minutes).
    await sleep(400);
    expect(await probe(urls[2] as string)).toBe(200);
    expect(logs.withMsg('probe target dropped').map((l) => l['url'])).toEqual([urls[1]]);
    await sleep(400);
    expect(await probe(urls[3] as string)).toBe(200);
    // The scraped target was never the one to go.
    expect(logs.withMsg('probe target dropped').map((l) => l['url'])).toEqual([urls[1], urls[2]]);
    expect(valueOf(await (await fetch(`${daemon.url}/metrics`)).text(), 'avax_exporter_probe_targets')).toBe(2);
    // Two scraped targets: no one-off to drop, the next is refused.
    expect(await probe(urls[3] as string)).toBe(200);
    await sleep(400);
    expect(await probe(urls[4] as string)).toBe(503);
  });
});

describe('probe-only targets of one network', () => {
  it("share the network's primary validator set as a fleet's nodes do: fetched by the first target's round, not once per target", async () => {
    const nodes = await Promise.all([fakeNode(), fakeNode(), fakeNode()]);
    const { daemon } = await daemonFor({ nodes: [], probe: { targets: nodes.map((n) => n.url) }, poll: { interval: '5s', timeout: '4s' } });
    for (const n of nodes) {
      const res = await fetch(`${daemon.url}/probe?${new URLSearchParams({ target: n.url }).toString()}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      const node = new URL(n.url).host;
      expect(valueOf(text, 'avax_source_up', { node, source: 'peers' })).toBe(1);
      // Each target's own peers are weighed with the set: the connected stake by version is there for every one.
      expect(seriesOf(text, 'avax_network_stake_majority_version_info', { node })).toHaveLength(1);
    }
    // The whole set (no nodeIDs) is asked once for the three; each target asks its own info.peers.
    const wholeSet = (n: (typeof nodes)[number]) =>
      n.calls.filter((c) => c.rpcMethod === 'platform.getCurrentValidators' && !(c.params as { nodeIDs?: unknown } | undefined)?.nodeIDs).length;
    expect(nodes.map(wholeSet).reduce((a, b) => a + b, 0)).toBe(1);
    for (const n of nodes) expect(n.calls.filter((c) => c.rpcMethod === 'info.peers')).toHaveLength(1);
  });
});

describe('probe refusal logs', () => {
  it('are rate-limited, not silenced for good: a burst of warnings, then one a second, with a count of those left out', async () => {
    const logs = new LogCapture();
    const config = buildConfig({ data_api: { enabled: false }, nodes: [] });
    const transport = new HttpTransport();
    let now = 1_000_000;
    const service = new ProbeService({
      config: () => config,
      nodes: () => config.nodes,
      store: new StateStore(),
      sources: NODE_SOURCES,
      identitySource: IDENTITY_SOURCE,
      transport,
      logger: createLogger({ level: 'debug', format: 'json', destination: logs }),
      now: () => now,
    });
    cleanups.push(async () => {
      await service.stop();
      await transport.close();
    });
    const warned = () => logs.lines.filter((l) => l['msg'] === 'probe refused' && l['level'] === 40);
    // 1,500 distinct refused targets at once: a burst of warnings, the rest at debug.
    for (let i = 0; i < 1_500; i++) expect((await service.probe(`http://10.0.0.1/${i}`)).status).toBe(403);
    expect(warned()).toHaveLength(REFUSAL_WARN_BURST);
    expect(logs.withMsg('probe refused')).toHaveLength(1_500);
    // Ten seconds later, ten more new refusals are warned; the first says how many were left out.
    now += 10_000;
    for (let i = 0; i < 20; i++) await service.probe(`http://10.0.0.2/${i}`);
    expect(warned()).toHaveLength(REFUSAL_WARN_BURST + 10);
    expect(warned()[REFUSAL_WARN_BURST]?.['suppressed']).toBe(1_500 - REFUSAL_WARN_BURST);
    // An hour later, refusals are warned again (the old limit silenced them for good after 1,000).
    now += 3_600_000;
    await service.probe('http://10.0.0.3/late');
    expect(warned().at(-1)?.['target']).toBe('http://10.0.0.3/late');
  });
});
