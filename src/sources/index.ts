import type { SourceDef } from './source.js';
import { healthSource } from './health/index.js';
import { infoSource } from './info/index.js';
import { bootstrappedSource } from './bootstrapped/index.js';
import { peersSource } from './peers/index.js';
import { uptimeSource } from './uptime/index.js';
import { validatorsSource } from './validators/index.js';
import { l1UptimeSource } from './l1-uptime/index.js';
import { cChainSource, pChainSource, xChainSource } from './chain-height/index.js';
import { addressBalancesSource } from './address-balances/index.js';

/**
 * The node sources, in the order a round runs them after `info` (which goes
 * first because it checks the network id and learns the node id). Adding a
 * source is one file plus one entry here.
 */
export const NODE_SOURCES: readonly SourceDef<unknown>[] = [
  infoSource,
  healthSource,
  bootstrappedSource,
  peersSource,
  uptimeSource,
  validatorsSource,
  l1UptimeSource,
  pChainSource,
  xChainSource,
  cChainSource,
] as SourceDef<unknown>[];

/** The source that identifies the node; it runs first in every round. */
export const IDENTITY_SOURCE = infoSource.name;

/**
 * Node sources about what the configuration lists beyond the node itself (the
 * wallets under `addresses`), polled in the same rounds but only on the nodes
 * that answer for a listed address. They are kept out of
 * {@link NODE_SOURCES}, the sources every node is polled for, so that list
 * stays what a plain node reports.
 */
export const CONFIGURED_NODE_SOURCES: readonly SourceDef<unknown>[] = [addressBalancesSource] as SourceDef<unknown>[];

/**
 * Least time between two polls of the sources asked less often than every
 * round, by source name: info.peers (see Config.poll.peersIntervalMs). Their
 * values stay current that much longer.
 */
export function sourceMinIntervals(poll: { peersIntervalMs: number }): Map<string, number> {
  return new Map([[peersSource.name, poll.peersIntervalMs]]);
}
