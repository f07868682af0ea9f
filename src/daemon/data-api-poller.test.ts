/**
 * Which validator ids the Data API poller asks about (src/daemon/data-api-poller.ts watchedNodeIds):
 * each configured node's watch list or its own id, and, in probe or sharded mode, the ids the
 * /probe targets watch (the global --watch.node-id), since such an exporter may have no
 * configured node at all (issue 22, point 10).
 */
import { describe, expect, it } from 'vitest';
import { watchedNodeIds } from './data-api-poller.js';
import type { NodeConfig } from '../config/load.js';

const node = (name: string, nodeIds: string[]): NodeConfig => ({
  name,
  url: `http://${name}:9650`,
  headers: {},
  secretHeaders: [],
  watch: { nodeIds, allValidators: false, subnetIds: [], maxValidators: 100 },
});

describe('the ids the Data API is asked about', () => {
  it("asks about each node's watched ids, or its own id on the Data API's network", () => {
    const nodes = [
      { node: node('a', ['NodeID-X']), known: { nodeId: 'NodeID-A', networkId: 1 }, completedRounds: 1 },
      { node: node('b', []), known: { nodeId: 'NodeID-B', networkId: 1 }, completedRounds: 1 },
      { node: node('c', []), known: { nodeId: 'NodeID-C', networkId: 5 }, completedRounds: 1 },
    ];
    expect(watchedNodeIds(nodes, 'mainnet').sort()).toEqual(['NodeID-B', 'NodeID-X']);
  });

  it('with no configured node (probe or sharded mode), asks about the ids the probe targets watch', () => {
    expect(watchedNodeIds([], 'mainnet')).toEqual([]);
    expect(watchedNodeIds([], 'mainnet', ['NodeID-P', 'NodeID-Q']).sort()).toEqual(['NodeID-P', 'NodeID-Q']);
    const nodes = [{ node: node('a', ['NodeID-P']), known: {}, completedRounds: 1 }];
    expect(watchedNodeIds(nodes, 'fuji', ['NodeID-P'])).toEqual(['NodeID-P']);
  });
});
