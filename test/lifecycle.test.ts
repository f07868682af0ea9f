import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../src/config/load.js';
import { startDaemon, type Daemon, testHandle } from '../src/daemon.js';
import { createLogger } from '../src/log.js';
import { FakeNode } from './fakes/fake-node.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import { LogCapture, eventually, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function fake(): Promise<FakeNode> {
  const n = await FakeNode.start();
  cleanup.push(() => n.stop());
  return n;
}

/** A daemon whose configuration is re-read from a mutable raw object, as the CLI re-reads flags and the file. */
async function reloadable(raw: { current: Record<string, unknown> }, extra: { lifecycle?: boolean } = {}) {
  const logs = new LogCapture();
  const base = () => ({
    ...raw.current,
    web: { listen_address: '127.0.0.1:0', ...(extra.lifecycle ? { enable_lifecycle: true } : {}), ...(raw.current['web'] as object | undefined) },
    poll: { interval: '500ms', timeout: '400ms' },
    data_api: { enabled: false },
  });
  const daemon = await startDaemon(buildConfig(base()), {
    logger: createLogger({ level: 'debug', format: 'json', destination: logs }),
    jitter: 0,
    reloadConfig: () => buildConfig(base()),
  });
  cleanup.push(() => daemon.stop());
  return { daemon, logs };
}

describe('configuration reload', () => {
  it('a good config takes effect without dropping unchanged nodes’ data; a bad one is rejected and the old one keeps running', async () => {
    const [a, b, c] = [await fake(), await fake(), await fake()];
    c.state.heights.P = 333n;
    const raw = {
      current: {
        nodes: [
          { name: 'a', url: a.url },
          { name: 'b', url: b.url },
        ],
      } as Record<string, unknown>,
    };
    const { daemon, logs } = await reloadable(raw);
    await waitUntilAllUp(daemon);
    const pollerA = testHandle(daemon).pollers.find((p) => p.name === 'a');
    const pollsBefore = valueOf(await scrape(daemon), 'avax_source_polls_total', { node: 'a', source: 'info' }) ?? 0;

    raw.current = {
      nodes: [
        { name: 'a', url: a.url },
        { name: 'c', url: c.url },
      ],
    };
    const ok = await daemon.reload();
    expect(ok).toMatchObject({ ok: true });
    expect(ok.message).toMatch(/1 node\(s\) unchanged, 1 started, 1 removed/);
    expect(testHandle(daemon).pollers.find((p) => p.name === 'a')).toBe(pollerA); // same poller, same learned facts
    await eventually(async () => valueOf(await scrape(daemon), 'avax_chain_height', { node: 'c', chain: 'P' }) === 333, 8_000);
    let text = await scrape(daemon);
    expect(seriesOf(text, 'avax_node_info', { node: 'b' })).toEqual([]);
    expect(seriesOf(text, 'avax_source_up', { node: 'b' })).toEqual([]);
    // The counter keeps counting from where it was: a's poller and its state were kept.
    await eventually(async () => (valueOf(await scrape(daemon), 'avax_source_polls_total', { node: 'a', source: 'info' }) ?? 0) > pollsBefore, 5_000);
    expect(valueOf(text, 'avax_chain_height', { node: 'a', chain: 'P' })).toBe(Number(a.state.heights.P));
    expect(valueOf(text, 'avax_exporter_config_last_reload_successful')).toBe(1);
    const successAt = valueOf(text, 'avax_exporter_config_last_reload_success_timestamp_seconds') ?? 0;

    raw.current = { nodes: [{ name: 'a', url: 'ftp://nope' }] };
    const bad = await daemon.reload();
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/nodes\[0\]\.url: "ftp:\/\/nope" must be an http\(s\) URL/);
    await testHandle(daemon).waitForRounds(1);
    text = await scrape(daemon);
    expect(valueOf(text, 'avax_exporter_config_last_reload_successful')).toBe(0);
    expect(valueOf(text, 'avax_exporter_config_last_reload_success_timestamp_seconds')).toBe(successAt);
    for (const node of ['a', 'c']) expect(valueOf(text, 'avax_source_up', { node, source: 'info' }), node).toBe(1);
    expect(logs.lines.some((l) => String(l['msg']).startsWith('configuration reload failed') && l['level'] === 50)).toBe(true);

    raw.current = { nodes: [{ name: 'a', url: a.url }], web: { listen_address: '127.0.0.1:1' } };
    const fixed = await daemon.reload();
    expect(fixed).toMatchObject({ ok: false });
    expect(fixed.message).toMatch(/web\.listen_address cannot change without a restart/);
  });

  it('POST /-/reload when lifecycle endpoints are on', async () => {
    const a = await fake();
    const raw = { current: { nodes: [{ name: 'a', url: a.url }] } as Record<string, unknown> };
    const { daemon } = await reloadable(raw, { lifecycle: true });
    await waitUntilAllUp(daemon);
    raw.current = { nodes: [{ name: 'renamed', url: a.url }] };
    const res = await fetch(`${daemon.url}/-/reload`, { method: 'POST' });
    expect(res.status).toBe(200);
    await eventually(async () => seriesOf(await scrape(daemon), 'avax_node_info', { node: 'renamed' }).length === 1, 8_000);
    raw.current = { nodes: 'not a list' };
    const bad = await fetch(`${daemon.url}/-/reload`, { method: 'POST' });
    expect(bad.status).toBe(500);
    expect(await bad.text()).toMatch(/reload failed/);
  });
});

describe('series cap', () => {
  it('--watch.max-validators keeps the watched and the heaviest, warns once, and counts the rest', async () => {
    const node = await fake();
    const logs = new LogCapture();
    const daemon: Daemon = await startDaemon(
      buildConfig({
        web: { listen_address: '127.0.0.1:0' },
        poll: { interval: '500ms', timeout: '400ms' },
        data_api: { enabled: false },
        nodes: [{ name: 'n', url: node.url, watch: { all_validators: true, max_validators: 1 } }],
      }),
      { logger: createLogger({ level: 'info', format: 'json', destination: logs }), jitter: 0 },
    );
    cleanup.push(() => daemon.stop());
    await waitUntilAllUp(daemon);
    await testHandle(daemon).waitForRounds(1);
    const text = await scrape(daemon);
    const active = seriesOf(text, 'avax_validator_active', { node: 'n', subnet: '11111111111111111111111111111111LpoYY' });
    expect(active.map((s) => s.labels['node_id'])).toEqual([FIXTURE_IDS.nodeId]); // the node's own id is watched
    expect(valueOf(text, 'avax_exporter_validators_omitted', { node: 'n', subnet: '11111111111111111111111111111111LpoYY' })).toBe(
      node.state.primaryValidators.length - 1,
    );
    expect(logs.lines.filter((l) => String(l['msg']).startsWith('validator set larger than'))).toHaveLength(1);
    // avax_exporter_series reports the size of the previous exposition: about what this one holds.
    const series = valueOf(text, 'avax_exporter_series') ?? 0;
    expect(Math.abs(series - daemon.exposition().series)).toBeLessThanOrEqual(5);
  });
});
