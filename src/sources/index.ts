import type { SourceDef } from './source.js';
import { healthSource } from './health.js';
import { infoSource } from './info.js';
import { bootstrappedSource } from './bootstrapped.js';
import { peersSource } from './peers.js';
import { uptimeSource } from './uptime.js';
import { validatorsSource } from './validators.js';
import { l1UptimeSource } from './l1-uptime.js';
import { cChainSource, pChainSource, xChainSource } from './chain-height.js';

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
