/**
 * `/probe?target=`: the multi-target exporter pattern (blackbox_exporter's
 * /probe) against real HTTP servers on 127.0.0.1. Configured nodes are
 * answered from their poller's state; `probe.targets` URLs get a poller of
 * their own on first probe (reused, single flight, dropped when idle, capped);
 * everything else is refused without any connection, which a listening trap
 * socket checks. The documented sharded Prometheus configuration is checked
 * by promtool and scraped by a real Prometheus.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { request as undiciRequest } from 'undici';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig, loadConfig, redactConfig } from '../src/config/load.js';
import type { Daemon } from '../src/daemon.js';
import { FakeNode } from './fakes/fake-node.js';
import bcrypt from 'bcryptjs';
import type { Exposition } from '../src/exposition/render.js';
import { HttpTransport } from '../src/http/transport.js';
import { createProbeHandler } from '../src/server/probe.js';
import { createExporterServer } from '../src/server/server.js';
import { createLogger } from '../src/log.js';
import { ProbeService, resolveProbeTarget } from '../src/probe/probe-service.js';
import { IDENTITY_SOURCE, NODE_SOURCES } from '../src/sources/catalog.js';
import { StateStore } from '../src/state/store.js';
import { eventually, LogCapture, parseExposition, perTestResources, scrape, startTestDaemon, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { problemsOf } from './helpers/config.js';
import { startPrometheus, stopProcess } from './helpers/prometheus.js';
import { testHandle } from '../src/daemon.js';

const { fakeNode, daemonFor } = perTestResources();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const EMPTY: Exposition = {
  text: Buffer.from(''),
  gzip: () => Promise.resolve(gzipSync('')),
  series: 0,
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ProbeAnswer {
  status: number;
  type: string | null;
  text: string;
}

/** GET /probe with `target` (URL-encoded), or with a raw query string. */
async function probe(
  daemon: Daemon,
  target: string | undefined,
  init: { query?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<ProbeAnswer> {
  const qs = init.query ?? (target === undefined ? '' : `?${new URLSearchParams({ target }).toString()}`);
  const res = await fetch(`${daemon.url}/probe${qs}`, { method: init.method ?? 'GET', headers: { 'accept-encoding': 'identity', ...init.headers } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** Every series of an exposition: metric name and labels. */
function series(text: string): { name: string; labels: Record<string, string> }[] {
  return [...parseExposition(text).keys()].map((key) => {
    const brace = key.indexOf('{');
    const labels: Record<string, string> = {};
    if (brace !== -1)
      for (const m of key.slice(brace + 1, -1).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
    return { name: brace === -1 ? key : key.slice(0, brace), labels };
  });
}

/** The `node` label of a URL that is not a configured node: host:port. */
const hostPort = (url: string) => new URL(url).host;

/** A listening socket that must never be connected to: counts connections and closes them. */
async function trap(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: NetServer = createNetServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** An HTTP server that redirects every request to `location`. */
async function redirector(location: string): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(302, { location, 'content-length': '0' });
    res.end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((ok) => server.close(() => ok()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

/** Upstream calls of one JSON-RPC method a fake node received. */
const callsOf = (node: FakeNode, method: string) => node.calls.filter((c) => c.rpcMethod === method).length;

describe('/probe of a configured node', () => {
  it('by name or by URL: that node series only, from its poller state, with no upstream call and no self-metrics', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    // A long interval: no background round runs while the probes are made.
    const { daemon } = await daemonFor({
      nodes: [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
      ],
      poll: { interval: '60s', timeout: '5s' },
    });
    await waitUntilAllUp(daemon);
    a.clearCalls();
    b.clearCalls();

    const byName = await probe(daemon, 'a');
    expect(byName.status).toBe(200);
    expect(byName.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const all = series(byName.text);
    expect(all.length).toBeGreaterThan(50);
    // Every series is node a's; nothing of node b and none of the exporter's own series.
    for (const s of all) expect(s.labels['node'], `${s.name} ${JSON.stringify(s.labels)}`).toBe('a');
    // (avax_exporter_validators_omitted{node} is about the node and stays.)
    expect(byName.text).not.toMatch(/^(avax_exporter_(build_info|ready|series|config_|probe_targets)|process_|nodejs_)/m);
    expect(byName.text).not.toContain('node="b"');
    expect(valueOf(byName.text, 'avax_node_info', { node: 'a' })).toBe(1);
    expect(valueOf(byName.text, 'avax_source_up', { node: 'a', source: 'info' })).toBe(1);
    expect(valueOf(byName.text, 'avax_probe_success', { node: 'a' })).toBe(1);
    expect(valueOf(byName.text, 'avax_probe_duration_seconds', { node: 'a' })).toBeLessThan(1);
    expect(valueOf(byName.text, 'avax_probe_poll_age_seconds', { node: 'a' })).toBeGreaterThanOrEqual(0);

    // The same answer as node a's part of /metrics (the probe figures aside): one state, two views.
    const probed = new Map([...parseExposition(byName.text)].filter(([k]) => !k.startsWith('avax_probe_')));
    const metrics = new Map([...parseExposition(await scrape(daemon))].filter(([k]) => k.includes('node="a"')));
    expect(probed).toEqual(metrics);

    // By URL, in any spelling with the same origin and path.
    const withoutProbeFigures = (t: string) => t.replace(/^avax_probe_(duration|poll_age)_seconds.*\n/gm, '');
    for (const target of [a.url, `${a.url}/`, `${a.url}//`, a.url.replace('http://', 'HTTP://')]) {
      const byUrl = await probe(daemon, target);
      expect(byUrl.status, target).toBe(200);
      expect(withoutProbeFigures(byUrl.text), target).toBe(withoutProbeFigures(byName.text));
    }
    // Answered from the poller's state: the node was not asked anything.
    expect(a.calls).toEqual([]);
    expect(b.calls).toEqual([]);

    // gzip when asked for, like /metrics; HEAD answers without a body.
    const gz = await undiciRequest(`${daemon.url}/probe?target=b`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.statusCode).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    const gzText = gunzipSync(Buffer.from(await gz.body.arrayBuffer())).toString('utf8');
    expect(valueOf(gzText, 'avax_node_info', { node: 'b' })).toBe(1);
    expect(gzText).not.toContain('node="a"');
    const head = await probe(daemon, 'a', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('avax_probe_success follows the identity source; the landing page links to /probe', async () => {
    const a = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'a', url: a.url }] });
    await waitUntilAllUp(daemon);
    expect(valueOf((await probe(daemon, 'a')).text, 'avax_probe_success', { node: 'a' })).toBe(1);
    a.setFault('info.getNetworkID', { kind: 'status', status: 502 });
    await testHandle(daemon).waitForRounds(2);
    const down = await probe(daemon, 'a');
    expect(down.status).toBe(200);
    expect(valueOf(down.text, 'avax_probe_success', { node: 'a' })).toBe(0);
    expect(valueOf(down.text, 'avax_source_up', { node: 'a', source: 'info' })).toBe(0);
    const html = await (await fetch(`${daemon.url}/`)).text();
    expect(html).toContain('href="/probe"');
  });
});

describe('/probe of a probe.targets URL', () => {
  it('polls on first probe, shares one round between concurrent probes, reuses it within the poll interval, and never shows in /metrics', async () => {
    const a = await fakeNode();
    const c = await fakeNode();
    // Slow enough that the concurrent probes overlap one round.
    c.setFault('*', { kind: 'delay', ms: 150 });
    const { daemon } = await daemonFor({ nodes: [{ name: 'a', url: a.url }], probe: { targets: [c.url] }, poll: { interval: '2s', timeout: '1500ms' } });
    await waitUntilAllUp(daemon);
    expect(c.calls).toEqual([]); // not polled before a probe asks for it
    const name = hostPort(c.url);

    const answers = await Promise.all([probe(daemon, c.url), probe(daemon, c.url), probe(daemon, `${c.url}/`)]);
    for (const ans of answers) {
      expect(ans.status).toBe(200);
      expect(valueOf(ans.text, 'avax_probe_success', { node: name })).toBe(1);
      expect(valueOf(ans.text, 'avax_node_info', { node: name })).toBe(1);
      expect(valueOf(ans.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(1);
      for (const s of series(ans.text)) expect(s.labels['node']).toBe(name);
    }
    expect(callsOf(c, 'info.getNetworkID')).toBe(1);

    // Within the poll interval: served from that round, no new call.
    const callsBefore = c.calls.length;
    const again = await probe(daemon, c.url);
    expect(valueOf(again.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(1);
    expect(c.calls.length).toBe(callsBefore);

    // /metrics: the configured node and the exporter, not the probe-only target (only their number).
    await eventually(async () => valueOf(await scrape(daemon), 'avax_exporter_probe_targets') === 1);
    const metrics = await scrape(daemon);
    expect(metrics).not.toContain(`node="${name}"`);
    expect(valueOf(metrics, 'avax_node_info', { node: 'a' })).toBe(1);
    expect(metrics).not.toMatch(/^avax_probe_/m);

    // Once the interval has passed, the next probe runs a new round.
    await sleep(2_100);
    const later = await probe(daemon, c.url);
    expect(valueOf(later.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(2);
    expect(callsOf(c, 'info.getNetworkID')).toBe(2);
  });

  it('with no configured node at all: is dropped after probe.idle_timeout without probes and starts afresh on the next', async () => {
    const c = await fakeNode();
    const { daemon, logs } = await daemonFor({ nodes: [], probe: { targets: [c.url], idle_timeout: '1s' }, poll: { interval: '500ms', timeout: '400ms' } });
    const name = hostPort(c.url);
    const first = await probe(daemon, c.url);
    expect(valueOf(first.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(1);
    await eventually(async () => valueOf(await scrape(daemon), 'avax_exporter_probe_targets') === 1);
    // Not probed: dropped (and not polled in the meantime: it only polls when probed).
    await eventually(async () => valueOf(await scrape(daemon), 'avax_exporter_probe_targets') === 0, 5_000);
    expect(callsOf(c, 'info.getNetworkID')).toBe(1);
    expect(logs.withMsg('probe target dropped')).toEqual([expect.objectContaining({ node: name, reason: 'not probed for probe.idle_timeout' })]);
    const fresh = await probe(daemon, c.url);
    expect(valueOf(fresh.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(1);
    expect(logs.withMsg('probe target added')).toHaveLength(2);
  });

  it('honours X-Prometheus-Scrape-Timeout-Seconds: a slow first round is not waited for past it, and serves the next probe', async () => {
    const d = await fakeNode();
    // Info alone is two calls in a row: at least 2 s.
    d.setFault('*', { kind: 'delay', ms: 1_000 });
    const { daemon } = await daemonFor({ nodes: [], probe: { targets: [d.url] }, poll: { interval: '10s', timeout: '5s' } });
    const name = hostPort(d.url);
    const t0 = Date.now();
    // 0.6 s: half of it is kept (the 0.5 s offset would leave too little), so the answer comes after about 0.3 s, long before the round ends.
    const quick = await probe(daemon, d.url, { headers: { 'x-prometheus-scrape-timeout-seconds': '0.6' } });
    const took = Date.now() - t0;
    expect(quick.status).toBe(200);
    expect(took).toBeLessThan(1_500);
    expect(valueOf(quick.text, 'avax_probe_success', { node: name })).toBe(0);
    expect(valueOf(quick.text, 'avax_node_info', { node: name })).toBeUndefined();
    expect(valueOf(quick.text, 'avax_probe_poll_age_seconds', { node: name })).toBeUndefined();
    // The round went on; a probe without the header waits for that same round.
    const patient = await probe(daemon, d.url);
    expect(valueOf(patient.text, 'avax_probe_success', { node: name })).toBe(1);
    expect(valueOf(patient.text, 'avax_source_polls_total', { node: name, source: 'info' })).toBe(1);
    expect(callsOf(d, 'info.getNetworkID')).toBe(1);
    for (const bad of ['soon', '-1', '0', '']) {
      const ans = await probe(daemon, d.url, { headers: { 'x-prometheus-scrape-timeout-seconds': bad } });
      expect(ans.status, bad).toBe(400);
      expect(ans.text).toMatch(/x-prometheus-scrape-timeout-seconds/);
    }
  });

  it('after a reload: a URL taken off the allow-list is refused and its poller dropped; a changed poll setting starts a new poller', async () => {
    const c = await fakeNode();
    const logs = new LogCapture();
    let config = buildConfig({
      data_api: { enabled: false },
      nodes: [],
      probe: { targets: [c.url], idle_timeout: '1s' },
      poll: { interval: '500ms', timeout: '400ms' },
    });
    const transport = new HttpTransport();
    const service = new ProbeService({
      config: () => config,
      nodes: () => config.nodes,
      store: new StateStore(),
      sources: NODE_SOURCES,
      identitySource: IDENTITY_SOURCE,
      transport,
      logger: createLogger({ level: 'debug', format: 'json', destination: logs }),
    });
    cleanups.push(async () => {
      await service.stop();
      await transport.close();
    });
    const polls = async () => {
      const out = await service.probe(c.url);
      if (out.status !== 200) throw new Error(`probe answered ${out.status}`);
      return valueOf(out.exposition.text.toString('utf8'), 'avax_source_polls_total', { node: hostPort(c.url), source: 'info' });
    };
    expect(await polls()).toBe(1);
    await sleep(600);
    expect(await polls()).toBe(2);
    // Another poll timeout: the old poller and what it counted go, a new one starts.
    config = buildConfig({
      data_api: { enabled: false },
      nodes: [],
      probe: { targets: [c.url], idle_timeout: '1s' },
      poll: { interval: '500ms', timeout: '300ms' },
    });
    expect(await polls()).toBe(1);
    expect(logs.withMsg('probe target dropped')).toEqual([expect.objectContaining({ reason: 'configuration changed' })]);
    // Off the allow-list: refused at once, and the sweeper drops its poller.
    config = buildConfig({ data_api: { enabled: false }, nodes: [], probe: { idle_timeout: '1s' }, poll: { interval: '500ms', timeout: '300ms' } });
    expect(await service.probe(c.url)).toMatchObject({ status: 403 });
    // (The sweeper runs every quarter of the idle timeout, at most every 30 s.)
    await eventually(() => service.size === 0, 3_000);
    expect(logs.withMsg('probe target dropped').at(-1)).toMatchObject({ reason: 'no longer on the allow-list' });
  });

  it('probe.max_targets: one more probe-only URL is refused with 503, without a connection, until one goes idle', async () => {
    const x = await fakeNode();
    const y = await fakeNode();
    const { daemon } = await daemonFor({
      nodes: [],
      probe: { targets: [x.url, y.url], max_targets: 1, idle_timeout: '1s' },
      poll: { interval: '500ms', timeout: '400ms' },
    });
    expect((await probe(daemon, x.url)).status).toBe(200);
    const refused = await probe(daemon, y.url);
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/^target refused: probe\.max_targets \(1\)/);
    expect(y.calls).toEqual([]);
    // x is not probed again: once idle it goes and y gets its place.
    await eventually(async () => (await probe(daemon, y.url)).status === 200, 5_000, 200);
    expect(valueOf((await probe(daemon, y.url)).text, 'avax_node_info', { node: hostPort(y.url) })).toBe(1);
  });
});

describe('/probe of many probe.targets URLs from one scraper', () => {
  it('a probe of every target in flight at once from one address is answered, past the fixed cap of 32', async () => {
    // One Prometheus probing every target within its scrape interval has a probe of each in flight while their rounds
    // run (here 40 targets whose rounds take about a second, a fleet on a busy network); the fixed cap of 32 per address
    // refused 8 of them with 503, which Prometheus records as the target being down.
    const targets = await Promise.all(Array.from({ length: 40 }, () => fakeNode()));
    for (const t of targets) t.setFault('*', { kind: 'delay', ms: 250 });
    const { daemon, logs } = await daemonFor({ nodes: [], probe: { targets: targets.map((t) => t.url) }, poll: { interval: '30s', timeout: '10s' } });
    const answers = await Promise.all(targets.map((t) => probe(daemon, t.url)));
    expect(answers.map((a) => a.status)).toEqual(targets.map(() => 200));
    for (const [i, a] of answers.entries()) expect(valueOf(a.text, 'avax_probe_success', { node: hostPort((targets[i] as FakeNode).url) })).toBe(1);
    expect(logs.withMsg('probe refused')).toEqual([]);
  });
});

describe('/probe refuses what is not on the allow-list, and connects to nothing it did not allow', () => {
  it('400 for a malformed request, 403 for SSRF attempts; the trap socket sees no connection; redirects are not followed', async () => {
    const a = await fakeNode();
    const t = await trap();
    const redirect = await redirector(`http://127.0.0.1:${t.port}/only-this-path`);
    const allowedTrapUrl = `http://127.0.0.1:${t.port}/only-this-path`;
    const { daemon, logs } = await daemonFor({
      nodes: [{ name: 'a', url: a.url }],
      probe: { targets: [allowedTrapUrl, redirect.url] },
      poll: { interval: '60s', timeout: '2s' },
    });
    await waitUntilAllUp(daemon);

    const badRequests: [string, RegExp][] = [
      ['', /missing parameter target/],
      ['?target=', /empty/],
      ['?target=a&target=a', /given 2 times/],
      ['?target=a&module=http_2xx', /unknown parameter "module"/],
      ['?foo=1', /unknown parameter "foo"/],
    ];
    for (const [query, reason] of badRequests) {
      const ans = await probe(daemon, undefined, { query });
      expect(ans.status, query).toBe(400);
      expect(ans.type).toBe('text/plain; charset=utf-8');
      expect(ans.text, query).toMatch(reason);
    }

    const trapBase = `127.0.0.1:${t.port}`;
    const forbidden = [
      'b', // not a configured node name
      `http://${trapBase}`, // a configured node's URL with only the port changed
      `http://${trapBase}/`,
      `http://${trapBase}/other`,
      `http://${trapBase}/only-this-path/sub`,
      `http://${trapBase}/ONLY-THIS-PATH`, // paths are case-sensitive
      `http://${trapBase}/only-this-path?x=1`,
      `http://${trapBase}/only-this-path?`,
      `http://${trapBase}/only-this-path#top`,
      `http://${new URL(a.url).host}@${trapBase}/only-this-path`, // userinfo that looks like an allowed host
      `http://a@${trapBase}/only-this-path`,
      `http://user:pw@${trapBase}/only-this-path`, // allowed URL, but credentials from the request are never used
      `http://${trapBase}\\@${new URL(a.url).host}`, // the backslash ends the host
      `https://${trapBase}/only-this-path`, // scheme
      `http://localhost:${t.port}/only-this-path`, // another spelling of the host is another host (no DNS)
      trapBase, // neither a name nor a URL
      `//${trapBase}/only-this-path`,
      `gopher://${trapBase}/only-this-path`,
      'file:///etc/passwd',
    ];
    for (const target of forbidden) {
      const ans = await probe(daemon, target);
      expect(ans.status, target).toBe(403);
      expect(ans.type).toBe('text/plain; charset=utf-8');
      expect(ans.text, target).toMatch(/^target refused: /);
      expect(ans.text.length).toBeLessThan(160);
      expect(ans.text).not.toContain('avax_');
    }

    // An allowed URL that redirects: the redirect is not followed, the probe reports failure.
    const redirected = await probe(daemon, redirect.url);
    expect(redirected.status).toBe(200);
    const rname = hostPort(redirect.url);
    expect(valueOf(redirected.text, 'avax_probe_success', { node: rname })).toBe(0);
    expect(valueOf(redirected.text, 'avax_source_poll_failures_total', { node: rname, source: 'info', reason: 'http_status' })).toBe(1);
    expect(redirect.hits()).toBeGreaterThan(0);

    await sleep(100);
    expect(t.connections()).toBe(0);
    // Refusals are logged once per distinct target, with a password masked.
    expect(logs.withMsg('probe refused').length).toBe(forbidden.length);
    expect(logs.raw.join('\n')).not.toContain(':pw@');
  });

  it('is behind the web config: without credentials 401, and nothing is probed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-probe-web-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const webConfig = join(dir, 'web.yml');
    writeFileSync(webConfig, `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('s3cret', 4)}\n`);
    const asked: string[] = [];
    const prober = {
      probe: (target: string) => {
        asked.push(target);
        return Promise.resolve({ status: 403 as const, message: 'target refused: test' });
      },
    };
    const server = createExporterServer({
      telemetryPath: '/metrics',
      exposition: () => EMPTY,
      ready: () => true,
      landing: () => '',
      webConfigFile: webConfig,
      probe: createProbeHandler(prober),
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    cleanups.push(() => new Promise<void>((ok) => server.close(() => ok())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/probe?target=x`;
    expect((await fetch(url)).status).toBe(401);
    expect(asked).toEqual([]);
    const ok = await fetch(url, { headers: { authorization: `Basic ${Buffer.from('prometheus:s3cret').toString('base64')}` } });
    expect(ok.status).toBe(403);
    expect(asked).toEqual(['x']);
  });

  it('resolveProbeTarget: names first, then normalized URLs; nothing else', () => {
    const node = {
      name: 'n',
      url: 'http://user:secret@10.0.0.1:9650',
      headers: {},
      secretHeaders: [],
      watch: { nodeIds: [], allValidators: false, subnetIds: [], maxValidators: 1 },
    };
    const extra = { ...node, name: '10.0.0.2:9650', url: 'http://10.0.0.2:9650/proxy/node-2' };
    expect(resolveProbeTarget('n', [node], [extra])).toEqual({ kind: 'node', node });
    // The configured node's credentials are not needed (nor accepted) to name it.
    expect(resolveProbeTarget('http://10.0.0.1:9650', [node], [extra])).toEqual({ kind: 'node', node });
    expect(resolveProbeTarget('http://10.0.0.1:80', [node], [extra]).kind).toBe('refused');
    expect(resolveProbeTarget('http://user:secret@10.0.0.1:9650', [node], [extra]).kind).toBe('refused');
    expect(resolveProbeTarget('http://10.0.0.2:9650/proxy/node-2/', [node], [extra])).toMatchObject({ kind: 'url', node: extra });
    expect(resolveProbeTarget('http://10.0.0.2:9650/proxy/node-2/../node-2', [node], [extra])).toMatchObject({ kind: 'url', node: extra });
    expect(resolveProbeTarget('http://10.0.0.2:9650/proxy', [node], [extra]).kind).toBe('refused');
    expect(resolveProbeTarget('http://10.0.0.2:9650/proxy/node-3', [node], [extra]).kind).toBe('refused');
    // Names are not looked up among probe-only URLs: those are named by URL only.
    expect(resolveProbeTarget('10.0.0.2:9650', [node], [extra]).kind).toBe('refused');
  });
});

describe('probe configuration', () => {
  const base = { data_api: { enabled: false } };

  it('defaults: the configured nodes only, 100 targets, 5 minutes idle; a URL of a configured node is answered by that node', () => {
    const c = buildConfig({ ...base, nodes: [{ url: 'http://10.0.0.1:9650' }] });
    expect(c.probe).toEqual({ targets: [], maxTargets: 100, idleTimeoutMs: 300_000 });
    const d = buildConfig({
      ...base,
      nodes: [{ url: 'http://10.0.0.1:9650/' }],
      watch: { subnet_ids: ['2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91'] },
      probe: { targets: ['http://10.0.0.1:9650', 'http://u:p@10.0.0.2:9650/'], max_targets: 3, idle_timeout: '90s' },
    });
    expect(d.probe.maxTargets).toBe(3);
    expect(d.probe.idleTimeoutMs).toBe(90_000);
    expect(d.probe.targets).toEqual([
      {
        name: '10.0.0.2:9650',
        url: 'http://u:p@10.0.0.2:9650',
        headers: {},
        secretHeaders: ['authorization', 'proxy-authorization', 'cookie'],
        watch: { nodeIds: [], allValidators: false, subnetIds: ['2h2fuXTjGoYJCyL4JWkUjKMYsL9YWM6zDxYEKDzsU5ukFoKo91'], maxValidators: 5000 },
      },
    ]);
    // Passwords are shown nowhere (/-/status, --config.check).
    expect(JSON.stringify(redactConfig(d))).not.toContain(':p@');
  });

  it('is validated strictly, with every problem and its path', () => {
    const problems = problemsOf(() =>
      buildConfig({
        ...base,
        poll: { interval: '30s' },
        probe: { targets: ['ftp://x', 'http://a:9650/?x=1', 'http://b:9650', 'http://B:9650/', 'not a url'], max_targets: 0, idle_timeout: '10s', module: 'x' },
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'probe.targets[0]: "ftp://x" must be an http(s) URL',
        'probe.targets[1]: "http://a:9650/?x=1" must be a base URL without a query or fragment: remove "?x=1"',
        'probe.targets[4]: "not a url" must be an http(s) URL',
        'probe.max_targets: 0 must be a whole number greater than zero',
        'probe.module: unknown key (the keys here: targets, max_targets, idle_timeout)',
      ]),
    );
    expect(problemsOf(() => buildConfig({ ...base, probe: { targets: ['http://b:9650', 'http://B:9650/'] } }))).toEqual([
      'probe.targets[1]: the same URL as probe.targets[0]',
    ]);
    expect(problemsOf(() => buildConfig({ ...base, poll: { interval: '30s' }, probe: { idle_timeout: '10s' } }))).toEqual([
      'probe.idle_timeout: must be at least poll.interval (10s < 30s)',
    ]);
    expect(problemsOf(() => buildConfig({ ...base, probe: { max_targets: 10_001 } }))).toEqual(['probe.max_targets: 10001 must be at most 10000']);
  });

  it('reads --probe.* flags and AVAX_EXPORTER_PROBE_* variables', () => {
    const { config } = loadConfig(
      ['--probe.target=http://a:9650', '--probe.target=http://b:9650', '--probe.max-targets=5', '--probe.idle-timeout=10m', '--data-api.enabled=false'],
      {},
    );
    expect(config.probe.targets.map((t) => t.url)).toEqual(['http://a:9650', 'http://b:9650']);
    expect(config.probe).toMatchObject({ maxTargets: 5, idleTimeoutMs: 600_000 });
    const env = loadConfig([], { AVAX_EXPORTER_PROBE_TARGET: 'http://c:9650,http://d:9650', AVAX_EXPORTER_PROBE_MAX_TARGETS: '7' }).config;
    expect(env.probe.targets.map((t) => t.name)).toEqual(['c:9650', 'd:9650']);
    expect(env.probe.maxTargets).toBe(7);
  });

  it('/-/status shows probe targets without their password', async () => {
    const { daemon } = await daemonFor({ nodes: [], probe: { targets: ['http://prom:s3cret@127.0.0.1:9/'] } });
    const status = await (await fetch(`${daemon.url}/-/status`)).text();
    expect(status).toContain('127.0.0.1:9');
    expect(status).not.toContain('s3cret');
  });
});

// ------------------------------------------------------------ Prometheus

const EXAMPLE = join(process.cwd(), 'examples/prometheus/probe-sharded.yml');

describe('the documented sharded scrape configuration', () => {
  it('promtool check config accepts examples/prometheus/probe-sharded.yml', () => {
    const out = execFileSync('promtool', ['check', 'config', EXAMPLE], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS/);
  });

  it('a real Prometheus with that configuration scrapes each node once, through one of two replicas', { timeout: 60_000 }, async () => {
    const version = spawnSync('prometheus', ['--version'], { encoding: 'utf8' });
    expect(version.error, 'this test needs the prometheus binary (apt-get install prometheus)').toBeUndefined();
    const nodes = [await fakeNode(), await fakeNode(), await fakeNode()];
    const urls = nodes.map((n) => n.url);
    const replicas: Daemon[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await startTestDaemon({ nodes: [], probe: { targets: urls }, poll: { interval: '1s', timeout: '900ms' } });
      cleanups.push(() => r.daemon.stop());
      replicas.push(r.daemon);
    }
    const hosts = replicas.map((r) => new URL(r.url).host);

    // The example as documented, with its placeholders (replica addresses, node URLs) replaced and a 1 s scrape interval.
    type Relabel = { target_label?: string; replacement?: string };
    type Job = { job_name: string; metrics_path?: string; static_configs: { targets: string[] }[]; relabel_configs?: Relabel[] };
    const config = parseYaml(readFileSync(EXAMPLE, 'utf8')) as { global: Record<string, string>; scrape_configs: Job[] };
    config.global = { scrape_interval: '1s', scrape_timeout: '1s' };
    let replaced = 0;
    for (const job of config.scrape_configs) {
      if (job.metrics_path !== '/probe') {
        job.static_configs = [{ targets: hosts }];
        continue;
      }
      job.static_configs = [{ targets: urls }];
      for (const r of job.relabel_configs ?? []) {
        const m = r.target_label === '__address__' ? /^avax-exporter-(\d+):9785$/.exec(r.replacement ?? '') : null;
        if (m) {
          r.replacement = hosts[Number(m[1])];
          replaced++;
        }
      }
    }
    expect(config.scrape_configs.map((j) => j.job_name)).toEqual(['avax-exporter', 'avax-exporter-probe-0', 'avax-exporter-probe-1']);
    expect(replaced).toBe(2);

    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-probe-prom-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'prometheus.yml');
    writeFileSync(configFile, JSON.stringify(config));
    const prom = await startPrometheus(dir, configFile);
    cleanups.push(() => stopProcess(prom.child));

    const query = async (expr: string) => {
      const res = await fetch(`${prom.url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
      const body = (await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      return body.data.result;
    };
    let success: Awaited<ReturnType<typeof query>> = [];
    await eventually(async () => (success = await query('avax_probe_success == 1')).length === 3, 30_000, 250);
    // Each node once, under its URL as instance, in the job of the one shard that kept it.
    expect(success.map((s) => s.metric['instance']).sort()).toEqual([...urls].sort());
    for (const s of success) expect(s.metric['job']).toMatch(/^avax-exporter-probe-[01]$/);
    expect((await query('avax_node_info')).map((s) => s.metric['node']).sort()).toEqual(urls.map(hostPort).sort());
    // Each node polled by one replica only: three probe-only targets across both.
    await eventually(async () => (await query('sum(avax_exporter_probe_targets{job="avax-exporter"})'))[0]?.value[1] === '3', 10_000, 250);
    for (const n of nodes) expect(callsOf(n, 'info.getNetworkID')).toBeGreaterThan(0);
    // Self-metrics come from /metrics only; probes carry none. (Both replicas' /metrics must have been
    // scraped first: the sum above can already be 3 from one replica when hashmod put every node on its shard.)
    let builds: Awaited<ReturnType<typeof query>> = [];
    await eventually(async () => (builds = await query('avax_exporter_build_info')).length === 2, 10_000, 250);
    expect(builds.map((s) => s.metric['job'])).toEqual(['avax-exporter', 'avax-exporter']);
    expect(await query('up{job=~"avax-exporter.*"} == 0')).toEqual([]);
  });
});
