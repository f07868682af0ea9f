/**
 * Scenario B of `npm run bench`: poll rounds of one mainnet-scale node driven
 * back to back in the daemon, each with its render and first gzip, and the
 * floor of such a round measured in the same run (parsing the round's answers,
 * writing the same lines from ready strings and gzipping them once).
 */
import { BenchChild } from './ipc.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallCounts, FakeInfo, RecordedCalls } from './role-fake.js';
import type { ParseFloor, WriteFloor } from './role-floor.js';
import type { DaemonInfo, DaemonStatus, RenderCost, RoundsResult, SyncSteps } from './role-daemon.js';
import { L1_SUBNET_ID } from './world.js';
import { DAEMON_RUNTIME_ENV } from './runtime-env.js';
import { daemonNodeArgs, f, log, mb, memoryLine, table, withChildren, type Plan, type Target } from './common.js';

/** A round's floor, ms of CPU: its answers parsed, its lines written from ready strings and gzipped once. */
export interface BFloor {
  parseMs: number;
  /** Bytes of answers per round. */
  bytes: number;
  joinMs: number;
  gzipMs: number;
  textBytes: number;
}

export const floorMs = (fl: BFloor) => fl.parseMs + fl.joinMs + fl.gzipMs;

export interface BResult {
  floor: BFloor;
  steps: SyncSteps;
  renderCost: RenderCost;
  /** Time the daemon waited for a CPU during the measured rounds (ms). */
  waitMs: number;
  fake: FakeInfo;
  series: number;
  rounds: RoundsResult;
  warmRounds: number;
  calls: { perRound: number; distinct: number; maxPerRound: number; worst: string };
}

export async function scenarioB(plan: Plan, logDir: string, profileDir: string): Promise<BResult> {
  return withChildren(async (track) => {
    log('B: starting the mainnet-scale fake node');
    const fake = await BenchChild.spawn<FakeInfo>('fake', { count: 1 }, { logDir });
    track(fake.child);
    const d = await BenchChild.spawn<DaemonInfo>(
      'daemon',
      {
        nodes: [{ name: 'mainnet', url: fake.info.urls[0], watch: { all_validators: true, subnet_ids: [L1_SUBNET_ID] } }],
        // The scheduler's next round is an hour away: the rounds below are driven back to back.
        interval: '1h',
        timeout: '10s',
        // Every source in every round, info.peers included: the whole poll, not the steady state's average.
        peersInterval: '0s',
      },
      { logDir, nodeArgs: daemonNodeArgs(plan, profileDir, 'b'), env: { ...DAEMON_RUNTIME_ENV, ...plan.daemonEnv } },
    );
    track(d.child);
    const st = await d.child.request<DaemonStatus>('waitReady', { timeoutMs: 60_000 }, 90_000);
    if (st.sourcesDown.length) throw new Error(`B: sources down after the first round: ${st.sourcesDown.join('; ')}`);
    log(`B: ${plan.bWarmRounds} warm-up rounds`);
    const roundsArgs = (count: number, maxMs: number) => ({ count, gapMs: plan.bGapMs, maxMs, eldResolutionMs: plan.eldResolutionMs });
    await d.child.request<RoundsResult>('rounds', roundsArgs(plan.bWarmRounds, 60_000), 120_000);
    await fake.child.request<CallCounts>('calls');
    log(`B: ${plan.bRounds} measured rounds (at most ${plan.bMaxMs / 1000} s)`);
    const w0 = d.child.runQueueWaitMs();
    const rounds = await d.child.request<RoundsResult>('rounds', roundsArgs(plan.bRounds, plan.bMaxMs), plan.bMaxMs + 120_000);
    const waitMs = d.child.runQueueWaitMs() - w0;
    const calls = await fake.child.request<RecordedCalls>('bodies', { dir: join(logDir, 'b-bodies') }, 120_000);
    let worst = '';
    let worstCount = 0;
    for (const [k, n] of Object.entries(calls.byCall)) {
      if (n > worstCount) {
        worst = k;
        worstCount = n;
      }
    }
    const end = await d.child.request<DaemonStatus>('status');
    // With polling idle: the poll's synchronous steps and one render, each alone.
    const steps = await d.child.request<SyncSteps>('syncSteps', undefined, 60_000);
    const renderCost = await d.child.request<RenderCost>('renderCost', { count: 5 }, 60_000);
    // The floor, in a process of its own: parsing the answers the rounds received, writing the same lines from ready strings, gzipping them once.
    log("B: the floor (parsing the rounds' answers; the same lines written and gzipped from ready data)");
    const floorChild = track((await BenchChild.spawn<object>('floor', {}, { logDir })).child);
    const parse = await floorChild.request<ParseFloor>('parse', { kinds: calls.kinds }, 180_000);
    const textFile = join(logDir, 'b-exposition.txt');
    writeFileSync(textFile, await fetch(`${d.info.url.replace(/\/$/, '')}/metrics`, { headers: { 'accept-encoding': 'identity' } }).then((r) => r.text()));
    const write = await floorChild.request<WriteFloor>('write', { file: textFile }, 120_000);
    log(`B: ${rounds.rounds} rounds, ${f(rounds.cpuMs / rounds.rounds, 1)} CPU ms/round, event-loop delay p99 ${f(rounds.eld.p99, 1)} ms`);
    return {
      floor: { parseMs: parse.parseMs / rounds.rounds, bytes: parse.bytes / rounds.rounds, joinMs: write.joinMs, gzipMs: write.gzipMs, textBytes: write.bytes },
      steps,
      renderCost,
      waitMs,
      fake: fake.info,
      series: end.series,
      rounds,
      warmRounds: plan.bWarmRounds,
      calls: {
        perRound: calls.total / rounds.rounds,
        distinct: Object.keys(calls.byCall).length,
        maxPerRound: worstCount / rounds.rounds,
        worst: worst.length > 90 ? `${worst.slice(0, 87)}...` : worst,
      },
    };
  });
}

export function bTargets(plan: Plan, b: BResult): Target[] {
  const t: Target[] = [];
  const r = b.rounds;
  t.push({
    scenario: 'B',
    what: `event-loop delay p99 during mainnet-sized polls (resolution ${r.eld.resolutionMs} ms)`,
    measured: `${f(r.eld.p99, 1)} ms (max ${f(r.eld.max, 1)})`,
    limit: '<= 20 ms',
    pass: r.eld.p99 <= 20,
  });
  t.push({
    scenario: 'B',
    what: 'a state change on /metrics after the poll round that saw it, p99',
    measured: `${f(r.freshness.p99, 1)} ms (max ${f(r.freshness.max, 1)})`,
    limit: '<= 50 ms',
    pass: r.freshness.count > 0 && r.freshness.p99 <= 50,
  });
  t.push({
    scenario: 'B',
    what: 'CPU per poll round (poll + render)',
    measured: `${f(r.cpuMs / r.rounds, 1)} ms`,
    limit: '<= 150 ms',
    pass: r.cpuMs / r.rounds <= 150,
  });
  const floor = floorMs(b.floor);
  t.push({
    scenario: 'B',
    what: 'CPU per poll round (poll + render + first gzip) ÷ its floor',
    measured: `${f(r.cpuMs / r.rounds / floor, 2)}x (${f(r.cpuMs / r.rounds, 1)} ms)`,
    limit: '<= 1.5x',
    reference: `floor ${f(floor, 1)} ms: parse ${f(b.floor.parseMs, 1)} + write ${f(b.floor.joinMs, 1)} + gzip ${f(b.floor.gzipMs, 1)}`,
    pass: r.cpuMs / r.rounds <= 1.5 * floor,
  });
  t.push({
    scenario: 'B',
    what: `RSS after ${r.rounds} rounds`,
    measured: `${mb(r.rssBytes)} MB (peak ${mb(r.maxRssBytes)})`,
    limit: '<= 100 MB',
    pass: r.rssBytes <= 100 * 2 ** 20,
  });
  t.push({
    scenario: 'B',
    what: 'upstream calls per round of the same method and params',
    measured: `${f(b.calls.maxPerRound, 2)}`,
    limit: '<= 1',
    pass: b.calls.maxPerRound <= 1.0001,
  });
  t.push({ scenario: 'B', what: 'failed polls', measured: String(r.failures), limit: '0', pass: r.failures === 0 });
  return t;
}

export function bSection(plan: Plan, b: BResult): string[] {
  const out: string[] = [];
  const r = b.rounds;
  out.push(
    '',
    `### B. Polling: one mainnet-scale node, ${r.rounds} rounds back to back (after ${b.warmRounds} warm-up rounds, ${plan.bGapMs} ms apart)`,
    '',
    `Upstream: ${b.fake.validators.toLocaleString('en-US')} primary validators with delegators (getCurrentValidators ${mb(b.fake.allValidatorsBytes)} MB), ${b.fake.l1Validators} L1 validators, ` +
      `${b.fake.peers.toLocaleString('en-US')} peers (info.peers ${mb(b.fake.peersBytes)} MB), full health report (${f(b.fake.healthBytes / 1024, 0)} KB); the fake node in its own process. ` +
      `The daemon exports ${b.series.toLocaleString('en-US')} series.`,
    '',
    table(
      ['figure', 'value'],
      [
        ['CPU per round, total', `${f(r.cpuMs / r.rounds, 1)} ms`],
        ['  of which the poll (requests, JSON, validation, state)', `${f(r.pollCpuMs / r.rounds, 1)} ms`],
        ["  of which the render after it (collect, format) and the first scrape's text join and gzip", `${f(r.renderCpuMs / r.rounds, 1)} ms`],
        ['round wall time p50 / p99', `${f(r.roundWallP50, 1)} / ${f(r.roundWallP99, 1)} ms`],
        [
          "a change on /metrics after the round that saw it: served (the daemon's own lag, round end to render served) p50 / p99 / max",
          `${f(r.freshness.p50, 1)} / ${f(r.freshness.p99, 1)} / ${f(r.freshness.max, 1)} ms`,
        ],
        ["  and with the first gzip scrape's compression done (round end to gzip ready) p50 / p99", `${f(r.renderWallP50, 1)} / ${f(r.renderWallP99, 1)} ms`],
        [
          `event-loop delay p50 / p99 / max (resolution ${r.eld.resolutionMs} ms, ${r.eld.samples} samples)`,
          `${f(r.eld.p50, 1)} / ${f(r.eld.p99, 1)} / ${f(r.eld.max, 1)} ms`,
        ],
        ['renders (one per round expected)', String(r.renders)],
        [
          'one render alone, after the rounds, nothing cached (CPU / wall); with every value cached (CPU)',
          `${f(b.renderCost.cpuMsPerRender, 1)} / ${f(b.renderCost.wallMsPerRender, 1)} ms; ${f(b.renderCost.cachedCpuMsPerRender, 1)} ms`,
        ],
        [
          `synchronous steps on getCurrentValidators (${mb(b.steps.validatorsBytes)} MB), each alone: byte scan for the items (whole / one slice between yields); one batch of 200 items (decode + JSON.parse + the fast reader, zod where it defers)`,
          `${f(b.steps.validatorsScan, 1)} / ${f(b.steps.validatorsScanSlice, 1)} ms; ${f(b.steps.validatorsBatch, 1)} ms`,
        ],
        [
          `synchronous steps on info.peers (${mb(b.steps.peersBytes)} MB): decode + JSON.parse / zod`,
          `${f(b.steps.peersDecodeParse, 1)} / ${f(b.steps.peersValidate, 1)} ms`,
        ],
        [
          'GC pauses per round: count / total; longest pause; full GCs',
          `${f(r.gc.count / r.rounds, 1)} / ${f(r.gc.totalMs / r.rounds, 1)} ms; ${f(r.gc.maxMs, 1)} ms; ${r.gc.majorCount} (longest ${f(r.gc.majorMaxMs, 1)} ms)`,
        ],
        [
          "time the daemon's event-loop thread waited for a CPU (run-queue delay; the shared machine)",
          `${f(b.waitMs / r.rounds, 1)} ms per round (${f((b.waitMs / r.wallMs) * 100, 0)} % of the wall time)`,
        ],
        [`RSS / heap used / heap total after ${r.rounds} rounds`, `${mb(r.rssBytes)} / ${mb(r.heapUsedBytes)} / ${mb(r.heapTotalBytes)} MB`],
        ['RSS breakdown (MB)', memoryLine(r.memory)],
        ['peak RSS', `${mb(r.maxRssBytes)} MB`],
        ['upstream calls per round (distinct calls)', `${f(b.calls.perRound, 2)} (${b.calls.distinct})`],
        ['most repeated call, per round', `${f(b.calls.maxPerRound, 2)}: ${b.calls.worst}`],
        ['failed polls', String(r.failures)],
      ],
      ['l', 'r'],
    ),
  );
  return out;
}
