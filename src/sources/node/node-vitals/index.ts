import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { parseJsonBody, rejectHttpStatus } from '../../../http/json-rpc.js';
import { describeIssues } from '../../../http/wire.js';
import { defineNodeSource } from '../source.js';
import { collectNodeVitals } from './collect.js';
import type { ChainConsensus, DiskVitals, NetworkVitals, NodeVitalsValue, RouterVitals } from './value.js';
export type { NodeVitalsValue } from './value.js';

const GO_UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/**
 * Seconds of a Go `time.Duration` as AvalancheGo writes it in its health
 * details: `Duration.String()` (`0s`, `812.5µs`, `281.559ms`, `1m2.5s`,
 * `2h0m0s`) in every check this source reads (network/network.go,
 * snow/networking/router/chain_router.go, snow/consensus/snowman/topological.go);
 * a bare integer is taken as nanoseconds, the way encoding/json writes a
 * Duration that is not turned into a string. Undefined for anything else,
 * negative durations included (a clock stepping back). Pure.
 */
export function goDurationSeconds(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw / 1e9 : undefined;
  if (typeof raw !== 'string') return undefined;
  // Go prints a zero Duration as `0s`; ParseDuration also takes a bare `0`.
  if (raw === '0') return 0;
  if (raw === '') return undefined;
  let seconds = 0;
  let rest = raw;
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m) return undefined;
    seconds += Number(m[1]) * (GO_UNIT_SECONDS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** A count or a uint64 AvalancheGo writes as a JSON number. */
const count = z.number().int().nonnegative();
/** A 0..1 share. */
const fraction = z.number().min(0).max(1);

/** `schema`'s reading of `raw`, or undefined when it does not fit: each field on its own. */
function read<T>(schema: z.ZodType<T>, raw: unknown): T | undefined {
  const r = schema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/** The first key of `keys` that `obj` has (field names that changed across AvalancheGo versions). */
function firstOf(obj: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (Object.hasOwn(obj, k)) return obj[k];
  return undefined;
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Whether every field of a part is undefined (then the part itself is). */
function allAbsent(o: object): boolean {
  return Object.values(o).every((x) => x === undefined);
}

/**
 * 2^64 as a JSON number parses to: the resource tracker starts at
 * math.MaxUint64 bytes and 100 % (utils/resource/usage.go NewManager) until
 * its first measurement, which a health check run right after start-up may
 * report. That is "not measured yet", not 18 EB free.
 */
const UNMEASURED_BYTES = 2 ** 64;

/** The `diskspace` check's message (node/node.go), or undefined. Pure. */
export function diskFrom(message: unknown): DiskVitals | undefined {
  const m = asObject(message);
  if (!m) return undefined;
  const bytes = read(z.number().nonnegative(), m['availableDiskBytes']);
  const unmeasured = bytes !== undefined && bytes >= UNMEASURED_BYTES;
  const pct = read(z.number().min(0).max(100), m['availableDiskPercentage']);
  const out: DiskVitals = {
    availableBytes: unmeasured ? undefined : bytes,
    availableRatio: unmeasured || pct === undefined ? undefined : pct / 100,
  };
  return allAbsent(out) ? undefined : out;
}

/** The `network` check's message (network/network.go), or undefined. Pure. */
export function networkFrom(message: unknown): NetworkVitals | undefined {
  const m = asObject(message);
  if (!m) return undefined;
  const validator = asObject(m['primary network validator health']);
  const out: NetworkVitals = {
    connectedPeers: read(count, m['connectedPeers']),
    sendFailRatio: read(fraction, m['sendFailRate']),
    lastReceivedAgeSeconds: goDurationSeconds(m['timeSinceLastMsgReceived']),
    lastSentAgeSeconds: goDurationSeconds(m['timeSinceLastMsgSent']),
    ingressConnections: validator ? read(count, validator['ingressConnectionCount']) : undefined,
  };
  return allAbsent(out) ? undefined : out;
}

/** The `router` check's message (snow/networking/router/chain_router.go), or undefined. Pure. */
export function routerFrom(message: unknown): RouterVitals | undefined {
  const m = asObject(message);
  if (!m) return undefined;
  const out: RouterVitals = {
    outstandingRequests: read(count, m['outstandingRequests']),
    longestRunningRequestSeconds: goDurationSeconds(m['longestRunningRequest']),
  };
  return allAbsent(out) ? undefined : out;
}

/**
 * A chain check's consensus details, or undefined when it has none (not a
 * chain check, or a chain still bootstrapping or state syncing: their engines
 * report `consensus: {}`, snow/engine/snowman/bootstrap/bootstrapper.go). The
 * chain check's message is `{engine: {consensus, vm}, networking}` since
 * v1.11 (snow/networking/handler/health.go); before it was the engine's own
 * `{consensus, vm}`, with `outstandingBlocks` and `longestRunningBlock`
 * (v1.10 topological.go). Pure.
 */
export function consensusFrom(chain: string, message: unknown): ChainConsensus | undefined {
  const m = asObject(message);
  if (!m) return undefined;
  const engine = asObject(m['engine']) ?? (Object.hasOwn(m, 'networking') ? undefined : m);
  const consensus = asObject(engine?.['consensus']);
  if (!consensus) return undefined;
  const out: ChainConsensus = {
    chain,
    processingBlocks: read(count, firstOf(consensus, ['processingBlocks', 'outstandingBlocks'])),
    longestProcessingSeconds: goDurationSeconds(firstOf(consensus, ['longestProcessingBlock', 'longestRunningBlock'])),
    lastAcceptedHeight: read(count, consensus['lastAcceptedHeight']),
  };
  const { chain: _name, ...values } = out;
  return allAbsent(values) ? undefined : out;
}

/**
 * The `bootstrapped` check's count of subnets still bootstrapping
 * (chains/manager.go: its message lists them, `[]` once all are done), or
 * undefined when the message is not a list (the check has not run yet). Pure.
 */
export function bootstrappingSubnetsFrom(message: unknown): number | undefined {
  return Array.isArray(message) ? message.length : undefined;
}

/** The application-wide checks this source reads; every other check with consensus details is a chain's. */
const NODE_CHECKS = new Set(['diskspace', 'network', 'router', 'bootstrapped', 'bls', 'database', 'futureupgrade', 'validation']);

const reportSchema = z.object({ checks: z.record(z.string(), z.object({ message: z.unknown().optional() }).passthrough()) });

/**
 * The vitals in a /ext/health body. The `bls` and `database` checks carry no
 * figure (a sentence, or nothing: database/leveldb/db.go HealthCheck), so
 * only whether they pass is exported, by the health source. Pure.
 */
export function nodeVitalsFrom(checks: Readonly<Record<string, { message?: unknown }>>): NodeVitalsValue {
  const chains: ChainConsensus[] = [];
  for (const [name, check] of Object.entries(checks)) {
    if (NODE_CHECKS.has(name)) continue;
    const c = consensusFrom(name, check.message);
    if (c) chains.push(c);
  }
  return {
    disk: diskFrom(checks['diskspace']?.message),
    network: networkFrom(checks['network']?.message),
    router: routerFrom(checks['router']?.message),
    bootstrappingSubnets: bootstrappingSubnetsFrom(checks['bootstrapped']?.message),
    chains: chains.sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0)),
  };
}

/**
 * The node's vitals from its own /ext/health report: disk, each chain's
 * consensus, network and router. The health source GETs the same path in
 * the same round and ctx.get is single-flight per round, so this costs no
 * request; a report that cannot be read fails this source as it fails that
 * one.
 */
export const nodeVitalsSource = defineNodeSource<NodeVitalsValue>({
  name: 'node_vitals',
  async poll(ctx) {
    const path = '/ext/health';
    const res = await ctx.get(path);
    // 503 only says that some check fails; the body is the same report.
    if (res.status !== 200 && res.status !== 503) rejectHttpStatus(res, `GET ${path}`);
    const parsed = reportSchema.safeParse(parseJsonBody(res.body, `GET ${path}`));
    if (!parsed.success) throw new UpstreamError('invalid_response', `GET ${path}: unexpected shape (${describeIssues(parsed.error)})`);
    return nodeVitalsFrom(parsed.data.checks);
  },
  collect: collectNodeVitals,
});
