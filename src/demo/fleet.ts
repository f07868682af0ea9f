import type { NodeConfig } from '../config/load.js';
import { DEFAULT_MAX_VALIDATORS } from '../config/load.js';
import { startDemoNode, type DemoNode } from './node.js';

/** The demo fleet: the nodes `--demo` polls and the node the demo Data API follows. */
export interface Demo {
  /** The full validator: the node the demo Data API reports on. */
  readonly primary: DemoNode;
  /** The demo nodes as the daemon polls them. */
  readonly nodes: NodeConfig[];
  stop(): Promise<void>;
}

/**
 * Starts the demo: `demo`, a full primary-network validator that also
 * watches an auto-renewing validator (the fixture world's second one), and
 * `demo-l1`, a partial-sync L1 validator (the usual L1 setup: P-Chain only).
 * Both watch the simulated L1, so the demo shows L1 validators and their fee
 * balance.
 */
export async function startDemo(): Promise<Demo> {
  const primary = await startDemoNode();
  const l1 = await startDemoNode({ seed: 2, partialSync: true });
  const subnetIds = Object.keys(primary.node.state.subnets).filter((id) => primary.node.state.subnets[id]?.l1);
  const s = primary.node.state;
  const renewing = s.primaryValidators.find((v) => v.autoRenew !== undefined)?.nodeId;
  const node = (name: string, url: string, nodeIds: string[]): NodeConfig => ({
    name,
    url,
    headers: {},
    secretHeaders: [],
    watch: { nodeIds, allValidators: false, subnetIds, maxValidators: DEFAULT_MAX_VALIDATORS },
  });
  return {
    primary,
    nodes: [node('demo', primary.url, renewing ? [s.nodeId, renewing] : []), node('demo-l1', l1.url, [])],
    async stop() {
      await l1.stop();
      await primary.stop();
    },
  };
}
