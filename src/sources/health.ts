import { z } from 'zod';
import { UpstreamError } from '../http/errors.js';
import { parseJsonBody, rejectHttpStatus } from '../http/json-rpc.js';
import { describeIssues, finiteNumber } from '../http/wire.js';
import { defineSource, type PollContext } from './source.js';
import { collectHealth } from '../collectors/health.js';

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

/** One health check as exported. */
export interface HealthCheck {
  name: string;
  passing: boolean;
  contiguousFailures: number;
  /** Unix seconds of the first failure, only while failing. */
  failingSince: number | undefined;
}

/** What the health source reports. */
export interface HealthValue {
  healthy: boolean;
  ready: boolean;
  live: boolean;
  checks: HealthCheck[];
}

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
  return { healthy: health.ok, ready: readiness.ok, live: liveness.ok, checks };
}

/** GET /ext/health, /ext/health/readiness and /ext/health/liveness. */
export const healthSource = defineSource<HealthValue>({
  name: 'health',
  async poll(ctx) {
    const [health, readiness, liveness] = await Promise.all([
      getHealth(ctx, '/ext/health'),
      getHealth(ctx, '/ext/health/readiness'),
      getHealth(ctx, '/ext/health/liveness'),
    ]);
    return healthValueFrom(health, readiness, liveness);
  },
  collect: collectHealth,
});
