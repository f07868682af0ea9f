import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { parseJsonBody, rejectHttpStatus } from '../../../http/json-rpc.js';
import { describeIssues, finiteNumber } from '../../../http/wire.js';
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import { defineNodeSource, type PollContext } from '../source.js';
import { collectHealth } from './collect.js';
import { healthChanges } from './changes.js';
import { healthStatus } from './status.js';
import type { HealthCheck, ChainNetworking, FutureUpgrade, HealthValue } from './value.js';
export type { ChainNetworking, FutureUpgrade, HealthValue } from './value.js';

const checkSchema = z.object({
  message: z.unknown().optional(),
  error: z.unknown().optional(),
  timestamp: z.string(),
  duration: finiteNumber,
  contiguousFailures: z.number().int().nonnegative().optional(),
  timeOfFirstFailure: z.string().optional(),
});

/** Body of every /ext/health endpoint (200 and 503 alike). */
export const healthBodySchema = z.object({ checks: z.record(z.string(), checkSchema), healthy: z.boolean() });

/**
 * Whether a /ext/health report comes from a node started with
 * `--partial-sync-primary-network`, which runs only the P-Chain of the primary
 * network (vms/platformvm/vm.go initBlockchains skips the primary network's
 * X- and C-Chains). AvalancheGo registers the application-wide health check
 * `validation` exactly in that mode (chains/manager.go
 * registerBootstrappedHealthChecks: it fails if such a node becomes a primary
 * network validator), from start-up on, so its presence is the signal; the
 * absence of the X and C checks is not (on a full node they appear only once
 * the chain creator has created those chains). Pure.
 */
export function isPartialSyncReport(checks: Readonly<Record<string, unknown>>): boolean {
  return Object.hasOwn(checks, 'validation');
}

/** The primary-network chains a node runs: P alone in partial sync, else P, X and C. Pure. */
export function primaryChainsRun(partialSync: boolean): readonly ('P' | 'X' | 'C')[] {
  return partialSync ? ['P'] : ['P', 'X', 'C'];
}

const reportChecks = z.object({ checks: z.record(z.string(), z.unknown()) });

/**
 * The node's /ext/health body, or undefined when it cannot be read in time
 * (transport failure, a status other than 200/503, not JSON, no answer within
 * `waitMs`). Never throws: the sources that read it besides the health source
 * (bootstrapped, the chain heights) only learn from it what to ask, so its
 * failure must not fail them, and a hanging health endpoint must leave them
 * time for their own calls. The health source GETs the same path in the same
 * round and ctx.get is single-flight per round, so this costs no request.
 */
export async function readHealthReport(ctx: PollContext, waitMs: number): Promise<unknown> {
  const read = async (): Promise<unknown> => {
    try {
      const res = await ctx.get('/ext/health');
      // 503 only says that some check fails; the body is the same report.
      if (res.status !== 200 && res.status !== 503) return undefined;
      return parseJsonBody(res.body, 'GET /ext/health');
    } catch {
      return undefined;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, waitMs, undefined);
  });
  try {
    return await Promise.race([read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the node runs in partial sync, from its health report read within
 * half the time left in the round; `fallback` (the last known answer) when the
 * report cannot be read.
 */
export async function partialSyncOf(ctx: PollContext, fallback: boolean): Promise<boolean> {
  const body = reportChecks.safeParse(await readHealthReport(ctx, Math.max(0, (ctx.deadline.at - Date.now()) / 2)));
  return body.success ? isPartialSyncReport(body.data.checks) : fallback;
}

const rfc3339Seconds = z.string().transform((s, ctx) => {
  const ms = Date.parse(s);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: 'not a time' });
    return z.NEVER;
  }
  return ms / 1000;
});
const futureUpgradeFields = {
  localUpgradeTime: rfc3339Seconds,
  modeUpgradeTime: rfc3339Seconds,
  modeUpgradeWeightPercentage: finiteNumber.refine((v) => v >= 0 && v <= 100, 'percentage outside 0..100'),
  numUpgradeTimes: z.number().int().nonnegative(),
};

/**
 * The `futureupgrade` check's details, each field on its own (one odd value
 * does not hide the others); undefined when the check is absent (older
 * AvalancheGo versions) or says nothing readable (no validators yet: the check
 * fails without details). Pure.
 */
export function futureUpgradeFrom(checks: Readonly<Record<string, { message?: unknown }>>): FutureUpgrade | undefined {
  const message = checks['futureupgrade']?.message;
  if (message === null || typeof message !== 'object') return undefined;
  const m = message as Record<string, unknown>;
  const read = <K extends keyof typeof futureUpgradeFields>(key: K): z.output<(typeof futureUpgradeFields)[K]> | undefined => {
    const r = futureUpgradeFields[key].safeParse(m[key]);
    return r.success ? (r.data as z.output<(typeof futureUpgradeFields)[K]>) : undefined;
  };
  const pct = read('modeUpgradeWeightPercentage');
  const out: FutureUpgrade = {
    localTime: read('localUpgradeTime'),
    stakeModeTime: read('modeUpgradeTime'),
    stakeModeRatio: pct === undefined ? undefined : pct / 100,
    distinctTimes: read('numUpgradeTimes'),
  };
  return Object.values(out).every((v) => v === undefined) ? undefined : out;
}

/** A chain check's message: only checks with a `networking` object (not bls, database, ...) match. */
const chainMessageSchema = z.object({ networking: z.record(z.string(), z.unknown()) });
/** `percentConnected`: a fraction 0..1 (unlike the uptime percentages elsewhere). */
const percentConnectedSchema = finiteNumber.refine((v) => v >= 0 && v <= 1, 'fraction outside 0..1');
/** `disconnectedValidators`: a Go set, always an array on the wire (null tolerated as empty); absent before v1.11.11. */
const disconnectedValidatorsSchema = z.array(z.string()).nullable();

async function getHealth(ctx: PollContext, path: string): Promise<HealthAnswer> {
  const res = await ctx.get(path);
  // 503 is the node's way of saying "unhealthy": an answer, not a failure.
  if (res.status !== 200 && res.status !== 503) rejectHttpStatus(res, `GET ${path}`);
  const parsed = healthBodySchema.safeParse(parseJsonBody(res.body, `GET ${path}`));
  if (!parsed.success) throw new UpstreamError('invalid_response', `GET ${path}: unexpected shape (${describeIssues(parsed.error)})`);
  return { ok: res.status === 200, body: parsed.data };
}

function toCheck(name: string, c: z.output<typeof checkSchema>): HealthCheck {
  const passing = c.error === undefined || c.error === null;
  const since = !passing && c.timeOfFirstFailure ? Date.parse(c.timeOfFirstFailure) : NaN;
  return {
    name,
    passing,
    contiguousFailures: passing ? 0 : (c.contiguousFailures ?? 0),
    // Go's zero time (year 1) means "never": not a real failure start.
    failingSince: Number.isFinite(since) && since > 0 ? since / 1000 : undefined,
  };
}

/** A health endpoint's answer: 200 (ok) or 503, and its validated body. */
export interface HealthAnswer {
  ok: boolean;
  body: z.output<typeof healthBodySchema>;
}

/** Builds the health value from the three endpoints' answers. Pure. */
export function healthValueFrom(health: HealthAnswer, readiness: HealthAnswer, liveness: HealthAnswer): HealthValue {
  const checks = Object.entries(health.body.checks)
    .map(([name, c]) => toCheck(name, c))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const value: HealthValue = { healthy: health.ok, partialSync: isPartialSyncReport(health.body.checks), ready: readiness.ok, live: liveness.ok, checks };
  const futureUpgrade = futureUpgradeFrom(health.body.checks);
  if (futureUpgrade) value.futureUpgrade = futureUpgrade;
  return value;
}

/**
 * The networking details of every chain check in a /ext/health body, with
 * the watched ids looked up in each check's disconnected list. A check whose
 * details do not have the expected shape is skipped rather than failing the
 * source: health is what operators page on, and one check's detail changing
 * shape must not blind it. Sorted by chain. Pure.
 */
export function chainNetworkingFrom(body: z.output<typeof healthBodySchema>, watched: readonly string[]): ChainNetworking[] {
  const out: ChainNetworking[] = [];
  for (const [chain, check] of Object.entries(body.checks)) {
    const message = chainMessageSchema.safeParse(check.message);
    if (!message.success) continue;
    // Each key on its own, so one odd value does not hide the other.
    const ratio = percentConnectedSchema.safeParse(message.data.networking['percentConnected']);
    const listed = disconnectedValidatorsSchema.safeParse(message.data.networking['disconnectedValidators']);
    const percentConnected = ratio.success ? ratio.data : undefined;
    const list = listed.success ? new Set(listed.data ?? []) : undefined;
    if (percentConnected === undefined && list === undefined) continue;
    out.push({
      chain,
      connectedStakeRatio: percentConnected,
      disconnectedCount: list?.size,
      watched: list ? watched.map((nodeId) => ({ nodeId, disconnected: list.has(nodeId) })) : [],
    });
  }
  return out.sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0));
}

/**
 * The ids whose disconnection is reported one by one: the watched node ids
 * (--watch.node-id). Everyone else is only counted, so a mainnet node with
 * dozens of disconnected validators stays bounded. The node's own id is left
 * out even when watched: AvalancheGo counts a node as connected to itself, so
 * its own view would always say 0, and that 0 would hide, in an aggregation
 * over the watching nodes, what the other nodes see.
 */
function watchedIds(ctx: PollContext): string[] {
  const ids = new Set(ctx.node.watch.nodeIds);
  if (ctx.known.nodeId) ids.delete(ctx.known.nodeId);
  return [...ids];
}

/**
 * The node's own health from its `?tag=<primary network id>` report: that
 * report holds the primary network's chain checks (P, X, C, tagged with the
 * primary network's id in chains/manager.go) and every application-wide check
 * (api/health/worker.go Results adds the application tag to any query;
 * node/node.go registers network, router, database, diskspace, bls,
 * futureupgrade under it), and no L1 chain's check. One application-wide
 * check still speaks for the L1s: `bootstrapped` fails while any subnet the
 * node runs has a chain bootstrapping, and for good when an L1 chain failed
 * to start (chains/manager.go Subnets.Bootstrapping lists their subnet ids).
 * It counts here only when it lists the primary network or cannot be read as
 * a list (not yet run). Pure.
 */
export function primaryHealthFrom(body: z.output<typeof healthBodySchema>): boolean {
  return Object.entries(body.checks).every(([name, c]) => {
    if (c.error === undefined || c.error === null) return true;
    if (name !== 'bootstrapped' || !Array.isArray(c.message) || c.message.length === 0) return false;
    return !c.message.includes(PRIMARY_NETWORK_ID);
  });
}

/**
 * The subnets the `bootstrapped` check lists (see HealthValue.bootstrappingSubnets):
 * none while it passes, its message's ids while it fails with a list, else
 * undefined (absent, not yet run). Pure.
 */
export function bootstrappingSubnetsFrom(checks: Readonly<Record<string, { message?: unknown; error?: unknown }>>): string[] | undefined {
  const check = checks['bootstrapped'];
  if (!check) return undefined;
  if (check.error === undefined || check.error === null) return [];
  const listed = z.array(z.string()).safeParse(check.message);
  return listed.success ? [...new Set(listed.data)].sort() : undefined;
}

/** The node's own health (see {@link primaryHealthFrom}), or undefined when the tagged report cannot be read: the rest of the source stands. */
async function primaryHealth(ctx: PollContext): Promise<boolean | undefined> {
  try {
    return primaryHealthFrom((await getHealth(ctx, `/ext/health?tag=${PRIMARY_NETWORK_ID}`)).body);
  } catch (err) {
    if (err instanceof UpstreamError) return undefined;
    throw err;
  }
}

/** GET /ext/health, /ext/health/readiness and /ext/health/liveness. */
export const healthSource = defineNodeSource<HealthValue>({
  name: 'health',
  changes: healthChanges,
  status: healthStatus,
  async poll(ctx) {
    const [health, readiness, liveness, primaryHealthy] = await Promise.all([
      getHealth(ctx, '/ext/health'),
      getHealth(ctx, '/ext/health/readiness'),
      getHealth(ctx, '/ext/health/liveness'),
      primaryHealth(ctx),
    ]);
    const value: HealthValue = { ...healthValueFrom(health, readiness, liveness), networking: chainNetworkingFrom(health.body, watchedIds(ctx)) };
    if (primaryHealthy !== undefined) value.primaryHealthy = primaryHealthy;
    const bootstrapping = bootstrappingSubnetsFrom(health.body.checks);
    if (bootstrapping !== undefined) value.bootstrappingSubnets = bootstrapping;
    return value;
  },
  collect: collectHealth,
});
