import type { StateStore } from '../state/store.js';
import { sourcesByName, type SourceCatalog } from '../sources/catalog.js';
import { collectDataApiStats } from '../sources/data-api/common/stats.js';
import { collectWatchedL1Config } from '../sources/data-api/l1-validators/collect.js';
import type { ProbeService } from '../probe/probe-service.js';
import type { Sample } from '../metrics/metric-defs.js';
import { BUILD } from './build-info.js';
import type { Fleet } from './fleet.js';
import type { ConfigReloads } from './config-reload.js';
import type { RenderInput } from './render-loop.js';

/** What /metrics is made of. */
export interface DaemonRenderInputOptions {
  store: StateStore;
  /** The sources the daemon polls, by family (the Data API's registered whether or not it is on, so a reload can turn it on). */
  sources: SourceCatalog;
  fleet: Fleet;
  probe: ProbeService;
  reloads: ConfigReloads;
}

/**
 * The daemon's {@link RenderInput}: every source's series from the store
 * (the Data API's included), and the exporter's own series (Data API client
 * stats, series count, probe targets, reload outcomes, the L1 subnets and
 * validations the nodes are configured to watch).
 */
export function daemonRenderInput({ store, sources, fleet, probe, reloads }: DaemonRenderInputOptions): RenderInput {
  const sourceByName = sourcesByName(sources);
  const selfSamples = (prevSeries: number): Sample[] => {
    const { dataApi, config } = fleet;
    return [
      ...(dataApi?.network ? collectDataApiStats(dataApi.network, dataApi.client.stats) : []),
      { name: 'avax_exporter_series', labels: {}, value: prevSeries },
      // From the configuration, for the rule on L1 validations nobody watches.
      ...collectWatchedL1Config(fleet.nodes.map((n) => n.watch)),
      { name: 'avax_exporter_probe_targets', labels: {}, value: probe.size },
      { name: 'avax_exporter_poll_deadline_extensions_total', labels: {}, value: store.deadlineExtensions },
      { name: 'avax_exporter_config_last_reload_successful', labels: {}, value: reloads.lastOk ? 1 : 0 },
      { name: 'avax_exporter_config_last_reload_success_timestamp_seconds', labels: {}, value: reloads.lastSuccessMs / 1000 },
      ...(config.web.configFile ? [{ name: 'avax_exporter_web_config_last_reload_successful' as const, labels: {}, value: reloads.webConfigOk ? 1 : 0 }] : []),
    ];
  };
  return {
    nodeRounds: () => fleet.nodeRounds(),
    expire: (nowMs) => store.expire(nowMs, fleet.config.poll.maxAgeMs, fleet.maxAgeByNode, fleet.minIntervals),
    assemble: ({ nowMs, ready, prevSeries }, assembler) =>
      assembler.assemble({
        states: store.all(),
        sources: sourceByName,
        nowMs,
        maxAgeMs: fleet.config.poll.maxAgeMs,
        maxAgeByNode: fleet.maxAgeByNode,
        extraMaxAgeBySource: fleet.minIntervals,
        build: BUILD,
        ready,
        extra: selfSamples(prevSeries),
      }),
  };
}
