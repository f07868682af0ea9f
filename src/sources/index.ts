/**
 * The registry: every node source, one line each. Nothing else in the
 * exporter names a source; the scheduler, the state store, the exposition and
 * the status page work through each definition's hooks (see SourceDef).
 */
import type { PollTiming, SourceDef } from './source.js';
import { healthSource } from './health/index.js';
import { infoSource } from './info/index.js';
import { bootstrappedSource } from './bootstrapped/index.js';
import { peersSource } from './peers/index.js';
import { uptimeSource } from './uptime/index.js';
import { validatorsSource } from './validators/index.js';
import { l1UptimeSource } from './l1-uptime/index.js';
import { l1HealthSource } from './l1-health/index.js';
import { cChainSource, pChainSource, xChainSource } from './chain-height/index.js';
import { addressBalancesSource } from './address-balances/index.js';
import { nodeIdentitySource } from './node-identity/index.js';
import { blockchainStatusSource } from './blockchain-status/index.js';
import { nodeVitalsSource } from './node-vitals/index.js';

/**
 * The node sources, in the order a round runs them after the identity
 * source (`identity: true`, here `info`), which goes first: it checks the
 * network id and teaches the others the node's id and version.
 */
export const NODE_SOURCES: readonly SourceDef<unknown>[] = [
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
] as SourceDef<unknown>[];

/** The name of the source that identifies the node (the one marked `identity`). */
export const IDENTITY_SOURCE: string = identityOf(NODE_SOURCES).name;

/**
 * Node sources about what the configuration lists beyond the node itself (the
 * wallets under `addresses`), polled in the same rounds but only on the nodes
 * that answer for a listed address. They are kept out of
 * {@link NODE_SOURCES}, the sources every node is polled for, so that list
 * stays what a plain node reports.
 */
export const CONFIGURED_NODE_SOURCES: readonly SourceDef<unknown>[] = [addressBalancesSource] as SourceDef<unknown>[];

/** The identity source of a list of sources: exactly one must be marked. */
export function identityOf(sources: readonly SourceDef<unknown>[]): SourceDef<unknown> {
  const marked = sources.filter((s) => s.identity);
  if (marked.length !== 1) throw new Error(`expected one identity source, found ${marked.length}`);
  return marked[0] as SourceDef<unknown>;
}

/**
 * Least time between two polls of the sources asked less often than every
 * round (their `minIntervalMs` hook), by source name. Their values stay
 * current that much longer.
 */
export function sourceMinIntervals(poll: PollTiming, sources: readonly SourceDef<unknown>[] = NODE_SOURCES): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of sources) {
    const ms = s.minIntervalMs?.(poll);
    if (ms !== undefined && ms > 0) out.set(s.name, ms);
  }
  return out;
}
