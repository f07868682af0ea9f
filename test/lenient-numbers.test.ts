import { describe, expect, it } from 'vitest';
import { networkIdResult } from '../src/sources/node/info/index.js';
import { peersResult } from '../src/sources/node/peers/index.js';
import { uptimeResult } from '../src/sources/node/uptime/index.js';
import { fixtureResult } from './helpers/fixtures.js';

// Issue 19 point 6: the node interface's specification (shared/seeds/node-jsonrpc-interface.md)
// declares info.getNetworkID's networkID and info.peers' numPeers integers and info.uptime's
// percentages float64; real nodes send them as strings (json.Uint32 / json.Float64, the reference
// fixtures). Each field accepts both forms and still rejects a wrong one.

describe('networkID (spec: integer; real nodes: string)', () => {
  it('accepts the string a real node sends (reference fixture)', () => {
    expect(networkIdResult.parse(fixtureResult('node.info.getNetworkID.json'))).toEqual({ networkID: 1 });
    expect(networkIdResult.parse(fixtureResult('node.info.getNetworkID.json', 'fuji'))).toEqual({ networkID: 5 });
  });
  it('accepts the integer the specification declares', () => {
    expect(networkIdResult.parse({ networkID: 5 })).toEqual({ networkID: 5 });
    expect(networkIdResult.parse({ networkID: 12345 })).toEqual({ networkID: 12345 });
  });
  it.each([[-1], ['-1'], [1.5], ['1.5'], ['NaN'], [Number.NaN], ['1e3'], [''], [null], [true], [Number.POSITIVE_INFINITY]])('rejects %j', (bad) => {
    expect(networkIdResult.safeParse({ networkID: bad }).success).toBe(false);
  });
});

describe('numPeers (spec: integer; real nodes: string)', () => {
  it('accepts the string a real node sends (reference fixture)', () => {
    const raw = fixtureResult('node.info.peers.json') as { numPeers: unknown };
    expect(typeof raw.numPeers).toBe('string');
    const r = peersResult.parse(raw);
    expect(r.numPeers).toBe(Number(raw.numPeers));
  });
  it('accepts the integer the specification declares', () => {
    expect(peersResult.parse({ numPeers: 3, peers: [] }).numPeers).toBe(3);
    expect(peersResult.parse({ numPeers: 0, peers: null }).numPeers).toBe(0);
  });
  it.each([[-3], ['-3'], [2.5], ['NaN'], [Number.NaN], ['3 '], [null]])('rejects %j', (bad) => {
    expect(peersResult.safeParse({ numPeers: bad, peers: [] }).success).toBe(false);
  });
});

describe('info.uptime percentages (spec: float64; real nodes: string)', () => {
  it('accepts the strings a real node sends (reference fixture), as ratios', () => {
    expect(uptimeResult.parse(fixtureResult('node.info.uptime.json'))).toEqual({
      rewardingStakePercentage: 1,
      weightedAveragePercentage: 0.997214,
    });
  });
  it('accepts the float64 numbers the specification declares, as ratios', () => {
    const r = uptimeResult.parse({ rewardingStakePercentage: 100, weightedAveragePercentage: 99.7214 });
    expect(r.rewardingStakePercentage).toBe(1);
    expect(r.weightedAveragePercentage).toBeCloseTo(0.997214, 9);
    expect(uptimeResult.parse({ rewardingStakePercentage: 0, weightedAveragePercentage: '0.0000' })).toEqual({
      rewardingStakePercentage: 0,
      weightedAveragePercentage: 0,
    });
  });
  it.each([[-1], ['-1.0000'], [100.5], ['100.5000'], ['NaN'], [Number.NaN], [Number.POSITIVE_INFINITY], ['1e2'], [null], ['']])('rejects %j', (bad) => {
    expect(uptimeResult.safeParse({ rewardingStakePercentage: bad, weightedAveragePercentage: 99 }).success).toBe(false);
    expect(uptimeResult.safeParse({ rewardingStakePercentage: 99, weightedAveragePercentage: bad }).success).toBe(false);
  });
});
