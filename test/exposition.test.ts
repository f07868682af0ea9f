import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Counter, Gauge, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { METRICS, type MetricName, type Sample } from '../src/metrics/metric-defs.js';
import { ExpositionRenderer, MAX_LABEL_LENGTH, sanitizeLabelValue } from '../src/exposition/render.js';
import { FakeNode } from './fakes/fake-node.js';
import { generatePeers, generateValidators } from './fakes/fake-data.js';
import { parseExposition, scrapeGzipRaw, startTestDaemon, waitUntilAllUp, valueOf, scrape } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

function promtoolCheck(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-')), 'metrics.txt');
  writeFileSync(file, text);
  return execFileSync('sh', ['-c', `promtool check metrics < "${file}" 2>&1 || true`], { encoding: 'utf8' }).trim();
}

/** The same samples through a plain prom-client registry, the straightforward way. */
async function renderWithPromClient(samples: Sample[]): Promise<string> {
  const registry = new Registry();
  const metrics = new Map<string, Gauge | Counter>();
  for (const s of samples) {
    let m = metrics.get(s.name);
    if (!m) {
      const def = METRICS[s.name];
      const cfg = { name: s.name, help: def.help, labelNames: [...def.labels], registers: [registry] };
      m = def.type === 'counter' ? new Counter(cfg) : new Gauge(cfg);
      metrics.set(s.name, m);
    }
    if (m instanceof Counter) m.inc({ ...s.labels }, s.value);
    else m.set({ ...s.labels }, s.value);
  }
  return registry.metrics();
}

const sample = (name: MetricName, labels: Record<string, string>, value: number): Sample => ({ name, labels, value });

describe('exposition renderer', () => {
  it('gives the same series and values as prom-client for the same samples', async () => {
    const samples: Sample[] = [
      sample('avax_node_peers', { node: 'a' }, 12),
      sample('avax_node_peers', { node: 'b' }, 0),
      sample('avax_chain_height', { node: 'a', chain: 'P' }, 23797323),
      sample('avax_validator_potential_reward_avax', { node: 'a', node_id: 'NodeID-x', subnet: 's' }, 117.431493426),
      sample('avax_source_polls_total', { node: 'a', source: 'info' }, 42),
      sample('avax_exporter_ready', {}, 1),
      sample('avax_node_upgrade_timestamp_seconds', { node: 'a', upgrade: 'granite' }, 1763568000),
    ];
    const ours = (await new ExpositionRenderer().render(samples)).text.toString('utf8');
    const theirs = await renderWithPromClient(samples);
    expect(parseExposition(ours)).toEqual(parseExposition(theirs));
    for (const name of new Set(samples.map((s) => s.name))) {
      expect(ours).toContain(`# HELP ${name} ${METRICS[name].help}\n# TYPE ${name} ${METRICS[name].type}\n`);
    }
    // Metrics follow the contract's order; no metric without samples is announced.
    expect(ours.indexOf('avax_node_peers')).toBeLessThan(ours.indexOf('avax_chain_height'));
    expect(ours).not.toContain('avax_node_healthy');
  });

  it('escapes and bounds hostile label values; promtool accepts the result', async () => {
    const nasty = ['quote " and backslash \\ and\nnewline', 'lone \ud800 surrogate', 'nul\u0000byte', 'x'.repeat(10_000), 'ünïcødé ✓'];
    const samples = nasty.map((version, i) => sample('avax_node_peers_by_version', { node: 'n', version }, i));
    const r = new ExpositionRenderer();
    const text = (await r.render(samples)).text.toString('utf8');
    expect(r.rejected).toBe(0);
    expect(text).toContain('version="quote \\" and backslash \\\\ and\\nnewline"');
    expect(text).toContain('version="lone \ufffd surrogate"');
    expect(text).toContain('version="nulbyte"');
    expect(text).toContain(`version="${'x'.repeat(MAX_LABEL_LENGTH - 1)}…"`);
    expect(text).toContain('version="ünïcødé ✓"');
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text); // valid UTF-8 round trip
    expect(promtoolCheck(text)).toBe('');
    expect(sanitizeLabelValue('plain')).toBe('plain');
  });

  it('drops duplicate series (first wins) and samples that do not fit their metric', async () => {
    const r = new ExpositionRenderer();
    const exp = await r.render([
      sample('avax_node_peers', { node: 'a' }, 1),
      sample('avax_node_peers', { node: 'a' }, 2),
      sample('avax_node_peers', { node: 'a', extra: 'x' }, 3),
      sample('avax_node_peers', {}, 4),
    ]);
    expect(exp.text.toString()).toMatch(/^avax_node_peers\{node="a"\} 1$/m);
    expect(exp.series).toBe(1);
    expect(r.duplicates).toBe(1);
    expect(r.rejected).toBe(2);
  });

  it('formats special values the way Prometheus reads them', async () => {
    const text = (
      await new ExpositionRenderer().render([
        sample('avax_node_peers', { node: 'nan' }, NaN),
        sample('avax_node_peers', { node: 'inf' }, Infinity),
        sample('avax_node_peers', { node: 'big' }, 1e21),
      ])
    ).text.toString();
    expect(text).toContain('avax_node_peers{node="nan"} NaN\n');
    expect(text).toContain('avax_node_peers{node="inf"} +Inf\n');
    expect(text).toContain('avax_node_peers{node="big"} 1e+21\n');
  });
});

describe('incremental rendering', () => {
  const peers = (node: string, v: number) => sample('avax_node_peers', { node }, v);
  const up = (node: string, v: number) => sample('avax_source_up', { node, source: 'peers' }, v);

  it('formats only groups it has not seen, and gives the bytes of a flat render', async () => {
    const a = [peers('a', 1), up('a', 1)];
    const b = [peers('b', 2), up('b', 1)];
    const b2 = [peers('b', 3), up('b', 0)];
    const r = new ExpositionRenderer();
    const first = await r.renderGroups([a, b]);
    expect(r.formattedGroups).toBe(2);
    expect(first.text.equals((await new ExpositionRenderer().render([...a, ...b])).text)).toBe(true);
    const second = await r.renderGroups([a, b2]);
    expect(r.formattedGroups).toBe(1); // a came from the cache
    expect(second.text.equals((await new ExpositionRenderer().render([...a, ...b2])).text)).toBe(true);
    expect(second.text.toString()).toContain('avax_node_peers{node="b"} 3\n');
    expect(second.series).toBe(4);
  });

  it('drops a series a later group repeats (first wins), also when the earlier group is cached', async () => {
    const a = [peers('a', 1), peers('x', 1)];
    const b = [peers('x', 2), peers('b', 2), peers('b', 9)];
    const r = new ExpositionRenderer();
    await r.renderGroups([a]);
    const exp = await r.renderGroups([a, b]);
    const text = exp.text.toString();
    expect(text).toMatch(/^avax_node_peers\{node="x"\} 1$/m);
    expect(text).not.toMatch(/node="x"\} 2/);
    expect(text).not.toMatch(/node="b"\} 9/);
    expect(r.duplicates).toBe(2);
    expect(exp.series).toBe(3);
    expect(exp.text.equals((await new ExpositionRenderer().render([...a, ...b])).text)).toBe(true);
    // Label values that differ but are written the same (a NUL is dropped) are the same series too.
    const c = [peers('y', 1)];
    const d = [peers('y\u0000', 2)];
    const both = await r.renderGroups([c, d]);
    expect(both.series).toBe(1);
    expect(both.text.toString()).toMatch(/^avax_node_peers\{node="y"\} 1$/m);
  });

  it('matches a flat render over random sequences of groups, duplicates and bad samples included', async () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pool: Sample[][] = [];
    for (let i = 0; i < 30; i++) {
      const g: Sample[] = [];
      const shared = { node: `n${Math.floor(rnd() * 6)}`, chain: ['P', 'X', 'C'][Math.floor(rnd() * 3)] as string };
      for (let j = 0; j < 1 + Math.floor(rnd() * 6); j++) {
        const k = rnd();
        if (k < 0.4) g.push(sample('avax_chain_height', shared, Math.floor(rnd() * 100)));
        else if (k < 0.7) g.push(sample('avax_node_bootstrapped', shared, 1));
        else if (k < 0.9) g.push(peers(`n${Math.floor(rnd() * 6)}`, j));
        else g.push(sample('avax_node_peers', { node: 'n', extra: 'bad' }, 1));
      }
      pool.push(g);
    }
    const r = new ExpositionRenderer();
    for (let round = 0; round < 40; round++) {
      const groups = pool.filter(() => rnd() < 0.5);
      const cached = await r.renderGroups(groups);
      const flatRenderer = new ExpositionRenderer();
      const flat = await flatRenderer.render(groups.flat());
      expect(cached.text.equals(flat.text)).toBe(true);
      expect(cached.series).toBe(flat.series);
      expect([r.duplicates, r.rejected]).toEqual([flatRenderer.duplicates, flatRenderer.rejected]);
    }
  });
});

describe('cached exposition', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it('is byte-identical to a fresh render of the same state, plain and gzip, at mainnet scale', async () => {
    const node = await FakeNode.start({ state: { primaryValidators: generateValidators(1800, { delegatorsPerValidator: 1 }), peers: generatePeers(500) } });
    cleanup.push(() => node.stop());
    const { daemon } = await startTestDaemon({
      nodes: [{ name: 'big', url: node.url, watch: { all_validators: true } }],
      // One round, at start: a second one between the served render and the scrapes below would change the text
      // (on a slow machine the checks below take longer than a short interval).
      poll: { interval: '1h', timeout: '30s', max_age: '2h' },
    });
    cleanup.push(() => daemon.stop());
    await waitUntilAllUp(daemon);
    const served = daemon.exposition();
    const fresh = await testHandle(daemon).renderFresh();
    expect(served.series).toBeGreaterThan(18_000);
    expect(fresh.text.equals(served.text)).toBe(true);
    expect(gunzipSync(await served.gzip()).equals(served.text)).toBe(true);
    // What a scraper gets: the cached exposition followed by the process metrics, in both encodings.
    const plain = await scrape(daemon);
    expect(plain.startsWith(served.text.toString('utf8'))).toBe(true);
    expect(plain).toMatch(/^process_resident_memory_bytes \d+/m);
    const gz = await scrapeGzipRaw(daemon);
    expect(gz.encoding).toBe('gzip');
    expect(gz.text.startsWith(served.text.toString('utf8'))).toBe(true);
    expect(gz.text).toContain('process_cpu_seconds_total');
  });

  it('stays byte-identical to a fresh render while rounds change one node and not the other', async () => {
    const changing = await FakeNode.start();
    const steady = await FakeNode.start();
    cleanup.push(
      () => changing.stop(),
      () => steady.stop(),
    );
    // Rounds only when the test asks (pollNow), so the state cannot move between the served render and the fresh one.
    const { daemon } = await startTestDaemon({
      nodes: [
        { name: 'changing', url: changing.url },
        { name: 'steady', url: steady.url },
      ],
      poll: { interval: '1h', max_age: '2h' },
    });
    cleanup.push(() => daemon.stop());
    await waitUntilAllUp(daemon);
    for (let i = 0; i < 4; i++) {
      changing.state.heights.P += 7n;
      if (i === 2) changing.setFault('info.peers', { kind: 'status', status: 502 });
      await testHandle(daemon).pollNow();
      const served = daemon.exposition();
      const fresh = await testHandle(daemon).renderFresh();
      expect(fresh.text.toString()).toBe(served.text.toString());
      expect(valueOf(served.text.toString(), 'avax_chain_height', { node: 'changing', chain: 'P' })).toBe(Number(changing.state.heights.P));
    }
  });

  it('a state change is on /metrics as soon as the round that saw it has completed', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }] });
    cleanup.push(() => daemon.stop());
    await waitUntilAllUp(daemon);
    for (let i = 1; i <= 3; i++) {
      node.state.heights.C += 1n;
      const expected = Number(node.state.heights.C);
      // waitForRounds resolves on the render that follows the round: no timer in between.
      await testHandle(daemon).waitForRounds(1);
      await testHandle(daemon).waitForRounds(1);
      expect(valueOf(await scrape(daemon), 'avax_chain_height', { node: 'n', chain: 'C' })).toBe(expected);
    }
  });

  it('is served within 50 ms of the end of the round that saw the change, by the clock of the daemon and of the node', async () => {
    const node = await FakeNode.start();
    cleanup.push(() => node.stop());
    // Rounds on the scheduler's own timers, as in production.
    const { daemon } = await startTestDaemon({ nodes: [{ name: 'n', url: node.url }], poll: { interval: '200ms', timeout: '150ms' } });
    cleanup.push(() => daemon.stop());
    await waitUntilAllUp(daemon);
    const before = testHandle(daemon).freshnessLagsMs().length;
    for (let i = 1; i <= 5; i++) {
      node.state.heights.C += 1n;
      const expected = Number(node.state.heights.C);
      node.clearCalls();
      // The first render after a round that began after the change.
      await testHandle(daemon).waitForRounds(2);
      const servedAt = Date.now();
      // The node's side: the last request of the round was answered before the round could end,
      // so from it to the serving is an upper bound on the lag, measured outside the daemon.
      const lastCall = Math.max(...node.calls.map((c) => c.at));
      expect(servedAt - lastCall).toBeLessThanOrEqual(50);
      expect(valueOf(await scrape(daemon), 'avax_chain_height', { node: 'n', chain: 'C' })).toBe(expected);
    }
    const lags = testHandle(daemon).freshnessLagsMs().slice(before);
    expect(lags.length).toBeGreaterThanOrEqual(10);
    for (const lag of lags) {
      expect(lag).toBeGreaterThan(0);
      expect(lag).toBeLessThanOrEqual(50);
    }
  });
});
