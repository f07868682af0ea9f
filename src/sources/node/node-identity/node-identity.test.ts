import { describe, expect, it } from 'vitest';
import { collectNodeIdentity } from './collect.js';
import { identityChanges, nodeIpResult, vmVersionsResult, vmVersionsOf } from './index.js';
import { ipChangedMode, pluginVmMode } from '../../../../test/fakes/real-modes.js';
import { FIXTURE_IDS } from '../../../../test/fakes/fake-data.js';
import { callsInOneRound, eventually, perTestResources, scrape, seriesOf, waitUntilAllUp } from '../../../../test/helpers/daemon.js';
import { fixtureResult } from '../../../../test/helpers/fixtures.js';
import { startDemoNode } from '../../../demo/node.js';

// Issue 19 point 4: the public IP a node advertises and the versions of its VMs (plugins such as Subnet-EVM).
const { fakeNode, daemonFor } = perTestResources();

describe('node identity wire shapes', () => {
  it('reads the reference info.getNodeIP and info.getNodeVersion answers', () => {
    expect(nodeIpResult.parse(fixtureResult('node.info.getNodeIP.json'))).toEqual({ ip: '203.0.113.10:9651' });
    const v = vmVersionsResult.parse(fixtureResult('node.info.getNodeVersion.json'));
    expect(vmVersionsOf(v.vmVersions)).toEqual([
      { vm: 'avm', version: 'avalanchego/1.14.2' },
      { vm: 'evm', version: 'v1.14.2' },
      { vm: 'platform', version: 'avalanchego/1.14.2' },
    ]);
  });
  it('accepts an IPv6 address and rejects what is not ip:port', () => {
    expect(nodeIpResult.parse({ ip: '[2001:db8::17]:9651' }).ip).toBe('[2001:db8::17]:9651');
    for (const bad of ['', '203.0.113.10', 'invalid AddrPort', 'example.com:9651', '203.0.113.10:9651\n', 5]) {
      expect(nodeIpResult.safeParse({ ip: bad }).success, String(bad)).toBe(false);
    }
  });
  it('rejects a vmVersions that is not a map of strings', () => {
    expect(vmVersionsResult.safeParse({ vmVersions: { avm: 1 } }).success).toBe(false);
    expect(vmVersionsResult.safeParse({ vmVersions: null }).success).toBe(false);
  });
  it('collects one ip series and one series per VM', () => {
    const lines = collectNodeIdentity({ ip: '203.0.113.10:9651', vmVersions: [{ vm: 'evm', version: 'v1.14.2' }] }, 'n1');
    expect(lines.map((s) => [s.name, s.labels, s.value])).toEqual([
      ['avax_node_ip_info', { node: 'n1', ip: '203.0.113.10:9651' }, 1],
      ['avax_node_vm_version_info', { node: 'n1', vm: 'evm', version: 'v1.14.2' }, 1],
    ]);
  });
  it('logs a new public IP and a changed VM version, nothing on the first value or a stable one', () => {
    const a = { ip: '1.2.3.4:9651', vmVersions: [{ vm: 'x', version: 'v1' }] };
    expect(identityChanges(undefined, a)).toEqual([]);
    expect(identityChanges(a, a)).toEqual([]);
    const b = { ip: '5.6.7.8:9651', vmVersions: [{ vm: 'x', version: 'v2' }] };
    expect(identityChanges(a, b).map((c) => [c.kind, c.level, c.detail])).toEqual([
      ['public_ip', 'warn', { from: '1.2.3.4:9651', to: '5.6.7.8:9651' }],
      ['vm_version', 'info', { vm: 'x', from: 'v1', to: 'v2' }],
    ]);
  });
});

describe('node identity against the fake node', () => {
  it('exports the public IP and every VM version, a plugin included', async () => {
    const node = await fakeNode();
    pluginVmMode(node.state, FIXTURE_IDS.subnetEvmVmId, 'v0.7.3');
    const { daemon } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(seriesOf(text, 'avax_node_ip_info', { node: 'n' })).toEqual([{ labels: { node: 'n', ip: '203.0.113.10:9651' }, value: 1 }]);
    const vms = seriesOf(text, 'avax_node_vm_version_info', { node: 'n' }).map((s) => `${s.labels['vm']}=${s.labels['version']}`);
    expect(vms.sort()).toEqual(['avm=avalanchego/1.14.2', 'evm=v1.14.2', 'platform=avalanchego/1.14.2', `${FIXTURE_IDS.subnetEvmVmId}=v0.7.3`].sort());
  });

  it('a new public IP replaces the old series within a round and is logged; getNodeVersion is not asked every round', async () => {
    const node = await fakeNode();
    const { daemon, logs } = await daemonFor({ nodes: [{ name: 'n', url: node.url }] });
    await waitUntilAllUp(daemon);
    const calls = await callsInOneRound(node, daemon);
    expect(calls('info.getNodeIP')).toBe(1);
    // The identity source and this one both refresh versions on the slow cadence only: none in an ordinary round.
    expect(calls('info.getNodeVersion')).toBe(0);
    ipChangedMode(node.state, '198.51.100.7');
    await eventually(async () => seriesOf(await scrape(daemon), 'avax_node_ip_info', { ip: '198.51.100.7:9651' }).length === 1);
    const text = await scrape(daemon);
    expect(seriesOf(text, 'avax_node_ip_info', { node: 'n' }).map((s) => s.labels['ip'])).toEqual(['198.51.100.7:9651']);
    await eventually(() => logs.raw.some((l) => l.includes('public IP changed') && l.includes('198.51.100.7:9651')));
  });
});

describe('node identity in the demo', () => {
  it('the demo nodes advertise their own addresses and run one Subnet-EVM release for the fixture L1', async () => {
    const full = await startDemoNode({ tickMs: 3_600_000, seed: 3 });
    const l1 = await startDemoNode({ tickMs: 3_600_000, seed: 3, partialSync: true });
    try {
      const ask = async (url: string, method: string): Promise<Record<string, unknown>> => {
        const res = await fetch(`${url}/ext/info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
        });
        return ((await res.json()) as { result: Record<string, unknown> }).result;
      };
      const ips = [(await ask(full.url, 'info.getNodeIP'))['ip'], (await ask(l1.url, 'info.getNodeIP'))['ip']];
      expect(new Set(ips).size).toBe(2);
      for (const d of [full, l1]) {
        const vms = (await ask(d.url, 'info.getNodeVersion'))['vmVersions'] as Record<string, string>;
        expect(vms[FIXTURE_IDS.subnetEvmVmId]).toBe('v0.7.3');
      }
    } finally {
      await full.stop();
      await l1.stop();
    }
  });
});
