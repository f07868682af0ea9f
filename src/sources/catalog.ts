/**
 * The catalog: every source, one line each, by family. It is the only module
 * that reads the lists or merges them; the daemon, the pollers, the state
 * store, the exposition and the status page work through what it derives
 * (the identity source, sources by name, least intervals, declared metrics)
 * and each definition's hooks, so nothing else in the exporter names a source.
 */
import type { AnySource, PollTiming } from './source.js';
import type { NodeSourceDef } from './node/source.js';
import type { DataApiSourceDef } from './data-api/source.js';
import type { MetricDef } from '../metrics/metric-defs.js';
import { healthSource } from './node/health/index.js';
import { infoSource } from './node/info/index.js';
import { bootstrappedSource } from './node/bootstrapped/index.js';
import { peersSource } from './node/peers/index.js';
import { uptimeSource } from './node/uptime/index.js';
import { validatorsSource } from './node/validators/index.js';
import { l1UptimeSource } from './node/l1-uptime/index.js';
import { l1HealthSource } from './node/l1-health/index.js';
import { cChainSource, pChainSource, xChainSource } from './node/chain-height/index.js';
import { addressBalancesSource } from './node/address-balances/index.js';
import { nodeIdentitySource } from './node/node-identity/index.js';
import { blockchainStatusSource } from './node/blockchain-status/index.js';
import { nodeVitalsSource } from './node/node-vitals/index.js';
import { dataApiValidatorsSource } from './data-api/validators/index.js';
import { dataApiNodeBlocksSource } from './data-api/node-blocks/index.js';
import { dataApiBlocksSource } from './data-api/blocks/index.js';
import { dataApiAddressBalancesSource } from './data-api/address-balances/index.js';
import { dataApiL1ValidatorsSource } from './data-api/l1-validators/index.js';

/**
 * The node sources, in the order a round runs them after the identity
 * source (`identity: true`, here `info`), which goes first: it checks the
 * network id and teaches the others the node's id and version.
 */
export const NODE_SOURCES: readonly NodeSourceDef<unknown>[] = [
  infoSource,
  healthSource,
  bootstrappedSource,
  peersSource,
  uptimeSource,
  validatorsSource,
  l1UptimeSource,
  l1HealthSource,
  blockchainStatusSource,
  pChainSource,
  xChainSource,
  cChainSource,
  nodeIdentitySource,
  nodeVitalsSource,
];

/**
 * Node sources about what the configuration lists beyond the node itself (the
 * wallets under `addresses`), polled in the same rounds but only on the nodes
 * that answer for a listed address (their `appliesTo`). They are kept out of
 * {@link NODE_SOURCES}, the sources every node is polled for, so that list
 * stays what a plain node reports.
 */
export const CONFIGURED_NODE_SOURCES: readonly NodeSourceDef<unknown>[] = [addressBalancesSource];

/** The Data API sources, in the order a round runs them (and takes its turns under the rate limit). */
export const DATA_API_SOURCES: readonly DataApiSourceDef<unknown>[] = [
  // First: a round spread over minutes to fit the limit then reads the chains' heads before any validator's
  // proposed blocks, so AvaxValidatorProposerDrought never measures a validator's silence up to a head newer
  // than what it knows of the validator's blocks.
  dataApiBlocksSource,
  dataApiValidatorsSource,
  dataApiNodeBlocksSource,
  dataApiAddressBalancesSource,
  // Last: when a round's deadline leaves no room under the rate limit, the newest source waits, not the older ones.
  dataApiL1ValidatorsSource,
];

/** The sources a daemon polls, by family: what `startDaemon` is given (tests and forks add their own). */
export interface SourceCatalog {
  /** Polled on every node (each source's `appliesTo` may leave a node out), in round order. */
  readonly node: readonly NodeSourceDef<unknown>[];
  /** Polled by the Data API's poller when the Data API is on, in round order. */
  readonly dataApi: readonly DataApiSourceDef<unknown>[];
}

/** The product's catalog: every source above. */
export const PRODUCT_CATALOG: SourceCatalog = {
  node: [...NODE_SOURCES, ...CONFIGURED_NODE_SOURCES],
  dataApi: DATA_API_SOURCES,
};

/** Every source of a catalog, node and Data API, seen from its read side. */
export function allSources(catalog: SourceCatalog): readonly AnySource[] {
  return [...catalog.node, ...catalog.dataApi];
}

/** The identity source of a list of node sources: exactly one must be marked. */
export function identityOf(sources: readonly NodeSourceDef<unknown>[]): NodeSourceDef<unknown> {
  const marked = sources.filter((s) => s.identity);
  const [only] = marked;
  if (marked.length !== 1 || only === undefined) throw new Error(`expected one identity source, found ${marked.length}`);
  return only;
}

/** The name of the product's identity source (the one marked `identity`). */
export const IDENTITY_SOURCE: string = identityOf(NODE_SOURCES).name;

/**
 * Every source of a catalog by name, node and Data API alike, the Data API's
 * whether or not it is on (a reload can turn it on). Only their read side
 * (collect, status, changes) is used through this map.
 */
export function sourcesByName(catalog: SourceCatalog): ReadonlyMap<string, AnySource> {
  return new Map(allSources(catalog).map((s) => [s.name, s]));
}

/**
 * Least time between two polls of the sources asked less often than every
 * round (their `minIntervalMs` hook), by source name. Their values stay
 * current that much longer. `sources`: the ones actually polled.
 */
export function sourceMinIntervals(poll: PollTiming, sources: readonly AnySource[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of sources) {
    const ms = s.minIntervalMs?.(poll);
    if (ms !== undefined && ms > 0) out.set(s.name, ms);
  }
  return out;
}

/** The metric definitions that sources outside the product declare (`metrics`), for the renderer. */
export function declaredMetrics(catalog: SourceCatalog): Record<string, MetricDef> {
  const out: Record<string, MetricDef> = {};
  for (const s of allSources(catalog)) Object.assign(out, s.metrics ?? {});
  return out;
}
