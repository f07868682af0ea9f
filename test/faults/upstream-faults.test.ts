import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeNode, type Fault } from '../fakes/fake-node.js';
import { generatePeers } from '../fakes/fake-data.js';
import type { FailureReason } from '../../src/http/errors.js';
import type { Daemon } from '../../src/daemon.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf, waitUntilAllUp, type LogCapture } from '../helpers/daemon.js';
import { testHandle } from '../../src/daemon.js';

/**
 * The fault table. One exporter polls one fake node per fault plus a healthy
 * control node, as a real exporter watching a fleet would; every fault is
 * injected at once, then removed. For each: the daemon keeps serving /metrics,
 * the right source goes down with the right reason, its series are gone once
 * past the max age, exactly one log line marks each transition, the control
 * node is untouched, and everything recovers.
 */
interface FaultCase {
  name: string;
  /** The source that must go down. */
  source: string;
  reason: FailureReason;
  /** A series the source produces while healthy (checked gone after the max age, back after recovery). */
  probe: { metric: string; labels?: Record<string, string> };
  inject: (node: FakeNode) => void | Promise<void>;
  clear: (node: FakeNode) => void | Promise<void>;
}

const fault = (target: string, f: Fault) => ({
  inject: (n: FakeNode) => n.setFault(target, f),
  clear: (n: FakeNode) => n.setFault(target, undefined),
});
const height = { metric: 'avax_chain_height', labels: { chain: 'P' } };
const peers = { metric: 'avax_node_peers' };
const uptime = { metric: 'avax_node_is_validator' };
const badHeight = (json: string) => fault('platform.getHeight', { kind: 'result', json });

const CASES: FaultCase[] = [
  { name: 'refused', source: 'peers', reason: 'connect', probe: peers, inject: (n) => n.stop(), clear: (n) => n.restart() },
  { name: 'reset', source: 'peers', reason: 'connect', probe: peers, ...fault('info.peers', { kind: 'reset' }) },
  { name: 'hang', source: 'peers', reason: 'timeout', probe: peers, ...fault('info.peers', { kind: 'hang' }) },
  { name: 'trickle', source: 'peers', reason: 'timeout', probe: peers, ...fault('info.peers', { kind: 'trickle', bytesPerSecond: 1 }) },
  { name: 'http-500', source: 'p_chain', reason: 'http_status', probe: height, ...fault('platform.getHeight', { kind: 'status', status: 500 }) },
  { name: 'http-502', source: 'p_chain', reason: 'http_status', probe: height, ...fault('platform.getHeight', { kind: 'status', status: 502 }) },
  { name: 'http-503', source: 'p_chain', reason: 'http_status', probe: height, ...fault('platform.getHeight', { kind: 'status', status: 503 }) },
  {
    name: '429-retry-after',
    source: 'peers',
    reason: 'rate_limited',
    probe: peers,
    ...fault('info.peers', { kind: 'status', status: 429, headers: { 'Retry-After': '30' } }),
  },
  { name: '429-bare', source: 'peers', reason: 'rate_limited', probe: peers, ...fault('info.peers', { kind: 'status', status: 429 }) },
  {
    name: 'not-json',
    source: 'uptime',
    reason: 'invalid_response',
    probe: uptime,
    ...fault('info.uptime', { kind: 'body', body: '<html><body>502 Bad Gateway</body></html>' }),
  },
  {
    name: 'truncated-json',
    source: 'uptime',
    reason: 'invalid_response',
    probe: uptime,
    ...fault('info.uptime', { kind: 'body', body: '{"jsonrpc":"2.0","result":{"rewardingStakePercentage":"100.0' }),
  },
  { name: 'wrong-shape', source: 'uptime', reason: 'invalid_response', probe: uptime, ...fault('info.uptime', { kind: 'result', json: '{"uptime":[1,2,3]}' }) },
  { name: 'number-nan', source: 'p_chain', reason: 'invalid_response', probe: height, ...badHeight('{"height":"NaN"}') },
  { name: 'number-empty', source: 'p_chain', reason: 'invalid_response', probe: height, ...badHeight('{"height":""}') },
  { name: 'number-negative', source: 'p_chain', reason: 'invalid_response', probe: height, ...badHeight('{"height":"-5"}') },
  { name: 'number-40-digits', source: 'p_chain', reason: 'invalid_response', probe: height, ...badHeight(`{"height":"${'9'.repeat(40)}"}`) },
  { name: 'number-bare', source: 'p_chain', reason: 'invalid_response', probe: height, ...badHeight('{"height":1e400}') },
  {
    name: 'rpc-error',
    source: 'peers',
    reason: 'rpc_error',
    probe: peers,
    ...fault('info.peers', { kind: 'rpc-error', code: -32000, message: 'peers are busy' }),
  },
  {
    name: 'result-and-error',
    source: 'peers',
    reason: 'invalid_response',
    probe: peers,
    ...fault('info.peers', { kind: 'result', json: '{"numPeers":"0","peers":[]}', withError: true }),
  },
  {
    name: 'oversized',
    source: 'peers',
    reason: 'invalid_response',
    probe: peers,
    inject: (n) => {
      n.state.peers = generatePeers(400, 7);
    },
    clear: (n) => {
      n.state.peers = n.state.peers.slice(0, 3);
    },
  },
  {
    name: 'network-switch',
    source: 'info',
    reason: 'network_mismatch',
    probe: { metric: 'avax_node_info' },
    inject: (n) => {
      n.state.networkId = 5;
    },
    clear: (n) => {
      n.state.networkId = 1;
    },
  },
];

/** Data series of a node (self-metrics excluded: their counters and durations move every round). */
function dataSeries(text: string, node: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.includes(`node="${node}"`) && !l.startsWith('avax_source_'))
    .sort();
}

describe('fault table', () => {
  const nodes = new Map<string, FakeNode>();
  let control: FakeNode;
  let daemon: Daemon;
  let logs: LogCapture;

  beforeAll(async () => {
    control = await FakeNode.start();
    for (const c of CASES) nodes.set(c.name, await FakeNode.start());
    ({ daemon, logs } = await startTestDaemon(
      {
        nodes: [{ name: 'control', url: control.url }, ...CASES.map((c) => ({ name: c.name, url: nodes.get(c.name)?.url }))],
        // Generous: on a busy CI machine a short deadline turns a refused connection into a timeout.
        poll: { interval: '2s', timeout: '1500ms', max_age: '5s' },
      },
      // Small enough that 400 peers (~100 KB) exceed it, large enough for every normal answer.
      { maxResponseBytes: 32 * 1024 },
    ));
    await waitUntilAllUp(daemon, 20_000);
  });

  afterAll(async () => {
    await daemon?.stop();
    await control?.stop();
    for (const n of nodes.values()) await n.stop();
  });

  it('every fault: source down with its reason, series gone after the max age, control untouched, one log line each way, full recovery', async () => {
    const before = await scrape(daemon);
    const controlBefore = dataSeries(before, 'control');
    expect(controlBefore.length).toBeGreaterThan(20);
    for (const c of CASES) expect(seriesOf(before, c.probe.metric, { node: c.name, ...c.probe.labels }), c.name).toHaveLength(1);

    const injectedAt = logs.lines.length;
    for (const c of CASES) await c.inject(nodes.get(c.name) as FakeNode);

    // Each faulty source goes down with the right reason counted, while /metrics keeps answering 200.
    await eventually(
      async () => {
        const text = await scrape(daemon);
        return CASES.every((c) => valueOf(text, 'avax_source_up', { node: c.name, source: c.source }) === 0);
      },
      15_000,
      200,
    );
    await eventually(
      async () => {
        const text = await scrape(daemon);
        return CASES.every((c) => (valueOf(text, 'avax_source_poll_failures_total', { node: c.name, source: c.source, reason: c.reason }) ?? 0) >= 1);
      },
      15_000,
      200,
    );
    const down = await scrape(daemon);
    for (const c of CASES) {
      expect(valueOf(down, 'avax_source_poll_failures_total', { node: c.name, source: c.source, reason: c.reason }), c.name).toBeGreaterThanOrEqual(1);
    }

    // Past the max age, no series of a failed source is left looking current.
    await eventually(
      async () => {
        const text = await scrape(daemon);
        return CASES.every((c) => seriesOf(text, c.probe.metric, { node: c.name, ...c.probe.labels }).length === 0);
      },
      20_000,
      200,
    );
    const stale = await scrape(daemon);
    for (const c of CASES) {
      expect(valueOf(stale, 'avax_source_up', { node: c.name, source: c.source }), c.name).toBe(0);
      if (c.source !== 'info' && c.name !== 'refused') {
        // A fault in one method does not take the node's other sources with it.
        expect(valueOf(stale, 'avax_source_up', { node: c.name, source: 'health' }), `${c.name} health`).toBe(1);
      }
    }
    // The control node never noticed: every series it had is still there with the same value.
    const controlNow = new Set(dataSeries(stale, 'control'));
    expect(controlBefore.filter((line) => !controlNow.has(line))).toEqual([]);
    for (const s of seriesOf(stale, 'avax_source_up', { node: 'control' })) expect(s.value, s.labels['source']).toBe(1);

    const clearedAt = logs.lines.length;
    for (const c of CASES) await c.clear(nodes.get(c.name) as FakeNode);
    await eventually(
      async () => {
        const text = await scrape(daemon);
        return CASES.every(
          (c) =>
            valueOf(text, 'avax_source_up', { node: c.name, source: c.source }) === 1 &&
            seriesOf(text, c.probe.metric, { node: c.name, ...c.probe.labels }).length === 1,
        );
      },
      30_000,
      200,
    );

    // One log line per transition, not one per poll: while the fault lasted (many failed polls)
    // exactly one "source down" with the fault's reason, and one "source up" when it was removed.
    const during = logs.lines.slice(injectedAt, clearedAt);
    const afterwards = logs.lines.slice(clearedAt);
    const of = (lines: Record<string, unknown>[], msg: string, c: FaultCase) =>
      lines.filter((l) => l['msg'] === msg && l['node'] === c.name && l['source'] === c.source);
    for (const c of CASES) {
      const downs = of(during, 'source down', c);
      expect(downs, c.name).toHaveLength(1);
      expect(downs[0]?.['reason'], c.name).toBe(c.reason);
      expect(of(during, 'source up', c), c.name).toEqual([]);
      expect(of(afterwards, 'source up', c).length, c.name).toBeGreaterThanOrEqual(1);
    }
    expect(during.filter((l) => l['msg'] === 'source down' && l['node'] === 'control')).toEqual([]);
  });
});

describe('odd but valid data', () => {
  it('hostile label values are sanitised, heights that go backwards are reported as they are, a DNS failure is a connect failure', async () => {
    const node = await FakeNode.start();
    const { daemon } = await startTestDaemon({
      nodes: [
        { name: 'odd', url: node.url },
        { name: 'nowhere', url: 'http://avax-exporter-test.invalid:9650' },
      ],
    });
    try {
      const peer = node.state.peers[0];
      const other = node.state.peers[1];
      if (!peer || !other) throw new Error('fixture world has peers');
      peer.version = `avalanchego/${'9'.repeat(10_000)}`;
      other.version = 'lone \ud800 surrogate';
      node.failCheck(`check-${'c'.repeat(10_000)}`, 'bad');
      node.state.heights.P = 100n;
      // Raw invalid UTF-8 inside a string of an otherwise valid answer.
      node.setFault('info.getNodeVersion', {
        kind: 'result',
        json: Buffer.concat([
          Buffer.from('{"version":"avalanchego/1.14.2-'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('","databaseVersion":"v1.4.5","gitCommit":"abc"}'),
        ]),
      });
      await eventually(async () => valueOf(await scrape(daemon), 'avax_source_up', { node: 'odd', source: 'peers' }) === 1, 10_000);
      await testHandle(daemon).waitForRounds(1);
      let text = await scrape(daemon);
      for (const s of seriesOf(text, 'avax_node_peers_by_version', { node: 'odd' })) expect(s.labels['version']?.length ?? 0).toBeLessThanOrEqual(256);
      // Neither is a version string: both count under `other` (issue 23: peer-reported label values are validated).
      expect(valueOf(text, 'avax_node_peers_by_version', { node: 'odd', version: 'other' })).toBe(2);
      const checks = seriesOf(text, 'avax_node_health_check_passing', { node: 'odd' }).map((s) => s.labels['check'] ?? '');
      expect(checks.some((c) => c.startsWith('check-ccc') && c.length === 256)).toBe(true);
      expect(seriesOf(text, 'avax_node_info', { node: 'odd' })[0]?.labels['version']).toBe('avalanchego/1.14.2-\ufffd\ufffd');
      expect(valueOf(text, 'avax_chain_height', { node: 'odd', chain: 'P' })).toBe(100);
      expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);

      node.state.heights.P = 90n; // a node restored from an older database
      await testHandle(daemon).waitForRounds(2);
      text = await scrape(daemon);
      expect(valueOf(text, 'avax_chain_height', { node: 'odd', chain: 'P' })).toBe(90);
      expect(valueOf(text, 'avax_source_up', { node: 'odd', source: 'p_chain' })).toBe(1);

      expect(valueOf(text, 'avax_source_up', { node: 'nowhere', source: 'info' })).toBe(0);
      expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'nowhere', source: 'info', reason: 'connect' })).toBeGreaterThanOrEqual(1);
    } finally {
      await daemon.stop();
      await node.stop();
    }
  });
});
