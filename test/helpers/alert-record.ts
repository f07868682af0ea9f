/**
 * What a real Prometheus raised, second by second, by cluster and phase: the record the real-network incident
 * files (test/real-network/incidents.test.ts, test/real-network/l1.test.ts) assert on and print.
 *
 * @packageDocumentation
 */
import type { Prometheus } from './prometheus.js';
import { waitFor } from './prometheus.js';

/** An alert as Prometheus's /api/v1/alerts lists it. */
export interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

/** An alert as recorded: `name{severity} state`. */
const label = (a: Alert) => `${a.labels['alertname']}{${a.labels['severity'] ?? ''}} ${a.state}`;

/** The alerts Prometheus has pending or firing, polled every second into phases the test names. */
export class AlertRecord {
  /** The phase the alerts seen now are recorded under. */
  phase = 'starting';
  private readonly byCluster = new Map<string, Map<string, Set<string>>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly prom: Prometheus) {}

  /** Starts recording every second. */
  start(): void {
    this.timer = setInterval(() => void this.recordOnce(), 1_000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Every alert pending or firing now. */
  async active(): Promise<Alert[]> {
    const res = await fetch(`${this.prom.url}/api/v1/alerts`, { signal: AbortSignal.timeout(5_000) });
    return ((await res.json()) as { data: { alerts: Alert[] } }).data.alerts;
  }

  /** The alerts of one cluster pending or firing now. */
  async of(cluster: string): Promise<Alert[]> {
    return (await this.active()).filter((a) => a.labels['cluster'] === cluster);
  }

  /** Waits until `alertname` is raised (pending or firing; only firing when `firing`) in the cluster. */
  async waitRaised(cluster: string, alertname: string, firing: boolean, timeoutMs: number): Promise<void> {
    await waitFor(
      `${alertname} ${firing ? 'firing' : 'raised'} in ${cluster}`,
      async () => ((await this.of(cluster)).some((a) => a.labels['alertname'] === alertname && (!firing || a.state === 'firing')) ? true : undefined),
      timeoutMs,
      500,
    );
  }

  /** What a cluster raised in a phase, sorted. */
  seen(cluster: string, phase: string): string[] {
    return [...(this.byCluster.get(cluster)?.get(phase) ?? [])].sort();
  }

  /** The critical and warning alerts a cluster raised in a phase, but those `excused`. */
  loud(cluster: string, phase: string, excused: (cluster: string, alert: string) => boolean = () => false): string[] {
    return this.seen(cluster, phase).filter((s) => /\{(critical|warning)\}/.test(s) && !excused(cluster, s));
  }

  /** cluster → phase → alerts, for the printed record. */
  toJSON(): Record<string, Record<string, string[]>> {
    const out: Record<string, Record<string, string[]>> = {};
    for (const [c, byPhase] of this.byCluster) out[c] = Object.fromEntries([...byPhase].map(([p, s]) => [p, [...s].sort()]));
    return out;
  }

  private async recordOnce(): Promise<void> {
    for (const a of await this.active().catch(() => [] as Alert[])) {
      const c = a.labels['cluster'] ?? '(none)';
      let byPhase = this.byCluster.get(c);
      if (!byPhase) this.byCluster.set(c, (byPhase = new Map<string, Set<string>>()));
      let s = byPhase.get(this.phase);
      if (!s) byPhase.set(this.phase, (s = new Set()));
      s.add(label(a));
    }
  }
}
