/**
 * A real L1 (issue 41, points 2 to 5): the local network of test/helpers/local-network.ts started with `{ l1: true }`,
 * so that it also has a subnet with one chain running AvalancheGo's example VM xsvm, converted to an L1
 * (ConvertSubnetToL1Tx, test/avalanchego/localnet/l1.go) with three validators of its own that validate nothing on
 * the primary network: `main` (weight 60, started with --partial-sync-primary-network as L1 validators usually
 * are), `second` (40) and `short` (5, 240 nAVAX of balance: four minutes of the continuous fee at the local network's
 * 1 nAVAX/s). Why xsvm and not Subnet-EVM: test/avalanchego/go.mod.
 *
 * 1. The fake's L1 answers against the real L1's: its validators and their balances on the P-Chain, a validation
 *    looked up by id, the chain's status, its health check with and without the subnet's tag.
 * 2. The exporter, watching the subnet from `main` as its operator would: every source up, and its series agree with
 *    the node's own answers (weights, balances, the fee price, the chain's health and status, its height moving).
 * 3. The shipped rules in a real Prometheus over three exporters (`main`, `short`, and a primary-network validator
 *    watching the subnet): `main` and the primary validator stay silent while `short`'s balance runs out, and
 *    `short` pages, first for its runway and balance, then as inactive once the P-Chain has deactivated it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFakeState } from '../../src/demo/fixture-world.js';
import { partialSyncMode } from '../../src/demo/modes.js';
import { FIXTURE_IDS } from '../fakes/fake-data.js';
import { FakeNode } from '../fakes/fake-node.js';
import { AlertRecord } from '../helpers/alert-record.js';
import { ask, expectSameAnswer, type Question } from '../helpers/conformance.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp, type TestDaemon } from '../helpers/daemon.js';
import { FACTOR, LIVE_POLL, MIN_RANGE_MS } from '../helpers/detection-rows.js';
import { useLocalNetwork, type L1Validator, type LocalL1, type LocalNode } from '../helpers/local-network.js';
import { checkPrometheusInstalled, startPrometheus, stopProcess, waitFor, type Prometheus } from '../helpers/prometheus.js';
import { ALERTS_DIR, ROOT } from '../helpers/promql-contract.js';
import { KNOWN_DEFECTS, REAL_L1_ROWS } from '../helpers/real-incident-rows.js';
import { scaleRulesText } from '../helpers/scale-rules.js';

const network = useLocalNetwork('l1', { l1: true });

const l1 = (): LocalL1 => {
  const l = network().l1;
  if (!l) throw new Error('the network has no L1');
  return l;
};
const validator = (name: L1Validator['name']): L1Validator => l1().validators.find((v) => v.name === name) as L1Validator;

interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string };
}

/** The result of one JSON-RPC call to a real node; fails on an error answer. */
async function call<T>(node: LocalNode, path: string, method: string, params: unknown = {}): Promise<T> {
  const res = await fetch(node.uri + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const a = (await res.json()) as RpcAnswer<T>;
  if (a.result === undefined) throw new Error(`${method} on ${node.uri}: ${JSON.stringify(a.error)}`);
  return a.result;
}

interface L1Entry {
  nodeID: string;
  weight: string;
  validationID: string;
  balance: string;
}
const l1ValidatorsOf = async (node: LocalNode) =>
  (await call<{ validators: L1Entry[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: l1().subnetId })).validators;

describe('the fake L1 answers as the real one does', () => {
  let fake: FakeNode;
  beforeAll(async () => {
    // main's setup in the fixture world: an L1 validator syncing only the P-Chain of the primary network.
    fake = await FakeNode.start({ state: partialSyncMode(defaultFakeState()) });
  });
  afterAll(async () => {
    await fake.stop();
  });

  /** Questions asked of the real `main` and of the fake (the fixture world's node validates its L1 too). */
  const questions = (): (Question & { real: unknown })[] => {
    const S = l1().subnetId;
    const C = l1().blockchainId;
    const post = (path: string, rpcMethod: string, real: unknown, fakeParams: unknown, name = rpcMethod): Question & { real: unknown } => ({
      name,
      role: 'l1-validator',
      httpMethod: 'POST',
      path,
      rpcMethod,
      real,
      fakeParams,
    });
    const get = (path: string, fakePath: string, name: string): Question & { real: unknown } => ({
      name,
      role: 'l1-validator',
      httpMethod: 'GET',
      path,
      fakePath,
      real: undefined,
    });
    return [
      post(
        '/ext/bc/P',
        'platform.getCurrentValidators',
        { subnetID: S },
        { subnetID: FIXTURE_IDS.l1SubnetId },
        "platform.getCurrentValidators of the L1: its validators' balances and owners",
      ),
      post('/ext/bc/P', 'platform.getL1Validator', { validationID: validator('main').validationId }, { validationID: FIXTURE_IDS.l1ValidationId }),
      post(
        '/ext/P',
        'platform.getBlockchainStatus',
        { blockchainID: C },
        { blockchainID: FIXTURE_IDS.l1ChainId },
        "platform.getBlockchainStatus of the L1's chain",
      ),
      post('/ext/bc/P', 'platform.getValidatorFeeState', {}, {}),
      get('/ext/health', '/ext/health', "GET /ext/health: the L1 chain's check beside the primary network's"),
      get(`/ext/health?tag=${S}`, `/ext/health?tag=${FIXTURE_IDS.l1SubnetId}`, "GET /ext/health?tag=<the L1's subnet id>"),
    ];
  };

  // The list is built from the network, which exists only once the file's beforeAll has run: one test per question.
  for (const i of [0, 1, 2, 3, 4, 5]) {
    it(`question ${i + 1} of 6 asked of the real L1 validator and the fake`, async () => {
      const q = questions()[i] as Question & { real: unknown };
      const real = await ask(validator('main').node.uri, q, q.real);
      const answer = await ask(fake.url, { ...q, path: q.fakePath ?? q.path }, q.fakeParams);
      expectSameAnswer(q, real, answer);
    });
  }

  it("a primary-network validator that does not track the subnet reads the L1's chain as Created", async () => {
    const r = await call<{ status: string }>(network().validators[0] as LocalNode, '/ext/P', 'platform.getBlockchainStatus', {
      blockchainID: l1().blockchainId,
    });
    expect(r.status).toBe('Created');
  });

  it("xsvm serves no validators API: the chain's /validators route is a plain 404, which the exporter reads as no uptimes to export", async () => {
    const q: Question = {
      name: 'validators',
      role: 'l1-validator',
      httpMethod: 'POST',
      path: `/ext/bc/${l1().blockchainId}/validators`,
      rpcMethod: 'validators.getCurrentValidators',
    };
    const real = await ask(validator('main').node.uri, q, { nodeIDs: [] });
    expect([real.status, real.text.trim()]).toEqual([404, '404 page not found']);
  });
});

describe('the exporter watching the L1 from its main validator', () => {
  let exporter: TestDaemon;
  beforeAll(async () => {
    const main = validator('main').node;
    exporter = await startTestDaemon({ nodes: [{ name: 'l1-main', url: main.uri, watch: { subnet_ids: [l1().subnetId] } }], poll: LIVE_POLL });
    await waitUntilAllUp(exporter.daemon, 30_000);
  }, 60_000);
  afterAll(async () => {
    await exporter.daemon.stop();
  });

  it('polls every source, the L1 ones included, and every one is up', async () => {
    const text = await scrape(exporter.daemon);
    const up = seriesOf(text, 'avax_source_up');
    expect(up.filter((s) => s.value !== 1)).toEqual([]);
    for (const source of ['validators', 'l1_health', 'l1_uptime', 'blockchain_status']) expect(up.map((s) => s.labels['source'])).toContain(source);
  });

  it('exports every validator of the L1 with the weight and balance the P-Chain gives, and the fee price', async () => {
    const S = l1().subnetId;
    await eventually(
      async () => {
        const [entries, fee, text] = await Promise.all([
          l1ValidatorsOf(validator('main').node),
          call<{ price: number }>(validator('main').node, '/ext/bc/P', 'platform.getValidatorFeeState'),
          scrape(exporter.daemon),
        ]);
        const byLabel = (metric: string, label: string) =>
          new Map(seriesOf(text, metric, { subnet: S }).map((s): [string, number] => [s.labels[label] ?? '', s.value]));
        const weights = byLabel('avax_validator_weight', 'node_id');
        const balances = byLabel('avax_l1_validator_balance_avax', 'validation_id');
        return (
          weights.size === entries.length &&
          entries.every((e) => weights.get(e.nodeID) === Number(e.weight) && balances.get(e.validationID) === Number(e.balance) / 1e9) &&
          valueOf(text, 'avax_l1_validator_fee_price_avax_per_second') === fee.price / 1e9
        );
      },
      30_000,
      500,
    );
    // And the node's own L1 weights are the ones the conversion gave.
    const entries = await l1ValidatorsOf(validator('main').node);
    expect(Object.fromEntries(entries.map((e) => [e.nodeID, Number(e.weight)]))).toEqual(Object.fromEntries(l1().validators.map((v) => [v.nodeId, v.weight])));
  });

  it("exports the L1 chain's health check as passing and its status as Validating, and no uptimes (xsvm has no validators API)", async () => {
    const C = l1().blockchainId;
    const text = await scrape(exporter.daemon);
    expect(valueOf(text, 'avax_l1_chain_healthy', { chain: C })).toBe(1);
    expect(valueOf(text, 'avax_l1_chain_failed_to_start', { chain: C })).toBe(0);
    expect(valueOf(text, 'avax_node_blockchain_status', { chain: C, status: 'Validating' })).toBe(1);
    expect(seriesOf(text, 'avax_l1_validator_uptime_ratio')).toEqual([]);
  });

  it("the L1 chain's height moves when a transfer is accepted, as its health check reports it", async () => {
    const C = l1().blockchainId;
    const before = valueOf(await scrape(exporter.daemon), 'avax_node_chain_last_accepted_height', { chain: C });
    expect(before).toBeTypeOf('number');
    await network().transferOnL1();
    await eventually(
      async () => (valueOf(await scrape(exporter.daemon), 'avax_node_chain_last_accepted_height', { chain: C }) ?? 0) > (before ?? 0),
      30_000,
      500,
    );
  });
});

describe('an L1 validator whose balance runs out, the shipped rules in a real Prometheus', { timeout: 420_000 }, () => {
  type Cluster = 'real-l1-main' | 'real-l1-short' | 'real-l1-primary-watcher';
  const exporters = new Map<Cluster, TestDaemon>();
  let prom: Prometheus | undefined;
  let record: AlertRecord | undefined;
  let dir = '';
  const known = (cluster: string, alert: string) =>
    KNOWN_DEFECTS.some((k) => k.alert.test(alert) && (!k.clusters || (k.clusters as readonly string[]).includes(cluster)));

  beforeAll(async () => {
    checkPrometheusInstalled();
    const targets: [Cluster, LocalNode][] = [
      ['real-l1-main', validator('main').node],
      ['real-l1-short', validator('short').node],
      // A node of the primary network watching the L1 it does not validate (an operator's RPC node, say).
      ['real-l1-primary-watcher', network().validators[0] as LocalNode],
    ];
    for (const [cluster, node] of targets)
      exporters.set(cluster, await startTestDaemon({ nodes: [{ name: cluster, url: node.uri, watch: { subnet_ids: [l1().subnetId] } }], poll: LIVE_POLL }));
    dir = mkdtempSync(join(tmpdir(), 'avax-exporter-real-l1-'));
    writeFileSync(
      join(dir, 'rules.yml'),
      scaleRulesText(readFileSync(join(ALERTS_DIR, 'avax-exporter.rules.yml'), 'utf8'), { factor: FACTOR, minRangeMs: MIN_RANGE_MS }),
    );
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yml')],
      scrape_configs: [
        {
          job_name: 'avax-exporter',
          static_configs: targets.map(([cluster]) => ({ targets: [new URL((exporters.get(cluster) as TestDaemon).daemon.url).host], labels: { cluster } })),
        },
      ],
    };
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
    prom = await startPrometheus(dir, join(dir, 'prometheus.yml'));
    for (const e of exporters.values()) await waitUntilAllUp(e.daemon, 30_000);
    record = new AlertRecord(prom);
    record.start();
  }, 120_000);

  afterAll(async () => {
    record?.stop();
    if (prom) await stopProcess(prom.child);
    for (const e of exporters.values()) await e.daemon.stop();
    if (record) {
      mkdirSync(join(ROOT, '.tmp'), { recursive: true });
      writeFileSync(join(ROOT, '.tmp', 'real-l1-incidents.json'), `${JSON.stringify(record.toJSON(), null, 2)}\n`);
      console.log(`alerts raised on the real L1, by cluster and phase:\n${JSON.stringify(record.toJSON(), null, 2)}`);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const rec = () => record as AlertRecord;

  it('runs every row of REAL_L1_ROWS (test/helpers/real-incident-rows.ts), and only those', () => {
    expect([...exporters.keys()].sort()).toEqual(REAL_L1_ROWS.map((r) => r.cluster).sort());
  });

  it('while its balance lasts minutes: short pages for its runway; main and the primary-network watcher stay silent', async () => {
    rec().phase = 'l1: balance running out';
    await rec().waitRaised('real-l1-short', 'AvaxL1ValidatorRunwayLow', true, 120_000);
    const firing = (await rec().of('real-l1-short')).filter((a) => a.state === 'firing').map((a) => `${a.labels['alertname']}{${a.labels['severity']}}`);
    expect(firing).toContain('AvaxL1ValidatorRunwayLow{critical}');
    for (const c of ['real-l1-main', 'real-l1-primary-watcher']) expect(rec().loud(c, 'l1: balance running out', known), c).toEqual([]);
  });

  it('once the P-Chain has deactivated it: short pages as inactive, the others stay silent', async () => {
    const short = validator('short');
    // The P-Chain builds a block by itself at the time the balance is used up and deactivates the validator in it
    // (vms/platformvm/state/chain_time_helpers.go getNextL1ValidatorEvictionTime): no transaction is needed.
    await waitFor(
      'the short validator deactivated (balance 0)',
      async () => ((await l1ValidatorsOf(validator('main').node)).find((x) => x.nodeID === short.nodeId)?.balance === '0' ? true : undefined),
      330_000,
      2_000,
    );
    rec().phase = 'l1: inactive';
    await rec().waitRaised('real-l1-short', 'AvaxL1ValidatorInactive', true, 60_000);
    const text = await scrape((exporters.get('real-l1-short') as TestDaemon).daemon);
    expect(valueOf(text, 'avax_validator_active', { node_id: short.nodeId, subnet: l1().subnetId })).toBe(0);
    for (const c of ['real-l1-main', 'real-l1-primary-watcher']) expect(rec().loud(c, 'l1: inactive', known), c).toEqual([]);
  });
});
