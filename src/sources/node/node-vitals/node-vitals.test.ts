import { describe, expect, it } from 'vitest';
import { FakeNode } from '../../../../test/fakes/fake-node.js';
import { defaultFakeState, FIXTURE_IDS } from '../../../../test/fakes/fake-data.js';
import { diskSpaceMode, formatGoDuration, networkActivityMode, processingMode } from '../../../../test/fakes/vitals-modes.js';
import { callsInOneRound, perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from '../../../../test/helpers/daemon.js';
import { loadFixture } from '../../../../test/helpers/fixtures.js';
import { collectNodeVitals } from './collect.js';
import { consensusFrom, diskFrom, goDurationSeconds, networkFrom, nodeVitalsFrom, routerFrom } from './index.js';

type Checks = Record<string, { message?: unknown }>;
const referenceChecks = (variant?: string): Checks => (loadFixture('node.health.GET.json', variant).response.body as { checks: Checks }).checks;

describe('Go durations as AvalancheGo writes them in its health details', () => {
  it('reads Duration.String() in every unit, and integer nanoseconds', () => {
    expect(goDurationSeconds('0s')).toBe(0);
    expect(goDurationSeconds('850ns')).toBeCloseTo(850e-9, 15);
    expect(goDurationSeconds('1.5µs')).toBeCloseTo(1.5e-6, 12);
    expect(goDurationSeconds('1.5us')).toBeCloseTo(1.5e-6, 12);
    expect(goDurationSeconds('12.04ms')).toBeCloseTo(0.01204, 12);
    expect(goDurationSeconds('281.559ms')).toBeCloseTo(0.281559, 12);
    expect(goDurationSeconds('1.612347819s')).toBeCloseTo(1.612347819, 12);
    expect(goDurationSeconds('5m0s')).toBe(300);
    expect(goDurationSeconds('2h0m3.5s')).toBe(7203.5);
    expect(goDurationSeconds(1_500_000_000)).toBe(1.5);
  });

  it('takes nothing else: negative, unit-less, empty, garbage, other types', () => {
    for (const bad of ['-1s', '1.5', '', 's', '5 m', '1d', '1m0', 'NaN', null, true, -5, 1.5, {}, []])
      expect(goDurationSeconds(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('the fake writes them as Go does, and they read back (src/demo/modes.ts)', () => {
    expect(formatGoDuration(0)).toBe('0s');
    expect(formatGoDuration(850e-9)).toBe('850ns');
    expect(formatGoDuration(1.5e-6)).toBe('1.5µs');
    expect(formatGoDuration(0.01204)).toBe('12.04ms');
    expect(formatGoDuration(30)).toBe('30s');
    expect(formatGoDuration(300)).toBe('5m0s');
    expect(formatGoDuration(7203.5)).toBe('2h0m3.5s');
    for (const s of [0.000_001_2, 0.0123, 0.5, 1, 59.999, 61, 3600, 90_061.25]) expect(goDurationSeconds(formatGoDuration(s))).toBeCloseTo(s, 9);
  });
});

describe('reading the vitals out of a /ext/health report', () => {
  it('reads every figure of the reference report (test/fixtures/reference/node.health.GET.json)', () => {
    const v = nodeVitalsFrom(referenceChecks());
    expect(v.disk).toEqual({ availableBytes: 812_345_671_680, availableRatio: 0.61 });
    expect(v.network).toEqual({
      connectedPeers: 1784,
      sendFailRatio: 0.0004127,
      lastReceivedAgeSeconds: expect.closeTo(0.01204, 12) as unknown,
      lastSentAgeSeconds: expect.closeTo(0.003301, 12) as unknown,
      ingressConnections: 812,
    });
    expect(v.router).toEqual({ outstandingRequests: 14, longestRunningRequestSeconds: expect.closeTo(0.281559, 12) as unknown });
    expect(v.bootstrappingSubnets).toBe(0);
    expect(v.chains.map((c) => [c.chain, c.processingBlocks, c.longestProcessingSeconds, c.lastAcceptedHeight])).toEqual([
      ['C', 0, 0, 71_234_567],
      ['P', 0, 0, 23_797_323],
      ['X', 0, 0, 5_094_088],
    ]);
  });

  it('a bootstrapping node: its chains report no consensus details (no series, not 0) and the subnets still bootstrapping are counted', () => {
    const checks = referenceChecks('unhealthy-bootstrapping-503');
    const v = nodeVitalsFrom(checks);
    const bootstrapped = checks['bootstrapped']?.message as unknown[];
    expect(bootstrapped.length).toBeGreaterThan(0);
    expect(v.bootstrappingSubnets).toBe(bootstrapped.length);
    // snow/engine/snowman/bootstrap/bootstrapper.go HealthCheck: `consensus: {}`.
    expect(consensusFrom('C', { engine: { consensus: {}, vm: null }, networking: { percentConnected: 1 } })).toBeUndefined();
  });

  it('reads the shapes of older AvalancheGo versions', () => {
    // v1.10: the chain check was the engine's own {consensus, vm}, with outstandingBlocks and longestRunningBlock.
    expect(consensusFrom('C', { consensus: { outstandingBlocks: 2, longestRunningBlock: '1.2s' }, vm: null })).toEqual({
      chain: 'C',
      processingBlocks: 2,
      longestProcessingSeconds: 1.2,
      lastAcceptedHeight: undefined,
    });
    // Before the percentage flags: bytes only.
    expect(diskFrom({ availableDiskBytes: 5_000_000 })).toEqual({ availableBytes: 5_000_000, availableRatio: undefined });
  });

  it("drops the resource tracker's value before its first measurement (math.MaxUint64 bytes and 100 %)", () => {
    // 18446744073709551615 parses to 2^64 in JavaScript.
    const body = JSON.parse('{"availableDiskBytes":18446744073709551615,"availableDiskPercentage":100}') as unknown;
    expect(diskFrom(body)).toBeUndefined();
  });

  it('reads each field on its own: an odd value is absent, the others stay', () => {
    expect(networkFrom({ connectedPeers: 'many', sendFailRate: 1.7, timeSinceLastMsgReceived: '3m0s' })).toEqual({
      connectedPeers: undefined,
      sendFailRatio: undefined,
      lastReceivedAgeSeconds: 180,
      lastSentAgeSeconds: undefined,
      ingressConnections: undefined,
    });
    expect(routerFrom({ outstandingRequests: -1, longestRunningRequest: 'soon' })).toBeUndefined();
    expect(diskFrom({ availableDiskBytes: -3, availableDiskPercentage: 140 })).toBeUndefined();
    expect(nodeVitalsFrom({ network: { message: 'network layer is unhealthy' }, router: {}, diskspace: { message: null } })).toEqual({
      disk: undefined,
      network: undefined,
      router: undefined,
      bootstrappingSubnets: undefined,
      chains: [],
    });
  });

  it('collects a sample for each value the node sent and none for the others', () => {
    const samples = collectNodeVitals(
      {
        disk: { availableBytes: 10, availableRatio: undefined },
        network: undefined,
        router: { outstandingRequests: 3, longestRunningRequestSeconds: undefined },
        bootstrappingSubnets: undefined,
        chains: [{ chain: 'C', processingBlocks: 1, longestProcessingSeconds: undefined, lastAcceptedHeight: 7 }],
      },
      'n',
    );
    expect(samples.map((s) => [s.name, s.labels['chain'] ?? '', s.value])).toEqual([
      ['avax_node_disk_available_bytes', '', 10],
      ['avax_node_router_outstanding_requests', '', 3],
      ['avax_node_chain_processing_blocks', 'C', 1],
      ['avax_node_chain_last_accepted_height', 'C', 7],
    ]);
  });
});

describe('the node-vitals source against a fake node', () => {
  const { daemonFor } = perTestResources();

  it('exports the vitals of every chain, L1 chains included, from the same /ext/health request as the health source', async () => {
    const node = await FakeNode.start();
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_source_up', { node: 'n', source: 'node_vitals' })).toBe(1);
      expect(valueOf(text, 'avax_node_disk_available_bytes', { node: 'n' })).toBe(812_345_671_680);
      expect(valueOf(text, 'avax_node_disk_available_ratio', { node: 'n' })).toBe(0.61);
      expect(valueOf(text, 'avax_node_network_send_fail_ratio', { node: 'n' })).toBe(0.0004127);
      expect(valueOf(text, 'avax_node_network_last_message_received_age_seconds', { node: 'n' })).toBeCloseTo(0.01204, 9);
      expect(valueOf(text, 'avax_node_router_outstanding_requests', { node: 'n' })).toBe(14);
      const chains = seriesOf(text, 'avax_node_chain_processing_blocks', { node: 'n' }).map((s) => s.labels['chain']);
      expect(chains).toEqual(expect.arrayContaining(['P', 'X', 'C', FIXTURE_IDS.l1ChainId]));
      expect(valueOf(text, 'avax_node_chain_last_accepted_height', { node: 'n', chain: FIXTURE_IDS.l1ChainId })).toBe(184_467);
      // The L1 chain's connected stake comes from the same check (the health source).
      expect(valueOf(text, 'avax_node_connected_stake_ratio', { node: 'n', chain: FIXTURE_IDS.l1ChainId })).toBe(1);
      const count = await callsInOneRound(node, daemon);
      expect(count('GET /ext/health')).toBe(1);
    } finally {
      await node.stop();
    }
  });

  it('follows the node as AvalancheGo computes its checks: a low disk, a stuck block, a silent network', async () => {
    const state = defaultFakeState();
    diskSpaceMode(state, { totalBytes: 1e12, availableBytes: 0.0875e12 });
    processingMode(state, 'C', { blocks: 2, oldestSeconds: 300 });
    networkActivityMode(state, { receivedAgoSeconds: 180, sentAgoSeconds: 0.2, sendFailRate: 0.001 });
    // What a real node says then (node/node.go, topological.go, network/network.go).
    expect(state.health['diskspace']?.error).toBe('remaining available disk space percentage (8%) is below warning threshold available space percentage (10%)');
    expect(state.health['C']?.error).toBe('block processing too long: 5m0s > 30s');
    expect(state.health['network']?.error).toBe('network layer is unhealthy reason: no messages from network received in 3m0s > 1m0s');
    const node = await FakeNode.start({ state });
    try {
      const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
      await waitUntilAllUp(daemon);
      const text = await scrape(daemon);
      expect(valueOf(text, 'avax_node_healthy', { node: 'n' })).toBe(0);
      expect(valueOf(text, 'avax_node_disk_available_bytes', { node: 'n' })).toBe(87_500_000_000);
      expect(valueOf(text, 'avax_node_disk_available_ratio', { node: 'n' })).toBe(0.08);
      expect(valueOf(text, 'avax_node_chain_processing_blocks', { node: 'n', chain: 'C' })).toBe(2);
      expect(valueOf(text, 'avax_node_chain_longest_processing_block_seconds', { node: 'n', chain: 'C' })).toBe(300);
      expect(valueOf(text, 'avax_node_network_last_message_received_age_seconds', { node: 'n' })).toBe(180);
      expect(valueOf(text, 'avax_node_health_check_passing', { node: 'n', check: 'C' })).toBe(0);

      // The block is decided, the disk freed, messages come in again: the checks pass.
      processingMode(node.state, 'C', { blocks: 0, oldestSeconds: 0 });
      diskSpaceMode(node.state, { totalBytes: 1e12, availableBytes: 0.5e12 });
      networkActivityMode(node.state, { receivedAgoSeconds: 0.01, sentAgoSeconds: 0.002, sendFailRate: 0.001 });
      expect(['C', 'diskspace', 'network'].map((c) => node.state.health[c]?.error)).toEqual([undefined, undefined, undefined]);
    } finally {
      await node.stop();
    }
  });
});
