import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { FAKE_DENIED_NODE_ID, FakeDataApi, type FakeDataApiOptions } from './fakes/fake-data-api.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import type { Daemon } from '../src/daemon.js';
import { NODE_SOURCES } from '../src/sources/catalog.js';

/** The node sources polled for a node that watches no subnet (l1_uptime, l1_health and blockchain_status have nothing to ask it). */
const POLLED_SOURCES = NODE_SOURCES.filter((s) => s.name !== 'l1_uptime' && s.name !== 'l1_health' && s.name !== 'blockchain_status').map((s) => s.name);
import { PRIMARY_NETWORK_ID } from '../src/sources/node/validators/index.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp, type TestDaemon } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

const SELF = FIXTURE_IDS.nodeId;
const KEY = 'e2e-data-api-key-4b1d9c';
const DATA_API_SOURCES = ['data_api_validators', 'data_api_node_blocks', 'data_api_blocks', 'data_api_l1_validators'];
const NET = { network: 'mainnet' };
const V = { network: 'mainnet', node_id: SELF, subnet: PRIMARY_NETWORK_ID };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function fakeNode(networkId = 1): Promise<FakeNode> {
  const node = await FakeNode.start({ state: { networkId } });
  cleanup.push(() => node.stop());
  return node;
}

async function fakeDataApi(opts: FakeDataApiOptions = {}): Promise<FakeDataApi> {
  const api = await FakeDataApi.start({ apiKey: KEY, ...opts });
  cleanup.push(() => api.stop());
  return api;
}

function keyFile(key: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-key-')), 'data-api.key');
  writeFileSync(file, `${key}\n`);
  return file;
}

/** A daemon polling `node` and the fake Data API every 500 ms, with a limit that never gets in the way. */
async function daemonFor(node: FakeNode, api: FakeDataApi, dataApi: Record<string, unknown> = {}, raw: Record<string, unknown> = {}): Promise<TestDaemon> {
  const t = await startTestDaemon({
    nodes: [{ name: 'fake', url: node.url }],
    data_api: { url: api.url, key_file: keyFile(KEY), interval: '500ms', rate_limit: 6000, ...dataApi },
    ...raw,
  });
  cleanup.push(() => t.daemon.stop());
  return t;
}

function dataApiPoller(daemon: Daemon) {
  const p = testHandle(daemon).pollers.find((x) => x.name === 'data_api');
  if (!p) throw new Error('no Data API poller');
  return p;
}

/** Waits until every Data API source has succeeded and the exposition shows it. */
async function waitDataApiUp(daemon: Daemon, timeoutMs = 10_000): Promise<string> {
  let text = '';
  await eventually(async () => {
    text = await scrape(daemon);
    return DATA_API_SOURCES.every((source) => valueOf(text, 'avax_source_up', { node: 'data_api', source }) === 1);
  }, timeoutMs);
  return text;
}

/** Waits for `n` more completed Data API rounds and a render after them. */
async function dataApiRounds(daemon: Daemon, n: number): Promise<void> {
  const target = dataApiPoller(daemon).completedRounds + n;
  await eventually(() => dataApiPoller(daemon).completedRounds >= target, 10_000, 20);
  await testHandle(daemon).waitForRounds(1);
}

describe('end to end with the Data API', () => {
  it('serves the Data API series next to the node series, asking about the node own id on its network, with the key', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon, logs } = await daemonFor(node, api);
    await waitUntilAllUp(daemon);
    const text = await waitDataApiUp(daemon);

    const status = (s: string, subnet = PRIMARY_NETWORK_ID) => valueOf(text, 'avax_data_api_validator_status', { ...V, subnet, status: s });
    expect([status('active'), status('pending'), status('completed'), status('removed')]).toEqual([1, 0, 0, 0]);
    expect(status('removed', FIXTURE_IDS.legacySubnetId)).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_uptime_ratio', V)).toBe(0.9987);
    expect(valueOf(text, 'avax_data_api_validator_stake_avax', V)).toBe(2000);
    expect(valueOf(text, 'avax_data_api_validator_delegated_avax', V)).toBe(25);
    expect(valueOf(text, 'avax_data_api_validator_delegation_capacity_avax', V)).toBe(7975);
    expect(valueOf(text, 'avax_data_api_validator_delegators', V)).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_end_timestamp_seconds', V)).toBe(1782936000);
    expect(valueOf(text, 'avax_data_api_validator_potential_reward_avax', { ...V, kind: 'validation' })).toBe(117.431493426);
    expect(valueOf(text, 'avax_data_api_validator_potential_reward_avax', { ...V, kind: 'delegation' })).toBe(0.234862987);
    expect(valueOf(text, 'avax_data_api_validator_reachability_ratio', { ...NET, node_id: SELF })).toBe(1);
    expect(valueOf(text, 'avax_data_api_validator_benched_requests_ratio', { ...NET, node_id: SELF, chain: 'C' })).toBe(0.004);
    expect(valueOf(text, 'avax_data_api_validator_version_info', { ...NET, node_id: SELF, version: 'avalanchego/1.14.2' })).toBe(1);
    const P = { ...NET, node_id: SELF, chain: 'P' };
    expect(valueOf(text, 'avax_validator_proposed_blocks_total', P)).toBe(0);
    expect(valueOf(text, 'avax_validator_last_proposed_block_height', P)).toBe(23797322);
    expect(valueOf(text, 'avax_validator_last_proposed_block_timestamp_seconds', P)).toBe(1766080368);
    expect(valueOf(text, 'avax_data_api_chain_height', { ...NET, chain: 'P' })).toBe(23797323);
    expect(valueOf(text, 'avax_data_api_chain_height', { ...NET, chain: 'X' })).toBe(5094088);
    expect(valueOf(text, 'avax_data_api_chain_block_timestamp_seconds', { ...NET, chain: 'C' })).toBe(1787413231);
    expect(valueOf(text, 'avax_data_api_rate_limited_total', NET)).toBe(0);
    expect(valueOf(text, 'avax_source_max_age_seconds', { node: 'data_api', source: 'data_api_blocks' })).toBe(1.5);
    // The Data API series describe the network, not a polled node.
    for (const name of ['avax_data_api_validator_status', 'avax_validator_proposed_blocks_total', 'avax_data_api_chain_height']) {
      expect(
        seriesOf(text, name).every((s) => !('node' in s.labels) && s.labels['network'] === 'mainnet'),
        name,
      ).toBe(true);
    }
    // The node's own series are all still there.
    for (const source of POLLED_SOURCES) expect(valueOf(text, 'avax_source_up', { node: 'fake', source }), source).toBe(1);

    // Network from the node's id (1), the node's own id, the key on every request.
    expect(api.calls.length).toBeGreaterThan(0);
    expect(api.calls.every((c) => c.path.startsWith('/v1/networks/mainnet/') && c.apiKey === KEY)).toBe(true);
    expect(api.callsTo('validators').every((c) => c.path === `/v1/networks/mainnet/validators/${SELF}`)).toBe(true);
    expect(logs.withMsg('Data API polling started')).toHaveLength(1);
    expect(logs.withMsg('Data API polling started')[0]).toMatchObject({ network: 'mainnet', key: 'set' });
    const landing = await (await fetch(`${daemon.url}/`)).text();
    expect(landing).toContain('data_api_validators');
    for (const out of [text, landing, logs.raw.join('\n')]) expect(out).not.toContain(KEY);
  });

  it('a new proposed block increments the counter by exactly one', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon } = await daemonFor(node, api);
    await waitDataApiUp(daemon);
    const P = { ...NET, node_id: SELF, chain: 'P' };
    await dataApiRounds(daemon, 2);
    expect(valueOf(await scrape(daemon), 'avax_validator_proposed_blocks_total', P)).toBe(0);

    const block = api.addBlock('p-chain', SELF);
    api.addBlock('p-chain', 'NodeID-Lrn2ZrcnusnEQwVBU8i7spYM1G3V9ZVW9'); // someone else's: not counted
    await eventually(async () => valueOf(await scrape(daemon), 'avax_validator_proposed_blocks_total', P) === 1, 10_000);
    await dataApiRounds(daemon, 3);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_validator_proposed_blocks_total', P)).toBe(1);
    expect(valueOf(text, 'avax_validator_last_proposed_block_height', P)).toBe(Number(block.blockNumber));
    expect(valueOf(text, 'avax_validator_last_proposed_block_timestamp_seconds', P)).toBe(block.blockTimestamp);
    expect(valueOf(text, 'avax_data_api_chain_height', { ...NET, chain: 'P' })).toBe(Number(block.blockNumber) + 1);
    // Later polls only ask for blocks since the last one seen.
    expect(
      api
        .callsTo('nodeBlocks')
        .filter((r) => r.path.includes('/p-chain/'))
        .at(-1)?.query['startTimestamp'],
    ).toBe(String(block.blockTimestamp));
  });

  it('the Data API going down leaves the node metrics untouched; its series go after their max age and come back', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon, logs } = await daemonFor(node, api);
    await waitDataApiUp(daemon);
    await api.stop();
    await eventually(async () => {
      const t = await scrape(daemon);
      return DATA_API_SOURCES.every((source) => valueOf(t, 'avax_source_up', { node: 'data_api', source }) === 0);
    }, 5_000);
    // Past the max age (3 × 500 ms) the Data API values are dropped; the source self-metrics stay.
    await eventually(async () => seriesOf(await scrape(daemon), 'avax_data_api_chain_height').length === 0, 8_000);
    const down = await scrape(daemon);
    for (const m of ['avax_data_api_validator_status', 'avax_data_api_validator_uptime_ratio', 'avax_validator_proposed_blocks_total'])
      expect(seriesOf(down, m), m).toEqual([]);
    expect(valueOf(down, 'avax_source_poll_failures_total', { node: 'data_api', source: 'data_api_blocks', reason: 'connect' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(down, 'avax_source_last_success_timestamp_seconds', { node: 'data_api', source: 'data_api_blocks' })).toBeGreaterThan(0);
    // The nodes are untouched: every source up, their values current, the exporter ready.
    for (const source of POLLED_SOURCES) expect(valueOf(down, 'avax_source_up', { node: 'fake', source }), source).toBe(1);
    expect(valueOf(down, 'avax_chain_height', { node: 'fake', chain: 'P' })).toBe(Number(node.state.heights.P));
    expect(valueOf(down, 'avax_node_healthy', { node: 'fake' })).toBe(1);
    expect(valueOf(down, 'avax_exporter_ready')).toBe(1);
    expect((await fetch(`${daemon.url}/-/ready`)).status).toBe(200);
    expect(logs.withMsg('source down').filter((l) => l['node'] === 'data_api')).toHaveLength(DATA_API_SOURCES.length);
    expect(logs.withMsg('source down').filter((l) => l['node'] === 'fake')).toEqual([]);

    await api.restart();
    const back = await waitDataApiUp(daemon);
    expect(valueOf(back, 'avax_data_api_chain_height', { ...NET, chain: 'P' })).toBe(23797323);
    expect(logs.withMsg('source up').filter((l) => l['node'] === 'data_api')).toHaveLength(DATA_API_SOURCES.length);
  });

  it('a 429 is counted, the source is down as rate_limited, and the service is left alone for as long as it asked', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon } = await daemonFor(node, api);
    await waitDataApiUp(daemon);
    const before = api.calls.length;
    api.setFault('blocks', { kind: 'rate-limit', retryAfter: '3', times: 1 });
    await eventually(async () => valueOf(await scrape(daemon), 'avax_data_api_rate_limited_total', NET) === 1, 8_000);
    // The first blocks request after the fault was set got the 429.
    const at429 = api.calls.slice(before).find((c) => c.route === 'blocks')?.at ?? 0;
    await dataApiRounds(daemon, 3);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'data_api', source: 'data_api_blocks' })).toBe(0);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source: 'data_api_blocks', reason: 'rate_limited' })).toBeGreaterThanOrEqual(1);
    // Requests already in flight with the 429 may finish; after that, nothing until Retry-After has passed.
    expect(api.calls.filter((c) => c.at > at429 + 300 && c.at < at429 + 2_900)).toEqual([]);
    // Then polling resumes by itself.
    await waitDataApiUp(daemon, 10_000);
    expect(valueOf(await scrape(daemon), 'avax_data_api_rate_limited_total', NET)).toBe(1);
  });

  it('a round that needs more requests than one burst spreads them over its interval, inside the limit', async () => {
    // Four watched ids ask 23 requests a round (validations, L1 validations and P, X, C node blocks per id, plus
    // three heads). A limit of 600/min (10 a second, bursts of 10) holds 10 + 10 × 0.4 s = 14 of them within the
    // node poll's timeout, but 10 × 2.7 s = 27 within 90 % of the round's interval of 3 s: the second is what the
    // limit allows, round after round, and all of it should be used rather than failing the round as rate_limited.
    const node = await fakeNode();
    const api = await fakeDataApi();
    const ids = [SELF, FAKE_DENIED_NODE_ID, 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'];
    const { daemon, logs } = await daemonFor(node, api, { interval: '3s', rate_limit: 600 }, { watch: { node_ids: ids } });
    const text = await waitDataApiUp(daemon, 15_000);
    expect(logs.raw.join('\n')).not.toContain('a Data API round needs');
    for (const source of DATA_API_SOURCES) {
      expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source, reason: 'rate_limited' }) ?? 0, source).toBe(0);
    }
    for (const id of ids)
      expect(
        api.callsTo('validators').some((c) => c.path.endsWith(`/validators/${id}`)),
        id,
      ).toBe(true);
    expect(api.callsTo('nodeBlocks').length).toBeGreaterThanOrEqual(ids.length * 3);
    // The chains' heads take the round's first turns (within its first burst), before any validator's blocks.
    expect(api.calls.slice(0, 10).filter((c) => c.route === 'blocks')).toHaveLength(3);
    // Never faster than the limit: by any call, at most a burst plus the rate times the time since the first.
    const first = api.calls[0]?.at ?? 0;
    api.calls.forEach((c, i) => expect(i + 1, `call ${i}`).toBeLessThanOrEqual(10 + Math.floor(((c.at - first) / 1000) * 10) + 1));
  });

  it('rounds that cannot fit their limit come less often, every source up, and the exporter says so once', async () => {
    // The same 23 requests with a round every second at 10 a second: 9 fit in 0.9 s, round after round; every 3 s, 27 do.
    const node = await fakeNode();
    const api = await fakeDataApi();
    const ids = [SELF, FAKE_DENIED_NODE_ID, 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'];
    const { daemon, logs } = await daemonFor(node, api, { interval: '1s', rate_limit: 600 }, { watch: { node_ids: ids } });
    await waitDataApiUp(daemon, 15_000);
    const from = dataApiPoller(daemon).completedRounds;
    const t0 = Date.now();
    await dataApiRounds(daemon, 2);
    expect(Date.now() - t0, 'two rounds at the interval that fits').toBeGreaterThanOrEqual(4_500);
    const text = await scrape(daemon);
    for (const source of DATA_API_SOURCES) {
      expect(valueOf(text, 'avax_source_up', { node: 'data_api', source }), source).toBe(1);
      expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source, reason: 'rate_limited' }) ?? 0, source).toBe(0);
    }
    // The series are kept three of the longer intervals.
    expect(valueOf(text, 'avax_source_max_age_seconds', { node: 'data_api', source: 'data_api_blocks' })).toBe(9);
    const warned = logs.raw.filter((l) => l.includes('a Data API round needs'));
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0] ?? '{}')).toMatchObject({ level: 40, node: 'data_api', requests: 23, capacity: 9, interval_ms: 3_000 });
    expect(warned[0]).toContain(
      'the Data API is polled every 3s instead, and its series are kept for 9s. For a round every 1s, set data_api.rate_limit to at least 1534',
    );
    expect(dataApiPoller(daemon).completedRounds).toBeGreaterThanOrEqual(from + 2);
    expect(((await (await fetch(`${daemon.url}/-/status`)).json()) as { data_api_rounds: unknown }).data_api_rounds).toEqual({
      interval: '3s',
      watched_node_ids: 4,
      requests_needed: 23,
      requests_allowed_at_configured_interval: 9,
    });
    const first = api.calls[0]?.at ?? 0;
    api.calls.forEach((c, i) => expect(i + 1, `call ${i}`).toBeLessThanOrEqual(10 + Math.floor(((c.at - first) / 1000) * 10) + 1));
  });

  it('a failing Data API poll logs the service error, never the key', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi({ apiKey: 'the-key-the-service-expects' });
    const { daemon, logs } = await daemonFor(node, api);
    await eventually(() => logs.withMsg('source down').filter((l) => l['node'] === 'data_api').length === DATA_API_SOURCES.length, 8_000);
    const line = logs.withMsg('source down').find((l) => l['source'] === 'data_api_validators');
    expect(line).toMatchObject({ reason: 'http_status' });
    expect(String(line?.['err'])).toContain('HTTP 401 Unauthorized: Invalid API key');
    expect(api.calls.every((c) => c.apiKey === KEY)).toBe(true); // it was sent...
    const landing = await (await fetch(`${daemon.url}/`)).text();
    for (const out of [logs.raw.join('\n'), await scrape(daemon), landing]) expect(out).not.toContain(KEY); // ...and shown nowhere
  });

  it('the network comes from the nodes: fuji for network id 5, none for a network the Data API does not serve', async () => {
    const fuji = await fakeNode(5);
    const api = await fakeDataApi({ state: { network: 'fuji' } });
    const { daemon } = await daemonFor(fuji, api);
    const text = await waitDataApiUp(daemon);
    expect(api.calls.every((c) => c.path.startsWith('/v1/networks/fuji/'))).toBe(true);
    expect(valueOf(text, 'avax_data_api_validator_status', { ...V, network: 'fuji', status: 'active' })).toBe(1);

    const local = await fakeNode(12345);
    const unserved = await fakeDataApi();
    const t = await daemonFor(local, unserved);
    await waitUntilAllUp(t.daemon);
    await testHandle(t.daemon).waitForRounds(2);
    // Data API paths only: another test's daemon (other workers run at once) may still poll a stopped node of its own
    // whose port the OS gave to this fake since, as CI saw once (/ext/info, /ext/health, ... here).
    expect(unserved.calls.filter((c) => c.path.startsWith('/v1/'))).toEqual([]);
    expect(
      testHandle(t.daemon)
        .store.all()
        .filter((s) => s.node === 'data_api'),
    ).toEqual([]);
    const warn = t.logs.lines.filter((l) => l['node'] === 'data_api' && l['level'] === 40);
    expect(warn).toHaveLength(1);
    expect(String(warn[0]?.['msg'])).toMatch(/network id 12345, which the Data API does not serve/);
    expect(valueOf(await scrape(t.daemon), 'avax_source_up', { node: 'fake', source: 'info' })).toBe(1);
  });

  it('a configured network wins, and --data-api.enabled=false polls nothing', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi({ state: { network: 'fuji' } });
    const { daemon } = await daemonFor(node, api, { network: 'testnet' });
    await waitDataApiUp(daemon);
    expect(api.calls.every((c) => c.path.startsWith('/v1/networks/testnet/'))).toBe(true);
    // The node is on mainnet: its own id is not a fuji validator, so only the chains are asked about.
    expect(api.callsTo('validators')).toEqual([]);

    const off = await fakeDataApi();
    const t = await daemonFor(node, off, { enabled: false });
    await waitUntilAllUp(t.daemon);
    await testHandle(t.daemon).waitForRounds(2);
    expect(off.calls.filter((c) => c.path.startsWith('/v1/'))).toEqual([]);
    expect(testHandle(t.daemon).pollers.map((p) => p.name)).toEqual(['fake']);
  });

  it('promtool check metrics accepts the exposition with the Data API series', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon } = await daemonFor(node, api);
    await waitDataApiUp(daemon);
    api.addBlock('p-chain', SELF);
    await eventually(async () => valueOf(await scrape(daemon), 'avax_validator_proposed_blocks_total', { ...NET, node_id: SELF, chain: 'P' }) === 1, 8_000);
    const text = await scrape(daemon);
    expect(seriesOf(text, 'avax_data_api_validator_status').length).toBeGreaterThan(0);
    const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-')), 'metrics.txt');
    writeFileSync(file, text);
    const out = execFileSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('');
  });
});
