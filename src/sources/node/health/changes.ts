import type { ValueChange } from '../../source.js';
import type { HealthValue } from './value.js';

/** A node turning unhealthy (with its failing checks) or healthy again: one log line each. Pure. */
export function healthChanges(prev: HealthValue | undefined, next: HealthValue): ValueChange[] {
  if (prev === undefined || prev.healthy === next.healthy) return [];
  if (next.healthy) return [{ kind: 'node_healthy', level: 'info', message: 'node healthy', detail: {} }];
  const failing = next.checks.filter((c) => !c.passing).map((c) => c.name);
  return [{ kind: 'node_unhealthy', level: 'warn', message: 'node unhealthy', detail: { failing_checks: failing.join(',') } }];
}
