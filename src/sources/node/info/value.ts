/** One scheduled network upgrade. */
export interface Upgrade {
  /** The key without its `Time` suffix: `granite`, `apricotPhase1`. */
  name: string;
  timestampSeconds: number;
}

/** Identity of the node. */
export interface InfoValue {
  nodeId: string;
  version: string;
  databaseVersion: string;
  gitCommit: string;
  networkId: number;
  networkName: string;
  upgrades: Upgrade[];
}
