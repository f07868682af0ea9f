import { redactConfig, redactUrl } from '../config/load.js';
import type { StateStore } from '../state/store.js';
import { DATA_API_POLLER_NAME } from './data-api-poller.js';
import { BUILD } from './build-info.js';
import { writeDuration } from '../config/duration.js';
import type { Fleet } from './fleet.js';
import type { AnySource } from '../sources/source.js';

/** What the status views read. */
export interface StatusViewOptions {
  fleet: Fleet;
  store: StateStore;
  ready: () => boolean;
  lastReloadOk: () => boolean;
  /** Every source by name, for the status page's sections. */
  sources: ReadonlyMap<string, AnySource>;
}

/**
 * The `/-/status` body: version, readiness, the running configuration (secrets redacted), the Data API's
 * rounds as planned against its rate limit (once it has planned one), and each source's state.
 */
export function statusBody({ fleet, store, ready, lastReloadOk }: StatusViewOptions): unknown {
  const plan = fleet.dataApi?.plan;
  return {
    version: BUILD.version,
    ready: ready(),
    config: redactConfig(fleet.config),
    last_reload_successful: lastReloadOk(),
    ...(plan
      ? {
          data_api_rounds: {
            interval: writeDuration(plan.intervalMs),
            watched_node_ids: plan.asked.nodeIds,
            requests_needed: plan.need,
            requests_allowed_at_configured_interval: plan.capacity,
          },
        }
      : {}),
    sources: store.all().map((st) => ({
      node: st.node,
      source: st.source,
      up: st.up ?? null,
      last_success: st.lastSuccessMs === undefined ? null : new Date(st.lastSuccessMs).toISOString(),
      last_error: st.lastError ? { reason: st.lastError.reason, message: st.lastError.message, at: new Date(st.lastError.atMs).toISOString() } : null,
    })),
  };
}

/**
 * The landing page: every polled target (URLs redacted) and its sources' state, refreshing once per poll round.
 * Its renderer loads when someone first opens the page: a daemon only ever scraped does not hold it.
 */
export async function landingPage({ fleet, store, ready, sources }: StatusViewOptions): Promise<string> {
  const { renderLanding } = await import('../server/landing.js');
  const { config, dataApi } = fleet;
  return renderLanding({
    telemetryPath: config.web.telemetryPath,
    version: BUILD.version,
    ready: ready(),
    nodes: [
      ...fleet.nodes.map((n) => ({ name: n.name, url: redactUrl(n.url) })),
      ...(dataApi ? [{ name: DATA_API_POLLER_NAME, url: redactUrl(fleet.dataApiUrl) }] : []),
    ],
    states: store.all(),
    nowMs: Date.now(),
    // The status view updates itself once per poll round.
    refreshSeconds: config.poll.intervalMs / 1000,
    sources,
  });
}
