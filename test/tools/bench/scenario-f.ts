/**
 * Scenario F of `npm run bench` (issue 27): a provider's fleet. One exporter
 * polling N simulated mainnet nodes (each a distinct validator of the same
 * world, served by several fake processes), at two sizes in the same run
 * (50 and 1,000 in a full run): CPU per node round (flat from the small size
 * to the large one) and against a node round's floor, RSS over the window and
 * its growth per added node, scrape latency against a static server holding
 * the same bytes, freshness, failed polls and the TCP connections held. Then
 * the same fleet through `/probe`: a probe-mode exporter with every node as a
 * `probe.targets` URL, each probed once per interval (spread evenly, as a
 * Prometheus job does).
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { BenchChild } from './ipc.js';
import type { DaemonInfo } from './role-daemon.js';
import type { ExchangeFloor, ParseFloor, WriteFloor } from './role-floor.js';
import type { ServerInfo } from './role-servers.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { EXCHANGE_CALLS, fleetRun, recordFleetBodies, seconds, startFakeFleet, type CResult } from './fleet.js';
import {
  daemonNodeArgs,
  f,
  fetchOnce,
  log,
  mb,
  memoryLine,
  median,
  pct,
  procMemory,
  procTcpConnections,
  scrapeOnce,
  sleep,
  table,
  withChildren,
  type Plan,
  type Target,
} from './common.js';

/** The fleet through `/probe`. */
export interface ProbeResult {
  targets: number;
  seconds: number;
  probes: number;
  /** Non-200 answers, or answers with a source down (`avax_source_up … 0`). */
  failures: number;
  cpuMs: number;
  p50: number;
  p99: number;
  max: number;
  staticP99: number;
  rssSamples: number[];
  peakRss: number;
  floorParseMs: number;
  floorWriteMs: number;
  /** Reference, not a target: a bare node:http client asking a probe's calls and parsing the answers, ms of CPU per probe. */
  exchangeMs: number;
  connections: { outbound: number; inbound: number };
  answerBytes: number;
}

export interface FResult {
  /** One fleet run per size, smallest first. */
  points: CResult[];
  probe?: ProbeResult;
}

/** Probes every target once per interval, target i at i/N of it, for `windowS`; latencies and failures. */
async function probeWindow(base: string, urls: readonly string[], intervalS: number, windowS: number, staticUrl?: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const staticAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const latencies: number[] = [];
  const staticLatencies: number[] = [];
  let failures = 0;
  /** Why probes failed: `status N`, `down <source>`, or the client's error. */
  const why = new Map<string, number>();
  const count = (k: string) => why.set(k, (why.get(k) ?? 0) + 1);
  let answerBytes = 0;
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  const slots = Math.floor((windowS / intervalS) * urls.length);
  const staticEvery = Math.max(1, Math.floor(urls.length / 100));
  for (let s = 0; s < slots; s++) {
    await sleep(Math.max(0, t0 + (s * intervalS * 1000) / urls.length - performance.now()));
    const target = urls[s % urls.length] as string;
    const p = fetchOnce(agent, `${base}/probe?target=${encodeURIComponent(target)}`).then(
      (r) => {
        latencies.push(r.ms);
        answerBytes = r.body.length;
        const text = r.status === 200 ? r.body.toString('utf8') : '';
        const down = [...text.matchAll(/^avax_source_up\{[^}]*source="([^"]*)"\} 0$/gm)].map((m) => m[1] as string);
        if (r.status !== 200) count(`status ${r.status}`);
        for (const s of down) {
          // The reasons its failures were counted under so far.
          const reasons = [...text.matchAll(new RegExp(`^avax_source_poll_failures_total\\{[^}]*source="${s}",reason="([^"]*)"\\} [1-9]`, 'gm'))].map(
            (m) => m[1],
          );
          count(`down ${s} (${reasons.join('/')})`);
        }
        if (r.status !== 200 || down.length > 0) failures++;
      },
      (err: unknown) => {
        count(err instanceof Error ? err.message : String(err));
        failures++;
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    if (staticUrl && s % staticEvery === 0) staticLatencies.push(await scrapeOnce(staticAgent, staticUrl).catch(() => NaN));
  }
  await Promise.all(inFlight);
  agent.destroy();
  staticAgent.destroy();
  latencies.sort((a, b) => a - b);
  staticLatencies.sort((a, b) => a - b);
  if (why.size > 0) log(`F: /probe: failures: ${[...why].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  return { latencies, staticLatencies, failures, answerBytes, slots, seconds: (performance.now() - t0) / 1000 };
}

async function probeRun(plan: Plan, logDir: string, profileDir: string): Promise<ProbeResult> {
  return withChildren(async (track) => {
    const n = plan.fProbeTargets;
    log(`F: /probe: starting ${n} fake nodes`);
    const fleet = await startFakeFleet(n, plan.fNodesPerFake, logDir, track);
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      { nodes: [], interval: plan.fInterval, timeout: '10s', probeTargets: fleet.urls },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'f'), startTimeoutMs: 180_000, env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const base = d.info.url.replace(/\/$/, '');
    const intervalS = seconds(plan.fInterval);
    log(`F: /probe: one interval of warm-up (every target probed once: its poller starts)`);
    await probeWindow(base, fleet.urls, intervalS, intervalS);
    const first = fleet.urls[0] as string;
    const stat = await BenchChild.spawn<ServerInfo>('static', { sourceUrl: `${base}/probe?target=${encodeURIComponent(first)}` }, { logDir });
    track(stat.child);
    for (const fk of fleet.fakes) await fk.request('calls');
    log(`F: /probe: ${n} targets, each probed every ${plan.fInterval}, for ${plan.fProbeSeconds} s`);
    const rss: number[] = [];
    let connections = { outbound: NaN, inbound: NaN };
    const sampler = setInterval(() => rss.push(procMemory(d.child.pid).rss), 1_000);
    const midway = setTimeout(() => (connections = procTcpConnections(d.child.pid, Number(new URL(base).port))), (plan.fProbeSeconds * 1000) / 2);
    const c0 = await d.child.cpuMs();
    const w = await probeWindow(base, fleet.urls, intervalS, plan.fProbeSeconds, stat.info.url).finally(() => {
      clearInterval(sampler);
      clearTimeout(midway);
    });
    const cpuMs = (await d.child.cpuMs()) - c0;
    const probes = w.slots;
    log("F: /probe: the floor (the window's answers parsed; one answer written and gzipped)");
    const calls = await recordFleetBodies(fleet.fakes, join(logDir, 'f-probe-bodies'));
    const floorChild = track((await BenchChild.spawn<object>('floor', {}, { logDir })).child);
    const parse = await floorChild.request<ParseFloor>('parse', { kinds: calls.kinds }, 300_000);
    const exchange = await floorChild.request<ExchangeFloor>('exchange', { kinds: calls.kinds, maxCalls: EXCHANGE_CALLS }, 300_000);
    const textFile = join(logDir, 'f-probe-answer.txt');
    writeFileSync(textFile, (await fetchOnce(new http.Agent(), `${base}/probe?target=${encodeURIComponent(first)}`, false)).body);
    const write = await floorChild.request<WriteFloor>('write', { file: textFile }, 120_000);
    const r: ProbeResult = {
      targets: n,
      seconds: w.seconds,
      probes,
      failures: w.failures,
      cpuMs,
      p50: pct(w.latencies, 50),
      p99: pct(w.latencies, 99),
      max: w.latencies[w.latencies.length - 1] ?? NaN,
      staticP99: pct(w.staticLatencies, 99),
      rssSamples: rss,
      peakRss: procMemory(d.child.pid).peak,
      // Every probe answers from a round of its own (one poll per target and interval).
      floorParseMs: parse.parseMs / Math.max(1, probes),
      floorWriteMs: write.joinMs + write.gzipMs,
      exchangeMs: exchange.exchangeMs / Math.max(1, probes),
      connections,
      answerBytes: w.answerBytes,
    };
    log(`F: /probe: ${probes} probes, ${f(cpuMs / probes, 2)} CPU ms/probe, p99 ${f(r.p99, 1)} ms, ${r.failures} failed`);
    return r;
  });
}

export async function scenarioF(plan: Plan, logDir: string, profileDir: string): Promise<FResult> {
  const points: CResult[] = [];
  for (const n of plan.fNodes) points.push(await fleetRun(plan, logDir, profileDir, n, plan.fSeconds, true, 'F'));
  const probe = plan.fProbeTargets > 0 ? await probeRun(plan, logDir, profileDir) : undefined;
  return { points, ...(probe ? { probe } : {}) };
}

/** Growth of the samples over the window: the median of the last quarter less the median of the first quarter. */
function drift(samples: readonly number[]): number {
  const q = Math.max(1, Math.floor(samples.length / 4));
  return median(samples.slice(-q)) - median(samples.slice(0, q));
}

const floorOf = (c: CResult) => (c.floorParseMs ?? NaN) + (c.floorWriteMs ?? NaN);

export function fTargets(plan: Plan, fr: FResult): Target[] {
  const t: Target[] = [];
  const small = fr.points[0];
  const large = fr.points[fr.points.length - 1];
  if (!small || !large) return t;
  if (large !== small) {
    const ratio = large.cpuMsPerNodeRound / small.cpuMsPerNodeRound;
    t.push({
      scenario: 'F',
      what: `CPU per node round, ${large.nodes} nodes ÷ ${small.nodes} nodes (flat scaling)`,
      measured: `${f(ratio, 2)}x (${f(large.cpuMsPerNodeRound, 2)} / ${f(small.cpuMsPerNodeRound, 2)} ms)`,
      limit: '<= 1.1x',
      reference: `${small.nodes} nodes: ${f(small.cpuMsPerNodeRound, 2)} ms`,
      pass: ratio <= 1.1,
    });
    const perNode = (median(large.rssSamples ?? []) - median(small.rssSamples ?? [])) / (large.nodes - small.nodes);
    t.push({
      scenario: 'F',
      what: `RSS growth per added node (median over the window, ${small.nodes} → ${large.nodes} nodes)`,
      measured: `${f(perNode / 1024, 0)} KB`,
      limit: '< 100 KB',
      reference: `${mb(median(small.rssSamples ?? []))} → ${mb(median(large.rssSamples ?? []))} MB`,
      pass: perNode < 100 * 1024,
    });
  }
  for (const c of fr.points) {
    const floor = floorOf(c);
    t.push({
      scenario: 'F',
      what: `${c.nodes} nodes: CPU per node round ÷ a node round's floor`,
      measured: `${f(c.cpuMsPerNodeRound / floor, 2)}x (${f(c.cpuMsPerNodeRound, 2)} ms)`,
      limit: '<= 2x',
      // With the bare client beside it: what any Node.js poller spends on the same calls, against the same floor.
      reference: `floor ${f(floor, 2)} ms (parse ${f(c.floorParseMs ?? NaN, 2)} + write/gzip share ${f(c.floorWriteMs ?? NaN, 2)}); a bare node:http client + the same share ${f((c.exchangeMs ?? NaN) + (c.floorWriteMs ?? NaN), 2)} ms (${f(((c.exchangeMs ?? NaN) + (c.floorWriteMs ?? NaN)) / floor, 1)}x the floor)`,
      pass: c.cpuMsPerNodeRound <= 2 * floor,
    });
    const d = drift(c.rssSamples ?? []);
    t.push({
      scenario: 'F',
      what: `${c.nodes} nodes: RSS drift over the window (last quarter − first quarter)`,
      measured: `${d >= 0 ? '+' : ''}${mb(d)} MB (median ${mb(median(c.rssSamples ?? []))})`,
      limit: '<= 5 % of RSS',
      pass: Math.abs(d) <= 0.05 * median(c.rssSamples ?? []),
    });
    t.push({
      scenario: 'F',
      what: `${c.nodes} nodes: scrape p99 (gzip) ÷ static reference of the same bytes`,
      measured: `${f(c.scrapeP99 / (c.staticP99 ?? NaN), 2)}x (${f(c.scrapeP99, 1)} ms)`,
      limit: '<= 2x',
      reference: `static ${f(c.staticP99 ?? NaN, 1)} ms`,
      pass: c.scrapeP99 <= 2 * (c.staticP99 ?? NaN),
    });
    t.push({
      scenario: 'F',
      what: `${c.nodes} nodes: a node's change on /metrics after its round, max`,
      measured: `${f(c.freshness.max, 0)} ms (p99 ${f(c.freshness.p99, 0)}, ${c.freshness.count} renders)`,
      limit: '<= 1,000 ms',
      pass: c.freshness.count > 0 && c.freshness.max <= 1000,
    });
    t.push({
      scenario: 'F',
      what: `${c.nodes} nodes: failed polls and scrapes`,
      measured: String(c.failures + c.scrapeErrors),
      limit: '0',
      pass: c.failures + c.scrapeErrors === 0,
    });
  }
  const p = fr.probe;
  if (p) {
    const perProbe = p.cpuMs / p.probes;
    const floor = p.floorParseMs + p.floorWriteMs;
    t.push({
      scenario: 'F',
      what: `/probe, ${p.targets} targets: CPU per probe ÷ its floor`,
      measured: `${f(perProbe / floor, 2)}x (${f(perProbe, 2)} ms)`,
      limit: '<= 2x',
      reference: `floor ${f(floor, 2)} ms; a bare node:http client + the same write/gzip ${f(p.exchangeMs + p.floorWriteMs, 2)} ms (${f((p.exchangeMs + p.floorWriteMs) / floor, 1)}x the floor)`,
      pass: perProbe <= 2 * floor,
    });
    t.push({
      scenario: 'F',
      what: `/probe, ${p.targets} targets: probe p99 ÷ static reference of one answer`,
      measured: `${f(p.p99 / p.staticP99, 2)}x (${f(p.p99, 1)} ms)`,
      limit: '<= 2x',
      reference: `static ${f(p.staticP99, 1)} ms`,
      pass: p.p99 <= 2 * p.staticP99,
    });
    const d = drift(p.rssSamples);
    t.push({
      scenario: 'F',
      what: `/probe, ${p.targets} targets: RSS drift over the window`,
      measured: `${d >= 0 ? '+' : ''}${mb(d)} MB (median ${mb(median(p.rssSamples))})`,
      limit: '<= 5 % of RSS',
      pass: Math.abs(d) <= 0.05 * median(p.rssSamples),
    });
    t.push({
      scenario: 'F',
      what: `/probe, ${p.targets} targets: failed probes`,
      measured: `${p.failures} of ${p.probes}`,
      limit: '0',
      pass: p.failures === 0,
    });
  }
  void plan;
  return t;
}

export function fSection(plan: Plan, fr: FResult): string[] {
  const pts = fr.points;
  const col = (fn: (c: CResult) => string) => pts.map(fn);
  const out: string[] = [
    '',
    `### F. Fleet: ${pts.map((c) => c.nodes.toLocaleString('en-US')).join(' and ')} mainnet-scale nodes at ${plan.cInterval}, ${plan.fSeconds} s each${fr.probe ? `; /probe with ${fr.probe.targets.toLocaleString('en-US')} targets` : ''}`,
    '',
    `Each node a distinct validator of the same simulated mainnet (so the validator set is fetched once per network and shared), served by fake processes of at most ${plan.fNodesPerFake} nodes each, keeping idle connections 120 s. ` +
      `The exporter is scraped (gzip) every 5 s, in turns with a static server holding the same bytes (the reference of scrape latency); RSS sampled once a second. ` +
      "The floor of a node round: the window's answers (recorded by kind, asked again for their bodies) parsed in a process of its own, per node round, plus the node's share of writing the whole exposition from ready strings and gzipping it once per interval. Beside it, not a target: the window's calls asked again of the same fakes by a bare node:http client (keep-alive, four connections per origin; a sample of at most " +
      EXCHANGE_CALLS.toLocaleString('en-US') +
      ' calls spread over the kinds, scaled to all), each answer parsed, per node round: what any Node.js poller spends on those calls before using them.',
    '',
    table(
      ['figure', ...col((c) => `${c.nodes.toLocaleString('en-US')} nodes`)],
      [
        [
          'fake processes; series on /metrics (text / gzip)',
          ...col((c) => `${c.fakeProcesses ?? '–'}; ${c.series.toLocaleString('en-US')} (${mb(c.textBytes)} MB / ${f(c.gzipBytes / 1024, 0)} KB)`),
        ],
        ['CPU, averaged over the window', ...col((c) => `${f(c.cpuPct, 2)} % of a core`)],
        ['node rounds in the window; CPU per node round', ...col((c) => `${c.roundsInWindow}; ${f(c.cpuMsPerNodeRound, 2)} ms`)],
        [
          "floor per node round: answers parsed (bytes) + share of the exposition's write and gzip",
          ...col(
            (c) => `${f(floorOf(c), 2)} ms = ${f(c.floorParseMs ?? NaN, 2)} (${f((c.bytesPerNodeRound ?? NaN) / 1024, 0)} KB) + ${f(c.floorWriteMs ?? NaN, 2)}`,
          ),
        ],
        [
          "reference: a bare node:http client asking a node round's calls and parsing the answers, + the same write/gzip share (ours ÷ it)",
          ...col(
            (c) =>
              `${f((c.exchangeMs ?? NaN) + (c.floorWriteMs ?? NaN), 2)} ms (${f(c.cpuMsPerNodeRound / ((c.exchangeMs ?? NaN) + (c.floorWriteMs ?? NaN)), 1)}x)`,
          ),
        ],
        ['RSS over the window: first / median / last / max sample', ...col((c) => rssLine(c.rssSamples ?? []))],
        ['peak RSS since start; at start-up (every first round served)', ...col((c) => `${mb(c.maxRssBytes)} / ${mb(c.readyMaxRssBytes)} MB`)],
        ['RSS at the end of the window, by where it is (MB)', ...col((c) => memoryLine(c.memory))],
        [
          'scrape p50 / p99 / max (gzip); static reference p50 / p99 / max',
          ...col(
            (c) =>
              `${f(c.scrapeP50, 1)} / ${f(c.scrapeP99, 1)} / ${f(c.scrapeMax, 1)}; ${f(c.staticP50 ?? NaN, 1)} / ${f(c.staticP99 ?? NaN, 1)} / ${f(c.staticMax ?? NaN, 1)} ms`,
          ),
        ],
        [
          "a node's change on /metrics after its round: p50 / p99 / max",
          ...col((c) => `${f(c.freshness.p50, 0)} / ${f(c.freshness.p99, 0)} / ${f(c.freshness.max, 0)} ms (${c.freshness.count})`),
        ],
        [
          'TCP connections held mid-window: to the nodes / from scrapers',
          ...col((c) => `${c.connections?.outbound ?? '–'} / ${c.connections?.inbound ?? '–'}`),
        ],
        ['time the event-loop thread waited for a CPU (the shared machine)', ...col((c) => `${f((c.waitMs / (c.seconds * 1000)) * 100, 1)} % of the window`)],
        ['failed polls / failed scrapes', ...col((c) => `${c.failures} / ${c.scrapeErrors}`)],
      ],
      ['l', ...pts.map(() => 'r' as const)],
    ),
  ];
  const p = fr.probe;
  if (p) {
    out.push(
      '',
      `/probe: a probe-mode exporter (no configured node; every fake node a \`probe.targets\` URL, \`max_targets\` ${p.targets}), each target probed every ${plan.fInterval} (gzip), spread evenly over the interval, for ${plan.fProbeSeconds} s after one interval of warm-up; a static server holding one probe's answer is asked at 1 % of the slots in between.`,
      '',
      table(
        ['figure', 'value'],
        [
          ['probes in the window; failed (non-200, or a source down in the answer)', `${p.probes} in ${f(p.seconds, 0)} s; ${p.failures}`],
          [
            "CPU per probe; its floor (its round's answers parsed + its answer written and gzipped)",
            `${f(p.cpuMs / p.probes, 2)} ms; ${f(p.floorParseMs + p.floorWriteMs, 2)} ms`,
          ],
          [
            "reference: a bare node:http client asking a probe's calls and parsing the answers, + its answer written and gzipped (ours ÷ it)",
            `${f(p.exchangeMs + p.floorWriteMs, 2)} ms (${f(p.cpuMs / p.probes / (p.exchangeMs + p.floorWriteMs), 1)}x)`,
          ],
          [
            'probe latency p50 / p99 / max; static reference p99',
            `${f(p.p50, 1)} / ${f(p.p99, 1)} / ${f(p.max, 1)}; ${f(p.staticP99, 1)} ms (answer ${f(p.answerBytes / 1024, 0)} KB)`,
          ],
          ['RSS over the window: first / median / last / max sample; peak since start', `${rssLine(p.rssSamples)}; ${mb(p.peakRss)} MB`],
          ['TCP connections held mid-window: to the nodes / from the probe client', `${p.connections.outbound} / ${p.connections.inbound}`],
        ],
        ['l', 'r'],
      ),
    );
  }
  return out;
}

function rssLine(s: readonly number[]): string {
  if (!s.length) return '–';
  return `${mb(s[0] as number)} / ${mb(median(s))} / ${mb(s[s.length - 1] as number)} / ${mb(Math.max(...s))} MB`;
}
