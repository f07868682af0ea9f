/**
 * Scenario C of `npm run bench`: one daemon polling 50 simulated nodes at
 * 15 s with the defaults an operator gets, scraped every 5 s. The same run, at
 * any size and with the floor and the static reference, is each point of
 * scenario F (scenario-f.ts).
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { BenchChild } from './ipc.js';
import type { FakeInfo, RecordedCalls, RecordedKind } from './role-fake.js';
import type { DaemonInfo, DaemonStatus, MemoryBreakdown, Percentiles, RenderCost } from './role-daemon.js';
import type { ExchangeFloor, ParseFloor, WriteFloor } from './role-floor.js';
import type { ServerInfo } from './role-servers.js';
import { DEFAULT_PEERS_INTERVAL_MS } from '../../../src/config/defaults.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import {
  daemonNodeArgs,
  f,
  log,
  mb,
  memoryLine,
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

interface CFigures {
  fakeIdleTimeoutMs: number;
  /** Time the daemon waited for a CPU during the window (ms). */
  waitMs: number;
  nodes: number;
  seconds: number;
  series: number;
  textBytes: number;
  gzipBytes: number;
  cpuMs: number;
  cpuPct: number;
  roundsInWindow: number;
  cpuMsPerNodeRound: number;
  failures: number;
  rssBytes: number;
  maxRssBytes: number;
  /** Peak RSS when the daemon became ready: what the first rounds, all at once, cost. */
  readyMaxRssBytes: number;
  heapUsedBytes: number;
  renders: number;
  /** Round end to render served, over the window's renders. */
  freshness: Percentiles;
  renderCost: RenderCost;
  memory: MemoryBreakdown;
  scrapes: number;
  scrapeErrors: number;
  scrapeP50: number;
  scrapeP99: number;
  scrapeMax: number;
}

/** Calls the exchange reference asks again at most (a 1,000-node window receives about 45,000; a sample of them, spread over the kinds, is enough). */
export const EXCHANGE_CALLS = 6_000;

/** Scrape period of scenarios C and F: three Prometheus servers scraping every 15 s. */
const C_SCRAPE_EVERY_S = 5;

/** What scenario F adds to a fleet run: the floor, RSS over the window, the static reference's scrapes, connections. */
export interface FleetExtras {
  fakeProcesses: number;
  /** RSS sampled once a second over the window (bytes). */
  rssSamples: number[];
  /** Floor of a node round, ms of CPU: its answers parsed, and its share of writing and gzipping the exposition once per interval. */
  floorParseMs: number;
  floorWriteMs: number;
  /** Reference, not a target: a bare node:http client asking a node round's calls and parsing the answers, ms of CPU per node round. */
  exchangeMs: number;
  /** Answers received per node round (bytes). */
  bytesPerNodeRound: number;
  /** The same scrapes of a static server holding the same bytes (p50 / p99 / max ms). */
  staticP50: number;
  staticP99: number;
  staticMax: number;
  /** Established TCP connections of the daemon mid-window: to the fake nodes, from scrapers (and the probe client). */
  connections: { outbound: number; inbound: number };
}

export type CResult = CFigures & Partial<FleetExtras>;

/** The interval in seconds (`15s`). */
export const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1] ?? NaN);

/** Starts `nodes` fake nodes over processes of at most `perProcess` each, each node a distinct validator of the same world. */
export async function startFakeFleet(nodes: number, perProcess: number, logDir: string, track: (c: BenchChild) => BenchChild) {
  const fakes: BenchChild[] = [];
  const urls: string[] = [];
  let info: FakeInfo | undefined;
  for (let offset = 0; offset < nodes; offset += perProcess) {
    const count = Math.min(perProcess, nodes - offset);
    const fk = await BenchChild.spawn<FakeInfo>('fake', { count, offset }, { logDir, startTimeoutMs: 180_000 });
    track(fk.child);
    fakes.push(fk.child);
    urls.push(...fk.info.urls);
    info ??= fk.info;
  }
  if (!info) throw new Error('no fake node');
  return { fakes, urls, info };
}

/** Every fake's calls since the last `calls`, merged by kind, one recorded answer of each. */
export async function recordFleetBodies(fakes: readonly BenchChild[], dir: string): Promise<RecordedCalls> {
  const merged = new Map<string, RecordedKind>();
  let total = 0;
  for (const fk of fakes) {
    const r = await fk.request<RecordedCalls>('bodies', { dir }, 300_000);
    total += r.total;
    for (const k of r.kinds) {
      const m = merged.get(k.kind);
      if (m) m.count += k.count;
      else merged.set(k.kind, { ...k });
    }
  }
  return { total, kinds: [...merged.values()], byCall: {} };
}

/**
 * One daemon polling `nodes` fake nodes at `plan.cInterval`, scraped (gzip) every
 * 5 s for `windowS`: scenario C at 50 nodes, and each size of scenario F, which
 * also asks for the extras (`extras`: the floor, a static reference, RSS samples, connections).
 */
export async function fleetRun(plan: Plan, logDir: string, profileDir: string, nodes: number, windowS: number, extras: boolean, tag: string): Promise<CResult> {
  return withChildren(async (track) => {
    log(`${tag}: starting ${nodes} mainnet-scale fake nodes`);
    const fleet = await startFakeFleet(nodes, plan.fNodesPerFake, logDir, track);
    const width = String(nodes).length;
    const spawnedAt = performance.now();
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      {
        nodes: fleet.urls.map((url, i) => ({ name: `node-${String(i + 1).padStart(Math.max(2, width), '0')}`, url })),
        interval: plan.cInterval,
        timeout: '10s',
      },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'c'), startTimeoutMs: 180_000, env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 150_000 }, 180_000);
    if (st.sourcesDown.length) throw new Error(`${tag}: sources down after the first round: ${st.sourcesDown.slice(0, 5).join('; ')}`);
    const readyUsage = await d.child.usage();
    const url = `${d.info.url.replace(/\/$/, '')}/metrics`;
    const stat = extras ? await BenchChild.spawn<ServerInfo>('static', { sourceUrl: url }, { logDir, startTimeoutMs: 120_000 }) : undefined;
    if (stat) track(stat.child);
    if (extras) {
      // One interval more before the window: the start-up's first rounds (and what they leave to collect) are not in it.
      // And at least info.peers' interval since the start: a fleet whose first rounds fill half an interval asks
      // info.peers first within its first minute (src/scheduler.ts, startSpread), so its steady state begins after it.
      const warmMs = Math.max(seconds(plan.cInterval) * 1000, DEFAULT_PEERS_INTERVAL_MS - (performance.now() - spawnedAt));
      log(`${tag}: ready; ${f(warmMs / 1000, 0)} s before the window (an interval, and info.peers' first minute)`);
      await sleep(warmMs);
    }
    for (const fk of fleet.fakes) await fk.request('calls');
    log(`${tag}: ready (${st.series} series); measuring for ${windowS} s with a gzip scrape every ${C_SCRAPE_EVERY_S} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const staticAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // No event-loop monitor here: its own 10 ms timer would cost about 0.5 % of a core, a tenth of the target.
    const c0 = await d.child.cpuMs();
    const r0 = await d.child.request<DaemonStatus>('status');
    const w0 = d.child.runQueueWaitMs();
    const t0 = performance.now();
    const latencies: number[] = [];
    const staticLatencies: number[] = [];
    const rssSamples: number[] = [];
    let connections = { outbound: NaN, inbound: NaN };
    let scrapeErrors = 0;
    const ticks = Math.floor(windowS);
    for (let i = 0; i < ticks; i++) {
      rssSamples.push(procMemory(d.child.pid).rss);
      if (i % C_SCRAPE_EVERY_S === 0) {
        // Ours and the static reference in turns, first one then the other, so neither always goes first.
        const order = (i / C_SCRAPE_EVERY_S) % 2 === 0 ? ['ours', 'static'] : ['static', 'ours'];
        for (const who of order) {
          if (who === 'ours') {
            try {
              latencies.push(await scrapeOnce(agent, url));
            } catch {
              scrapeErrors++;
            }
          } else if (stat) {
            staticLatencies.push(await scrapeOnce(staticAgent, stat.info.url));
          }
        }
      }
      if (i === Math.floor(ticks / 2)) connections = procTcpConnections(d.child.pid, Number(new URL(d.info.url).port));
      await sleep(Math.max(0, t0 + (i + 1) * 1000 - performance.now()));
    }
    const c1 = await d.child.cpuMs();
    const waitMs = d.child.runQueueWaitMs() - w0;
    const wall = performance.now() - t0;
    agent.destroy();
    staticAgent.destroy();
    const end = await d.child.request<DaemonStatus>('status');
    const usage = await d.child.usage();
    const memory = await d.child.request<MemoryBreakdown>('memory');
    const freshness = await d.child.request<Percentiles>('freshness', { last: end.renders - r0.renders });
    let floor: Pick<FleetExtras, 'floorParseMs' | 'floorWriteMs' | 'exchangeMs' | 'bytesPerNodeRound'> | undefined;
    const roundsInWindow = end.nodeRounds - r0.nodeRounds;
    if (extras) {
      log(`${tag}: the floor (the window's answers parsed; the exposition written and gzipped once per interval)`);
      const calls = await recordFleetBodies(fleet.fakes, join(logDir, `${tag.toLowerCase()}-${nodes}-bodies`));
      const floorChild = track((await BenchChild.spawn<object>('floor', {}, { logDir })).child);
      const parse = await floorChild.request<ParseFloor>('parse', { kinds: calls.kinds }, 300_000);
      const exchange = await floorChild.request<ExchangeFloor>('exchange', { kinds: calls.kinds, maxCalls: EXCHANGE_CALLS }, 300_000);
      const textFile = join(logDir, `${tag.toLowerCase()}-${nodes}-exposition.txt`);
      writeFileSync(textFile, await fetch(url, { headers: { 'accept-encoding': 'identity' } }).then((r) => r.text()));
      const write = await floorChild.request<WriteFloor>('write', { file: textFile }, 300_000);
      // Written and gzipped once per interval, shared by the node rounds of that interval.
      const writesInWindow = wall / 1000 / seconds(plan.cInterval);
      floor = {
        floorParseMs: parse.parseMs / roundsInWindow,
        floorWriteMs: ((write.joinMs + write.gzipMs) * writesInWindow) / roundsInWindow,
        exchangeMs: exchange.exchangeMs / roundsInWindow,
        bytesPerNodeRound: parse.bytes / roundsInWindow,
      };
    }
    // After the window: what one render of this exposition costs.
    const renderCost = await d.child.request<RenderCost>('renderCost', { count: nodes > 200 ? 2 : 5 }, 300_000);
    latencies.sort((a, b) => a - b);
    staticLatencies.sort((a, b) => a - b);
    const r: CResult = {
      fakeIdleTimeoutMs: fleet.info.idleTimeoutMs,
      waitMs,
      nodes,
      seconds: wall / 1000,
      series: end.series,
      textBytes: end.textBytes,
      gzipBytes: end.gzipBytes,
      cpuMs: c1 - c0,
      cpuPct: ((c1 - c0) / wall) * 100,
      roundsInWindow,
      cpuMsPerNodeRound: roundsInWindow ? (c1 - c0) / roundsInWindow : NaN,
      failures: end.failures - st.failures,
      rssBytes: usage.rssBytes,
      maxRssBytes: usage.maxRssBytes,
      readyMaxRssBytes: readyUsage.maxRssBytes,
      heapUsedBytes: usage.heapUsedBytes,
      renders: end.renders - r0.renders,
      freshness,
      renderCost,
      memory,
      scrapes: latencies.length,
      scrapeErrors,
      scrapeP50: pct(latencies, 50),
      scrapeP99: pct(latencies, 99),
      scrapeMax: latencies[latencies.length - 1] ?? NaN,
      ...(extras && floor
        ? {
            fakeProcesses: fleet.fakes.length,
            rssSamples,
            ...floor,
            staticP50: pct(staticLatencies, 50),
            staticP99: pct(staticLatencies, 99),
            staticMax: staticLatencies[staticLatencies.length - 1] ?? NaN,
            connections,
          }
        : {}),
    };
    log(
      `${tag}: ${nodes} nodes, ${f(r.cpuPct, 2)} % of a core, ${f(r.cpuMsPerNodeRound, 2)} CPU ms/node round, RSS ${mb(r.rssBytes)} MB, ${roundsInWindow} rounds in the window`,
    );
    return r;
  });
}

export function cTargets(plan: Plan, c: CResult): Target[] {
  const t: Target[] = [];
  t.push({
    scenario: 'C',
    what: `CPU, ${c.nodes} nodes at ${plan.cInterval}, averaged over ${f(c.seconds, 0)} s`,
    measured: `${f(c.cpuPct, 2)} % of a core`,
    limit: '<= 5 %',
    pass: c.cpuPct <= 5,
  });
  // The peak, start-up included: what a container's memory limit has to allow.
  t.push({
    scenario: 'C',
    what: 'RSS, at its peak since start-up',
    measured: `${mb(c.maxRssBytes)} MB (at the end ${mb(c.rssBytes)})`,
    limit: '<= 200 MB',
    pass: c.maxRssBytes <= 200 * 2 ** 20,
  });
  t.push({
    scenario: 'C',
    what: 'failed polls and scrapes',
    measured: String(c.failures + c.scrapeErrors),
    limit: '0',
    pass: c.failures + c.scrapeErrors === 0,
  });
  return t;
}

export function cSection(plan: Plan, c: CResult): string[] {
  const out: string[] = [];
  out.push(
    '',
    `### C. Scale: ${c.nodes} mainnet-scale nodes (each its own validator, 2,000 peers, full health) at ${plan.cInterval}, ${f(c.seconds, 0)} s`,
    '',
    `The fake nodes in their own process, ${
      c.fakeIdleTimeoutMs >= 120_000
        ? 'keeping idle connections 120 s as AvalancheGo does (--http-idle-timeout)'
        : `closing idle connections after ${f(c.fakeIdleTimeoutMs / 1000, 0)} s (AvalancheGo keeps them 120 s: these figures include a reconnection per node and round)`
    }; each daemon node watches its own validator id. A gzip scrape every ${C_SCRAPE_EVERY_S} s during the window (three Prometheus servers at 15 s). ${c.series.toLocaleString('en-US')} series (${mb(c.textBytes)} MB, ${f(c.gzipBytes / 1024, 0)} KB gzip).`,
    '',
    table(
      ['figure', 'value'],
      [
        ['CPU, averaged over the window', `${f(c.cpuPct, 2)} % of a core (${f(c.cpuMs, 0)} ms)`],
        ['node rounds in the window', String(c.roundsInWindow)],
        ['CPU per node round (poll + its share of renders and scrapes)', `${f(c.cpuMsPerNodeRound, 1)} ms`],
        [
          'renders in the window; CPU of one render, measured after the window: with every value cached / with nothing cached',
          `${c.renders}; ${f(c.renderCost.cachedCpuMsPerRender, 1)} / ${f(c.renderCost.cpuMsPerRender, 1)} ms`,
        ],
        [
          "  so renders took about (each: the cached render plus one node's share of the uncached one)",
          (() => {
            const per = c.renderCost.cachedCpuMsPerRender + c.renderCost.cpuMsPerRender / c.nodes;
            return `${f((c.renders * per * 100) / c.cpuMs, 0)} % of the CPU (${f((c.renders * per * 100) / (c.seconds * 1000), 2)} % of a core)`;
          })(),
        ],
        ['RSS / peak RSS / heap used', `${mb(c.rssBytes)} / ${mb(c.maxRssBytes)} / ${mb(c.heapUsedBytes)} MB`],
        ["peak RSS by the time every node's first round was served (start-up)", `${mb(c.readyMaxRssBytes)} MB`],
        ['RSS breakdown (MB)', memoryLine(c.memory)],
        ['scrape latency p50 / max (gzip)', `${f(c.scrapeP50, 1)} / ${f(c.scrapeMax, 1)} ms (${c.scrapes} scrapes)`],
        [
          "a node's change on /metrics after its round (round end to render served) p50 / p99 / max",
          `${f(c.freshness.p50, 1)} / ${f(c.freshness.p99, 1)} / ${f(c.freshness.max, 1)} ms (${c.freshness.count} renders)`,
        ],
        [
          "time the daemon's event-loop thread waited for a CPU (run-queue delay; the shared machine)",
          `${f(c.waitMs, 0)} ms (${f((c.waitMs / (c.seconds * 1000)) * 100, 1)} % of the window)`,
        ],
        ['failed polls / failed scrapes', `${c.failures} / ${c.scrapeErrors}`],
      ],
      ['l', 'r'],
    ),
  );
  return out;
}
