import type { Config, NodeConfig } from '../config/load.js';
import type { Logger } from '../log.js';

/** What `--demo` runs beside the daemon: fake nodes to poll and, when the Data API is on without a URL, a fake Data API. */
export interface DemoUpstreams {
  /** The demo nodes, polled after the configured ones (none without `--demo`). */
  readonly nodes: readonly NodeConfig[];
  /** The demo Data API's URL, when one runs. */
  readonly dataApiUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the demo's fake upstreams when the configuration asks for the demo
 * (else nothing): the demo nodes, then the demo Data API if the Data API is
 * on and no URL is configured. Logs what it started.
 */
export async function startDemoUpstreams(config: Config, logger: Logger): Promise<DemoUpstreams> {
  if (!config.demo) return { nodes: [], dataApiUrl: undefined, stop: async () => {} };
  // The fakes load only for the demo: a deployment without it does not hold their code (~1 MB).
  const [{ startDemo }, { startDemoDataApi }] = await Promise.all([import('../demo/fleet.js'), import('../demo/data-api.js')]);
  const demo = await startDemo();
  logger.info({ nodes: demo.nodes.map((n) => ({ name: n.name, url: n.url })) }, 'demo nodes started');
  let dataApi: Awaited<ReturnType<typeof startDemoDataApi>> | undefined;
  if (config.dataApi.enabled && config.dataApi.url === undefined) {
    dataApi = await startDemoDataApi(demo.primary);
    logger.info({ url: dataApi.url }, 'demo Data API started');
  }
  return {
    nodes: demo.nodes,
    dataApiUrl: dataApi?.url,
    async stop() {
      await dataApi?.stop();
      await demo.stop();
    },
  };
}
