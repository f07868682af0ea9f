/**
 * The exporter next to AvalancheGo's own /ext/metrics (issue 25, point 4):
 * the example Prometheus configuration scrapes both, and a real Prometheus
 * running its two jobs against a fake node and an exporter polling it gets
 * both with the same `node` label, so one query joins them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeNode } from './fakes/fake-node.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { checkPrometheusInstalled, startPrometheus, stopProcess, waitFor, type Prometheus } from './helpers/prometheus.js';
import { ALERTS_DIR, ROOT } from './helpers/promql-contract.js';

const EXAMPLE = join(ROOT, 'examples', 'prometheus', 'prometheus.yml');
const COMPOSE = join(ROOT, 'examples', 'docker-compose.yml');

interface ScrapeConfig {
  job_name: string;
  metrics_path?: string;
  scrape_interval?: string;
  scrape_timeout?: string;
  static_configs: { targets: string[]; labels?: Record<string, string> }[];
  relabel_configs?: Record<string, unknown>[];
}
interface PromConfig {
  global?: Record<string, unknown>;
  rule_files?: string[];
  scrape_configs: ScrapeConfig[];
}

const example = (): PromConfig => parseYaml(readFileSync(EXAMPLE, 'utf8')) as PromConfig;
const job = (c: PromConfig, name: string): ScrapeConfig => {
  const j = c.scrape_configs.find((x) => x.job_name === name);
  if (!j) throw new Error(`no job ${name} in ${EXAMPLE}`);
  return j;
};

describe('AvalancheGo /ext/metrics in the example configuration', () => {
  it('has a job scraping /ext/metrics of the node the exporter polls, in the same cluster, the node label copied from the address', () => {
    const c = example();
    const ext = job(c, 'avalanchego');
    const exporter = job(c, 'avax-exporter');
    expect(ext.metrics_path).toBe('/ext/metrics');
    expect(ext.static_configs[0]?.labels?.['cluster']).toBe(exporter.static_configs[0]?.labels?.['cluster']);
    expect(ext.relabel_configs).toEqual([{ source_labels: ['__address__'], target_label: 'node' }]);
    // The compose stack's exporter polls that address, so its default node name is the same.
    const compose = readFileSync(COMPOSE, 'utf8');
    expect(compose).toContain(`--node.url=http://${ext.static_configs[0]?.targets[0] ?? ''}`);
    expect(compose).toContain('./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml');
  });

  it('promtool check config accepts it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-example-'));
    try {
      const c = example();
      c.rule_files = [join(ALERTS_DIR, 'avax-exporter.rules.yml')];
      writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(c));
      const out = execFileSync('promtool', ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      expect(out).toMatch(/SUCCESS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the fake node serves AvalancheGo's own series in its units (network/metrics.go: nanoseconds)", async () => {
    const node = await FakeNode.start();
    try {
      const res = await fetch(`${node.url}/ext/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain(`avalanche_network_peers ${node.state.peers.length}\n`);
      // The fixture's health report: timeSinceLastMsgReceived "12.04ms", sendFailRate 0.0004127.
      expect(text).toContain('avalanche_network_time_since_last_msg_received 12040000\n');
      expect(text).toContain('avalanche_network_send_fail_rate 0.0004127\n');
    } finally {
      await node.stop();
    }
  });
});

describe('a real Prometheus with the example jobs: the exporter and /ext/metrics joined on node', { timeout: 60_000 }, () => {
  let node: FakeNode | undefined;
  let exporter: TestDaemon | undefined;
  let prom: Prometheus | undefined;
  let dir = '';

  beforeAll(async () => {
    checkPrometheusInstalled();
    dir = mkdtempSync(join(tmpdir(), 'avax-exporter-ext-metrics-'));
    node = await FakeNode.start();
    // No name: the exporter names the node by its URL's host:port, as in the compose stack.
    exporter = await startTestDaemon({ nodes: [{ url: node.url }], poll: { interval: '1s', timeout: '900ms', max_age: '10s' } });
    const c = example();
    const ext = job(c, 'avalanchego');
    const mine = job(c, 'avax-exporter');
    for (const [j, target] of [
      [ext, new URL(node.url).host],
      [mine, new URL(exporter.daemon.url).host],
    ] as const) {
      j.scrape_interval = '1s';
      j.scrape_timeout = '1s';
      for (const sc of j.static_configs) sc.targets = [target];
    }
    const config: PromConfig = { global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' }, scrape_configs: [mine, ext] };
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
    prom = await startPrometheus(dir, join(dir, 'prometheus.yml'));
  }, 60_000);

  afterAll(async () => {
    if (prom) await stopProcess(prom.child);
    await exporter?.daemon.stop();
    await node?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const query = async (expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
    const res = await fetch(`${prom?.url ?? ''}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
    return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
  };

  it('both carry node="<host:port of the node>" and join on (cluster, node)', async () => {
    const host = new URL(node?.url ?? '').host;
    const joined = await waitFor(
      'the two jobs joined on node',
      async () => {
        const r = await query('avalanche_network_peers * on (cluster, node) group_left () avax_node_healthy');
        return r.length === 1 ? r : undefined;
      },
      30_000,
    );
    expect(joined[0]?.metric).toMatchObject({ node: host, cluster: 'example', job: 'avalanchego' });
    // The same figures, from the health report (seconds) and from /ext/metrics (nanoseconds).
    const diff = await query(
      'abs(avax_node_network_last_message_received_age_seconds - on (cluster, node) avalanche_network_time_since_last_msg_received / 1e9)',
    );
    expect(Number(diff[0]?.value[1])).toBeLessThan(1e-9);
    const fail = await query('avax_node_network_send_fail_ratio - on (cluster, node) avalanche_network_send_fail_rate');
    expect(Number(fail[0]?.value[1])).toBe(0);
  });
});
