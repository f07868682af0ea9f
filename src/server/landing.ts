import type { SourceState } from '../state/store.js';
import type { StatusPageInput } from './status-page.js';
import { escapeHtml } from '../status/html.js';
import { nodeAnchor, renderFleetSummary, renderNodeStatus, statusPageHead } from './status-page.js';

export { escapeHtml };

/** What the landing page shows. */
export interface LandingInput {
  telemetryPath: string;
  version: string;
  ready: boolean;
  nodes: { name: string; url: string }[];
  states: readonly SourceState[];
  nowMs: number;
  /** Seconds between two live updates of the page: the poll interval (default 15). */
  refreshSeconds?: number;
  /** The source definitions whose status sections render (default: every product source). */
  sources?: StatusPageInput['sources'];
}

function ago(ms: number | undefined, now: number): string {
  if (ms === undefined) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  return `${new Date(ms).toISOString()} (${s}s ago)`;
}

/** The landing page: links to the endpoints, the fleet's status (see status-page.ts) and each node's sources with their last success and last error. */
export function renderLanding(input: LandingInput): string {
  const rows = input.nodes
    .map((n) => {
      const states = input.states.filter((s) => s.node === n.name);
      const sourceRows = states
        .map((s) => {
          const status = s.up === undefined ? 'pending' : s.up ? 'up' : 'down';
          const err = s.lastError ? `${escapeHtml(s.lastError.reason)}: ${escapeHtml(s.lastError.message)} (${ago(s.lastError.atMs, input.nowMs)})` : '';
          return `<tr class="${status}"><td>${escapeHtml(s.source)}</td><td>${status}</td><td>${ago(s.lastSuccessMs, input.nowMs)}</td><td>${err}</td></tr>`;
        })
        .join('\n');
      return `<h2 id="${nodeAnchor(n.name)}">${escapeHtml(n.name)} <small>${escapeHtml(n.url)}</small></h2>
${renderNodeStatus(n.name, input)}
<h3>Sources</h3>
<table><thead><tr><th>source</th><th>status</th><th>last success</th><th>last error</th></tr></thead><tbody>
${sourceRows || '<tr><td colspan="4">not polled yet</td></tr>'}
</tbody></table>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>avax-exporter</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}tr.up td:nth-child(2){color:#1a7f37}tr.down td:nth-child(2){color:#cf222e;font-weight:bold}tr.pending td:nth-child(2){color:#9a6700}small{color:#666;font-weight:normal}</style>
${statusPageHead(input)}
</head><body>
<h1>avax-exporter <small>${escapeHtml(input.version)}</small></h1>
<p><a href="${escapeHtml(input.telemetryPath)}">Metrics</a> · <a href="/-/healthy">Healthy</a> · <a href="/-/ready">Ready</a> (${input.ready ? 'ready' : 'waiting for the first poll round'}) · <a href="/probe">Probe</a> <small>/probe?target=&lt;node name or URL&gt;: one node, for Prometheus to scrape each node as a target (see docs/probe-and-sharding.md)</small></p>
${renderFleetSummary(input)}
${rows}
</body></html>
`;
}
