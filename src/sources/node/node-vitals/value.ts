/**
 * What a node's own /ext/health report says about its vitals, beyond pass or
 * fail: each field is read on its own and is undefined when the node did not
 * send it (an older AvalancheGo, a chain still bootstrapping, a check that
 * has not run yet), so its series is absent rather than 0.
 */

/** The `diskspace` check (node/node.go): the volume of the node's database. */
export interface DiskVitals {
  /** `availableDiskBytes`: bytes available to the node (statfs Bavail × Bsize, utils/storage/storage_unix.go). */
  availableBytes: number | undefined;
  /**
   * `availableDiskPercentage` / 100: the whole percent AvalancheGo compares
   * with its flags (Bavail × 100 / Blocks, rounded down), so 0.09 means
   * "9.x %". Absent before AvalancheGo v1.10.x, which reported bytes only.
   */
  availableRatio: number | undefined;
}

/** A chain check's `engine.consensus` part (snow/consensus/snowman/topological.go HealthCheck). */
export interface ChainConsensus {
  /** The check's name: the chain's primary alias (P, X, C) or its blockchain id. */
  chain: string;
  /** `processingBlocks` (`outstandingBlocks` before v1.11). */
  processingBlocks: number | undefined;
  /** `longestProcessingBlock` (`longestRunningBlock` before v1.11), a Go duration string, in seconds. */
  longestProcessingSeconds: number | undefined;
  /** `lastAcceptedHeight` (since v1.11). */
  lastAcceptedHeight: number | undefined;
}

/** The `network` check (network/network.go HealthCheck). */
export interface NetworkVitals {
  /** `connectedPeers`. */
  connectedPeers: number | undefined;
  /** `sendFailRate`: the decaying average share of message sends that failed (0..1). */
  sendFailRatio: number | undefined;
  /** `timeSinceLastMsgReceived` in seconds; the node omits it until it has received a message. */
  lastReceivedAgeSeconds: number | undefined;
  /** `timeSinceLastMsgSent` in seconds; omitted until the first message sent. */
  lastSentAgeSeconds: number | undefined;
  /**
   * `primary network validator health` → `ingressConnectionCount`
   * (network/no_ingress_conn_alert.go): peers that dialled this node. Only
   * reported once the start-up grace period has passed.
   */
  ingressConnections: number | undefined;
}

/** The `router` check (snow/networking/router/chain_router.go HealthCheck). */
export interface RouterVitals {
  /** `outstandingRequests`: consensus requests (Get, PullQuery, …) awaiting an answer, over all chains. */
  outstandingRequests: number | undefined;
  /** `longestRunningRequest`, a Go duration string, in seconds. */
  longestRunningRequestSeconds: number | undefined;
}

/** What the node-vitals source reports. */
export interface NodeVitalsValue {
  disk: DiskVitals | undefined;
  network: NetworkVitals | undefined;
  router: RouterVitals | undefined;
  /** Subnets the `bootstrapped` check lists as still bootstrapping (chains/manager.go); undefined when it lists nothing readable. */
  bootstrappingSubnets: number | undefined;
  /** Every chain check with a readable consensus part, sorted by chain. */
  chains: ChainConsensus[];
}
