/**
 * What the fake node computes as AvalancheGo does (src/demo/p-chain-clock.ts): info.uptime from
 * its peers and the validator set (network/network.go NodeUptime), and the end of each staker as
 * the P-Chain's time passes it, the ACP-236 abort path included
 * (vms/platformvm/txs/executor/proposal_tx_executor.go RewardAutoRenewedValidatorTx).
 */
import { describe, expect, it } from 'vitest';
import { FakeNode, type FakeNodeState } from '../../test/fakes/fake-node.js';
import { FIXTURE_IDS, PRIMARY_NETWORK_ID } from '../../test/fakes/fake-data.js';
import { advancePChain, networkCommits, nodeUptime } from './p-chain-clock.js';
import { autoRenewing, poaSubnet, removedL1Validation } from '../../test/fakes/real-modes.js';
import { DAY, liveWorld, PEER_STAKE, SELF, unreachableStake, upgradeTime, validatorOf } from '../../test/helpers/matrix-worlds.js';

const NOW = 1_800_000_000;

async function rpc<T>(node: FakeNode, path: string, method: string, params: unknown = {}): Promise<{ result?: T; error?: { message: string } }> {
  const res = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: T; error?: { message: string } };
}

describe('info.uptime computed as network/network.go NodeUptime does', () => {
  it('counts the node itself at 100 %, each connected validator peer at what it observes, and unreachable stake at 0 %, over the total stake', () => {
    const s = liveWorld(NOW);
    const self = validatorOf(s, SELF);
    const mine = Number(self.weight + self.delegators.reduce((t, d) => t + d.weight, 0n));
    const disconnected = Number(validatorOf(s, FIXTURE_IDS.disconnectedValidatorNodeId).weight);
    const peers = Number(PEER_STAKE);
    const total = mine + disconnected + 3 * peers;
    const u = nodeUptime(s);
    expect(u?.weightedAveragePercentage).toBeCloseTo((100 * mine + peers * (100 + 99 + 99)) / total, 9);
    // Every peer sees it above 80 %: all the connected stake rewards it, the unreachable stake does not.
    expect(u?.rewardingStakePercentage).toBeCloseTo((100 * (mine + 3 * peers)) / total, 9);
  });

  it('with 12 % of the stake unreachable, a validator every connected peer sees up reads about 88 %: the bias the rules avoid', () => {
    const s = liveWorld(NOW);
    unreachableStake(s, 0.12);
    const u = nodeUptime(s);
    expect(u?.weightedAveragePercentage).toBeLessThan(88.5);
    expect(u?.weightedAveragePercentage).toBeGreaterThan(87);
  });

  it('uses the 90 % requirement for a validation started under Helicon (ACP-267)', () => {
    const s = liveWorld(NOW);
    for (const p of s.peers) p.observedUptime = 85;
    expect(nodeUptime(s)?.rewardingStakePercentage).toBeGreaterThan(90);
    s.upgrades.heliconTime = upgradeTime(NOW - 200 * DAY);
    // 85 % < 90 %: only the node's own stake rewards itself.
    expect(nodeUptime(s)?.rewardingStakePercentage).toBeLessThan(5);
  });

  it('answers "not a validator" once the node is not in the set, over HTTP', async () => {
    const s = liveWorld(Math.floor(Date.now() / 1000));
    const node = await FakeNode.start({ state: s });
    try {
      const before = await rpc<{ weightedAveragePercentage: string }>(node, '/ext/info', 'info.uptime');
      expect(Number(before.result?.weightedAveragePercentage)).toBeCloseTo(nodeUptime(s)?.weightedAveragePercentage ?? NaN, 3);
      expect(before.result?.weightedAveragePercentage).toMatch(/^\d+\.\d{4}$/);
      node.state.primaryValidators = node.state.primaryValidators.filter((v) => v.nodeId !== SELF);
      const after = await rpc(node, '/ext/info', 'info.uptime');
      expect(after.error?.message).toBe("couldn't get node uptime: node is not a validator");
    } finally {
      await node.stop();
    }
  });
});

describe("the P-Chain's clock (advancePChain)", () => {
  const renewing = (observed: number, nextPeriod = 14 * DAY): FakeNodeState => {
    const s = liveWorld(NOW);
    const v = validatorOf(s, SELF);
    v.startTime = NOW - 14 * DAY;
    v.endTime = NOW;
    for (const p of s.peers) p.observedUptime = observed;
    return autoRenewing(s, SELF, nextPeriod, 500_000);
  };

  it('renews an auto-renewing validation the network commits: its next cycle starts at the end of this one', () => {
    const s = renewing(99);
    expect(networkCommits(s, validatorOf(s, SELF))).toBe(true);
    advancePChain(s, NOW + 60);
    const v = validatorOf(s, SELF);
    expect([v.startTime, v.endTime]).toEqual([NOW, NOW + 14 * DAY]);
  });

  it('removes an auto-renewing validation under its requirement at the end of its cycle, next period or not (the abort branch)', () => {
    const s = renewing(60);
    expect(networkCommits(s, validatorOf(s, SELF))).toBe(false);
    advancePChain(s, NOW - 1);
    expect(s.primaryValidators.some((v) => v.nodeId === SELF)).toBe(true);
    advancePChain(s, NOW);
    expect(s.primaryValidators.some((v) => v.nodeId === SELF)).toBe(false);
    // And info.uptime then says the node is not a validator.
    expect(nodeUptime(s)).toBeNull();
  });

  it('removes a renewing validation with a next period of 0, and a validation that does not renew, at their end', () => {
    const s = renewing(99, 0);
    advancePChain(s, NOW);
    expect(s.primaryValidators.some((v) => v.nodeId === SELF)).toBe(false);
    const t = liveWorld(NOW);
    validatorOf(t, SELF).endTime = NOW;
    advancePChain(t, NOW);
    expect(t.primaryValidators.some((v) => v.nodeId === SELF)).toBe(false);
  });

  it("judges another validator by this node's own view of it", () => {
    const s = renewing(99);
    const other = validatorOf(s, FIXTURE_IDS.disconnectedValidatorNodeId);
    expect(networkCommits(s, other)).toBe(false);
    other.uptime = 95;
    expect(networkCommits(s, other)).toBe(true);
  });

  it('removes a permissioned (PoA) subnet staker at its end time; an L1 validator stays until its validator manager removes it', () => {
    const s = liveWorld(NOW);
    const poa = poaSubnet(s, 'clock', NOW + 10, NOW);
    advancePChain(s, NOW + 9);
    expect(s.subnets[poa]?.validators.map((v) => v.nodeId)).toContain(SELF);
    advancePChain(s, NOW + 10);
    expect(s.subnets[poa]?.validators.map((v) => v.nodeId)).not.toContain(SELF);
    expect(s.subnets[poa]?.validators).toHaveLength(1);
    advancePChain(s, NOW + 1000 * DAY);
    expect(s.subnets[FIXTURE_IDS.l1SubnetId]?.validators.some((v) => v.nodeId === SELF)).toBe(true);
    removedL1Validation(s, FIXTURE_IDS.l1ValidationId);
    expect(s.subnets[FIXTURE_IDS.l1SubnetId]?.validators.some((v) => v.nodeId === SELF)).toBe(false);
  });

  it('runs before each request of a node with pChainClock: getCurrentValidators no longer lists the removed validation', async () => {
    const now = Math.floor(Date.now() / 1000);
    const s = liveWorld(now);
    const v = validatorOf(s, SELF);
    v.startTime = now - 14 * DAY;
    v.endTime = now + 2;
    for (const p of s.peers) p.observedUptime = 50;
    autoRenewing(s, SELF, 14 * DAY, 0);
    const node = await FakeNode.start({ state: s });
    try {
      const list = async () =>
        (
          await rpc<{ validators: { nodeID: string }[] }>(node, '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: PRIMARY_NETWORK_ID })
        ).result?.validators.map((x) => x.nodeID);
      expect(await list()).toContain(SELF);
      await new Promise((r) => setTimeout(r, 3_100));
      expect(await list()).not.toContain(SELF);
    } finally {
      await node.stop();
    }
  });
});
