/**
 * The fake node's `/ext/metrics`: a few of the series AvalancheGo's own
 * Prometheus endpoint serves (node/node.go initMetricsAPI: the gatherer of
 * every registry, namespaced `avalanche_`), computed from the fake's state,
 * enough to show the exporter and `/ext/metrics` side by side in one
 * Prometheus (examples/prometheus/prometheus.yml). Unlike the health report,
 * network/metrics.go sets its durations as float64(time.Duration):
 * nanoseconds.
 */
import type { FakeNodeState } from './node-state.js';

const GO_UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };

/** Nanoseconds of a Go duration string (`12.04ms`, `5m0s`); undefined for anything else. */
function goNanos(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  let ns = 0;
  for (let rest = raw; rest.length > 0;) {
    const m = /^(\d+(?:\.\d*)?)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m) return undefined;
    ns += Number(m[1]) * (GO_UNITS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return Math.round(ns);
}

/** The `/ext/metrics` text exposition of the fake node. Pure. */
export function extMetricsText(state: FakeNodeState): string {
  const net = (state.health['network']?.message ?? {}) as Record<string, unknown>;
  const gauges: [string, string, number | undefined][] = [
    ['avalanche_network_peers', 'Number of network peers', state.peers.length],
    ['avalanche_network_send_fail_rate', 'Portion of messages that recently failed to be sent over the network', net['sendFailRate'] as number | undefined],
    ['avalanche_network_time_since_last_msg_received', 'Time (in ns) since the last msg was received', goNanos(net['timeSinceLastMsgReceived'])],
    ['avalanche_network_time_since_last_msg_sent', 'Time (in ns) since the last msg was sent', goNanos(net['timeSinceLastMsgSent'])],
  ];
  return gauges
    .filter(([, , v]) => typeof v === 'number' && Number.isFinite(v))
    .map(([name, help, v]) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${String(v)}\n`)
    .join('');
}
