import { z } from 'zod';
import { smallUint, smallUintString, uintString } from '../../../http/wire.js';
import { defineNodeSource, SLOW_REFRESH_ROUNDS, type PollContext } from '../source.js';
import { collectPeers } from './collect.js';
import { nearestRank, weightedNearestRank } from '../../../domain/rules.js';
import { compareNodeVersions, parseNodeVersion } from './node-version.js';
import { OBSERVED_UPTIME_QUANTILES } from './collect.js';
import { readStakeEntry } from '../validators/validator-entry.js';
import { readPeerEntry, readPeerEntryBytes } from './peer-entry.js';
import type { StakeMap, StakeAttempt, VersionStake, BenchedPeer, BenchedPeers, WatchedBenched, PeersValue } from './value.js';
export type { StakeAttempt, VersionStake, BenchedPeers, WatchedBenched, PeersValue } from './value.js';

/** One info.peers entry (read by readPeerEntry first, peer-entry.ts, which must give what this gives). */
export const peerSchema = z.object({
  nodeID: z.string(),
  version: z.string(),
  benched: z.array(z.string()).nullable().optional(),
  /** Integer percent 0..100: this node's uptime as that peer observes it ("0" when the peer did not report it). */
  observedUptime: smallUintString.refine((v) => v <= 100, 'percentage outside 0..100').optional(),
  /** The latest upgrade time the peer's version knows (Unix seconds, a JSON number; network/peer/info.go). Optional: older versions omit it, and an odd value drops only this field. */
  upgradeTime: z.number().int().nonnegative().optional().catch(undefined),
});
/** info.peers result. */
export const peersResult = z.object({ numPeers: smallUint, peers: z.array(peerSchema).nullable() });
/** info.peers result around its peer list (read a batch at a time: 2,000 peers are about 0.6 MB). */
const peersRest = z.object({ numPeers: smallUint });

/** One validated info.peers entry. */
export type PeerEntry = z.output<typeof peerSchema>;

/**
 * The part of a platform.getCurrentValidators entry the stake view needs:
 * the validator's own weight and what is delegated to it, both nAVAX decimal
 * strings. Other keys are not read (and not required), so this stays valid
 * for every shape the method returns on the primary network.
 */
export const stakeEntrySchema = z.object({ nodeID: z.string().min(1), weight: uintString, delegatorWeight: uintString.optional() });

/**
 * Most benched peers listed one by one per node. A network-wide benching
 * event (a chain halting, a bad release) can bench hundreds of peers; past
 * this cap they are only counted, so one event cannot multiply the series.
 */
export const MAX_BENCHED_PEERS = 50;

/**
 * Peer-reported values become label values, and a peer can report anything:
 * 20,000 peers with distinct versions made 120,716 series (issue 23). Each
 * such label keeps at most this many values per node (the most common, or
 * the heaviest by stake), the rest summed into {@link OTHER}.
 */
export const MAX_PEER_LABEL_VALUES = 16;

/** The label value that stands for every value folded away (invalid, not defined by the network, or beyond the top ones). */
export const OTHER = 'other';

/** A version string AvalancheGo sends (`avalanchego/1.14.2`; the pre-1.10.18 `avalanche/1.9.0`), short and of safe characters. */
export function validPeerVersion(v: string): boolean {
  return v.length <= 40 && /^[A-Za-z][\w.-]{0,19}\/v?\d{1,4}\.\d{1,4}\.\d{1,4}$/.test(v) && parseNodeVersion(v) !== undefined;
}

/**
 * Upgrade times a node does not know yet, still listed: a newer version's
 * next upgrade is exactly what `avax_node_peers_by_upgrade_time` is there to
 * show before this node learns of it. Only the most common few, and only
 * plausible ones (whole minutes between 2020 and 2100, as every AvalancheGo
 * activation time is).
 */
export const MAX_UNKNOWN_UPGRADE_TIMES = 4;

/** Which reported upgrade times keep their own label value: the network's (the node's info.upgrades) and the few most common plausible others. */
function upgradeTimeKeeper(counts: ReadonlyMap<string, number>, defined: readonly number[] | undefined): ((t: string) => boolean) | undefined {
  if (!defined) return undefined;
  const known = new Set(defined.map(String));
  const plausible = (t: string) => {
    const v = Number(t);
    return v % 60 === 0 && v >= 1_577_836_800 && v < 4_102_444_800;
  };
  const unknown = [...counts]
    .filter(([t]) => !known.has(t) && plausible(t))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_UNKNOWN_UPGRADE_TIMES);
  for (const [t] of unknown) known.add(t);
  return (t) => known.has(t);
}

/**
 * {@link validPeerVersion} for the peers of one answer, each distinct string
 * checked once (2,000 peers run a handful of versions; the check allocates).
 */
function versionCheck(): (v: string) => boolean {
  const seen = new Map<string, boolean>();
  return (v) => {
    let ok = seen.get(v);
    if (ok === undefined) seen.set(v, (ok = validPeerVersion(v)));
    return ok;
  };
}

/** Sorts numbers ascending in place, as `sort((a, b) => a - b)` does, without a call (and its boxed doubles) per comparison. */
function sortNumbers(xs: number[]): void {
  const sorted = Float64Array.from(xs).sort();
  for (let i = 0; i < sorted.length; i++) xs[i] = sorted[i] as number;
}

/** A chain a peer is benched on: the primary aliases or a CB58 blockchain id. */
function validChainId(c: string): boolean {
  return /^(P|X|C)$/.test(c) || /^[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(c);
}

/**
 * Keeps the `max` largest entries (ties by key, so the choice is stable) and
 * sums the rest, and every key `keep` refuses, into {@link OTHER}. Pure.
 */
export function foldTop<V extends number | bigint>(counts: ReadonlyMap<string, V>, max: number, keep: (k: string) => boolean = () => true): Map<string, V> {
  const kept = [...counts].filter(([k]) => k !== OTHER && keep(k));
  kept.sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] > b[1] ? -1 : 1));
  const out = new Map<string, V>(kept.slice(0, max));
  let rest: V | undefined;
  for (const [k, v] of counts) {
    if (out.has(k)) continue;
    rest = rest === undefined ? v : (((rest as number) + (v as number)) as V);
  }
  if (rest !== undefined) out.set(OTHER, rest);
  return out;
}

/** Rounds to wait before asking again after the validator set could not be fetched. */
export const STAKE_RETRY_ROUNDS = 5;

/**
 * Age (rounds) after which a stake map that could not be refreshed is dropped:
 * weights change slowly, so a few missed refreshes do not matter, but an
 * answer from long ago must not pass for today's network.
 */
export const STAKE_MAX_AGE_ROUNDS = 3 * SLOW_REFRESH_ROUNDS;

/** Whether the stake map should be fetched this round. Pure. */
export function stakeRefreshDue(round: number, attempt: StakeAttempt | undefined): boolean {
  if (attempt === undefined) return true;
  // A round number lower than the last attempt's means a new poller (a reload) inherited the value.
  if (round < attempt.round) return true;
  return round - attempt.round >= (attempt.ok ? SLOW_REFRESH_ROUNDS : STAKE_RETRY_ROUNDS);
}

/** Builds nodeID → stake from validated getCurrentValidators entries. Pure. */
export function stakeMapFrom(entries: readonly z.output<typeof stakeEntrySchema>[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const e of entries) out.set(e.nodeID, (out.get(e.nodeID) ?? 0n) + e.weight + (e.delegatorWeight ?? 0n));
  return out;
}

async function fetchStake(ctx: PollContext): Promise<Map<string, bigint>> {
  // No nodeIDs: the whole primary-network set (the validators source asks only for watched ids unless --watch.all-validators).
  // Read a batch at a time (mainnet's set is several MB); with --watch.all-validators the round's
  // client makes this the same upstream call as the validators source's.
  // Entries go through the hand-written reader first, the schema only when it is unsure (see validator-entry.ts).
  const spec = { key: 'validators', item: stakeEntrySchema, fast: readStakeEntry };
  return stakeMapFrom((await ctx.rpc.callWithArray('/ext/bc/P', 'platform.getCurrentValidators', {}, spec, ctx.deadline)).items);
}

/**
 * The stake map of the node's network, fetched by whichever node of that
 * network asks first and shared with the others while it is fresh (every node
 * would download and hold the same several-MB set otherwise); the node's own
 * fetch while its network is not known yet.
 */
function sharedStake(ctx: PollContext): Promise<Map<string, bigint>> {
  const networkId = ctx.known.networkId;
  if (!ctx.network || networkId === undefined) return fetchStake(ctx);
  return ctx.network.get(`stake/${networkId}`, () => fetchStake(ctx));
}

/**
 * info.peers every round, reduced to counts (the peer list itself is large
 * and churns), plus what the primary-network validator set adds: each
 * version's share of the connected stake, and the benched peers ranked by
 * stake. The validator set is fetched only every SLOW_REFRESH_ROUNDS rounds
 * (stake moves slowly, and the full set is large) and kept in the value.
 * Its failure does not fail the source: the peer counts matter most while a
 * node bootstraps, exactly when the P-Chain API answers 503. The old map is
 * then kept for up to STAKE_MAX_AGE_ROUNDS and the fetch retried sooner.
 */
/**
 * info.peers answers from this size on are parsed a batch of peers at a time
 * (as the validator set is), not whole. Parsed whole, mainnet's 0.6 MB became
 * ~3.5 MB of objects at once, alive across the yields between the batches that
 * read them: young-generation collections in between copied them and promoted
 * them to the old generation, which a fleet's nodes (one info.peers a second
 * at 60 nodes, 17 at 1,000) then filled with dead answers. A batch's objects
 * die young, once read into the small entries kept.
 */
const PEERS_SPLIT_MIN_BYTES = 128 * 1024;

export const peersSource = defineNodeSource<PeersValue>({
  name: 'peers',
  rpcMethods: ['info.peers', 'platform.getCurrentValidators'],
  // info.peers is the heaviest answer a node gives (0.6 MB on mainnet) for figures that move over minutes.
  minIntervalMs: (poll) => poll.peersIntervalMs,
  async poll(ctx, previous) {
    const due = stakeRefreshDue(ctx.round, previous?.stakeAttempt);
    const [result, fetched] = await Promise.all([
      ctx.rpc
        .callWithArray(
          '/ext/info',
          'info.peers',
          {},
          { key: 'peers', item: peerSchema, rest: peersRest, fast: readPeerEntry, fastBytes: readPeerEntryBytes, splitMinBytes: PEERS_SPLIT_MIN_BYTES },
          ctx.deadline,
        )
        .then((r) => ({ numPeers: r.rest.numPeers, peers: r.items })),
      // A failed fetch is an absent map, not a failed source (see above).
      due ? sharedStake(ctx).catch(() => undefined) : Promise.resolve(undefined),
    ]);
    const value = peersValueFrom(result, ctx.known.upgradeTimes);
    let stake: StakeMap | undefined = fetched ? { byNodeId: fetched, fetchedRound: ctx.round } : previous?.stake;
    if (stake && (ctx.round < stake.fetchedRound || ctx.round - stake.fetchedRound > STAKE_MAX_AGE_ROUNDS)) stake = undefined;
    const attempt = due ? { round: ctx.round, ok: fetched !== undefined } : previous?.stakeAttempt;
    if (stake) value.stake = stake;
    if (attempt) value.stakeAttempt = attempt;
    const peers = result.peers ?? [];
    value.benched = benchedPeersFrom(peers, new Set(ctx.node.watch.nodeIds), stake?.byNodeId, MAX_BENCHED_PEERS, new Set(Object.keys(value.benchedByChain)));
    value.benchedWatched = watchedBenchedFrom(
      peers,
      ctx.node.watch.nodeIds.filter((id) => id !== ctx.known.nodeId),
    );
    const self = ctx.known.nodeId !== undefined && ctx.known.version !== undefined ? { nodeId: ctx.known.nodeId, version: ctx.known.version } : undefined;
    const versionStake = stake ? versionStakeFrom(peers, stake.byNodeId, self) : undefined;
    if (versionStake) value.versionStake = versionStake;
    // The watched ids as the validators source reads them: the configured ones, else the node's own.
    const watched = ctx.node.watch.nodeIds.length > 0 ? ctx.node.watch.nodeIds : ctx.known.nodeId ? [ctx.known.nodeId] : [];
    if (stake) value.stakeShares = stakeSharesOf(watched, stake.byNodeId);
    const byStake = stake ? stakeWeightedObservedUptime(peers, stake.byNodeId, OBSERVED_UPTIME_QUANTILES) : undefined;
    if (byStake) value.observedUptimeByStake = byStake;
    return value;
  },
  collect: collectPeers,
});

/**
 * Each watched id's share of the primary validator set's total weight (own +
 * delegated, as the set is weighed for proposer selection: the proposervm
 * draws proposers by weight); 0 for an id not in the set, none when the set
 * weighs nothing. Pure.
 */
export function stakeSharesOf(watched: readonly string[], stakeByNodeId: ReadonlyMap<string, bigint>): { nodeId: string; ratio: number }[] {
  let total = 0n;
  for (const w of stakeByNodeId.values()) total += w;
  if (total === 0n) return [];
  // Both fit a double to 15+ significant digits (mainnet's total is ~2.6e17 nAVAX): the ratio keeps them.
  return [...new Set(watched)].map((nodeId) => ({ nodeId, ratio: Number(stakeByNodeId.get(nodeId) ?? 0n) / Number(total) }));
}

/**
 * The stake-weighted nearest-rank quantiles of this node's uptime as the
 * validator peers observe it: peers sorted by the uptime they report, each
 * weighing its stake (own + delegated); quantile q is the smallest uptime at
 * which at least q of that stake has been counted. This is how the network
 * decides rewards (uptime as seen by stake), so it is the distribution that
 * matters. Peers that are not validators or have not reported count nothing.
 * Undefined when no such peer has stake. Pure.
 */
export function stakeWeightedObservedUptime(
  peers: readonly Pick<PeerEntry, 'nodeID' | 'observedUptime'>[],
  stakeByNodeId: ReadonlyMap<string, bigint>,
  quantiles: readonly number[],
): { quantile: number; ratio: number }[] | undefined {
  const entries: { value: number; weight: number }[] = [];
  for (const p of peers) {
    const s = stakeByNodeId.get(p.nodeID);
    if (p.observedUptime === undefined || s === undefined || s === 0n) continue;
    // Number() of nAVAX loses only digits far below what a weight share needs.
    entries.push({ value: p.observedUptime / 100, weight: Number(s) });
  }
  return weightedNearestRank(entries, quantiles)?.map((q) => ({ quantile: q.quantile, ratio: q.value }));
}

/**
 * Reduces a validated info.peers result to counts, each label bounded:
 * versions that are not AvalancheGo version strings, and beyond the
 * {@link MAX_PEER_LABEL_VALUES} most common, count under {@link OTHER}; so do
 * upgrade times the network does not define (`upgradeTimes`: the activation
 * times of the node's own info.upgrades, plus the
 * {@link MAX_UNKNOWN_UPGRADE_TIMES} most common plausible others; while those
 * are not known, the most common times), and benched chains that are not
 * chain ids or beyond the most common. Pure.
 */
export function peersValueFrom(r: z.output<typeof peersResult>, upgradeTimes?: readonly number[]): PeersValue {
  const versions = new Map<string, number>();
  const chains = new Map<string, number>();
  // By number first: 2,000 peers report a handful of times, each turned into its key once.
  const timesByNumber = new Map<number, number>();
  const observedUptimes: number[] = [];
  const add = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  const valid = versionCheck();
  for (const p of r.peers ?? []) {
    add(versions, valid(p.version) ? p.version : OTHER);
    if (p.upgradeTime !== undefined) add(timesByNumber, p.upgradeTime);
    const benched = p.benched;
    // Most peers are benched nowhere: no set to make for them.
    if (benched && benched.length > 0) for (const chain of benched.length === 1 ? benched : new Set(benched)) add(chains, validChainId(chain) ? chain : OTHER);
    if (p.observedUptime !== undefined) observedUptimes.push(p.observedUptime / 100);
  }
  const times = new Map<string, number>();
  for (const [t, n] of timesByNumber) times.set(String(t), n);
  sortNumbers(observedUptimes);
  const value: PeersValue = {
    numPeers: r.numPeers,
    byVersion: Object.fromEntries(foldTop(versions, MAX_PEER_LABEL_VALUES)),
    benchedByChain: Object.fromEntries(foldTop(chains, MAX_PEER_LABEL_VALUES)),
    byUpgradeTime: Object.fromEntries(foldTop(times, MAX_PEER_LABEL_VALUES, upgradeTimeKeeper(times, upgradeTimes))),
  };
  if (observedUptimes.length > 0) value.observedUptimeByPeers = OBSERVED_UPTIME_QUANTILES.map((q) => ({ quantile: q, ratio: nearestRank(observedUptimes, q) }));
  return value;
}

/**
 * The benched peers, at most `max`: watched ids first (an operator's own
 * validators matter most), then the heaviest stake, then by node id, so the
 * same peers stay listed from one poll to the next. Pure.
 */
export function benchedPeersFrom(
  peers: readonly Pick<PeerEntry, 'nodeID' | 'benched'>[],
  watched: ReadonlySet<string>,
  stake: ReadonlyMap<string, bigint> | undefined,
  max = MAX_BENCHED_PEERS,
  keptChains?: ReadonlySet<string>,
): BenchedPeers {
  const all: BenchedPeer[] = [];
  for (const p of peers) {
    if (!p.benched || p.benched.length === 0) continue;
    // Invalid chain ids and chains beyond the node's kept ones (see peersValueFrom) show as `other`, once.
    const chains = [...new Set(p.benched.map((c) => (validChainId(c) && (keptChains?.has(c) ?? true) ? c : OTHER)))].sort();
    if (chains.length > 0) all.push({ nodeId: p.nodeID, chains: chains.slice(0, MAX_PEER_LABEL_VALUES + 1) });
  }
  if (all.length > max) {
    all.sort((a, b) => {
      const w = Number(watched.has(b.nodeId)) - Number(watched.has(a.nodeId));
      if (w !== 0) return w;
      const sa = stake?.get(a.nodeId) ?? 0n;
      const sb = stake?.get(b.nodeId) ?? 0n;
      if (sa !== sb) return sa > sb ? -1 : 1;
      return a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0;
    });
  }
  return { peers: all.slice(0, max), omitted: Math.max(0, all.length - max) };
}

/**
 * For each watched id, the number of chains this node benches it on; 0 when
 * none or when it is not a connected peer, so an alert has a series to hold
 * its `for:` on and a dashboard shows the all-clear. Pure.
 */
export function watchedBenchedFrom(peers: readonly Pick<PeerEntry, 'nodeID' | 'benched'>[], watched: readonly string[]): WatchedBenched[] {
  const ids = [...new Set(watched)];
  if (ids.length === 0) return [];
  const want = new Set(ids);
  // Only the watched ids' entries (the last one of a repeated id counts); the other peers are not looked at twice.
  const chainsById = new Map<string, number>();
  for (const p of peers) if (want.has(p.nodeID)) chainsById.set(p.nodeID, new Set(p.benched ?? []).size);
  return ids.map((nodeId) => ({ nodeId, chains: chainsById.get(nodeId) ?? 0 }));
}

/**
 * Splits the connected stake over node versions: every connected peer that
 * is a primary-network validator counts with its stake (own + delegated) under
 * the version it reports; so does the node itself when it is a validator and
 * its version is known, because AvalancheGo counts a node as connected to
 * itself (its stake is part of the percentConnected of its chain checks).
 * Undefined when no connected stake is known. The majority is the version
 * with the most stake; ties go to the newer version, so a tie never makes a
 * node look up to date when half the stake is ahead of it. Pure.
 */
export function versionStakeFrom(
  peers: readonly Pick<PeerEntry, 'nodeID' | 'version'>[],
  stakeByNodeId: ReadonlyMap<string, bigint>,
  self: { nodeId: string; version: string } | undefined,
): VersionStake | undefined {
  const byVersion = new Map<string, bigint>();
  const counted = new Set<string>();
  let total = 0n;
  const add = (nodeId: string, version: string) => {
    const s = stakeByNodeId.get(nodeId);
    if (s === undefined || s === 0n || counted.has(nodeId)) return;
    counted.add(nodeId);
    byVersion.set(version, (byVersion.get(version) ?? 0n) + s);
    total += s;
  };
  // A version that is not a version string counts under `other` (a label value, like the others).
  const valid = versionCheck();
  for (const p of peers) add(p.nodeID, valid(p.version) ? p.version : OTHER);
  if (self) add(self.nodeId, self.version);
  if (total === 0n) return undefined;
  let majority: [string, bigint] | undefined;
  for (const entry of byVersion) {
    if (!majority || entry[1] > majority[1] || (entry[1] === majority[1] && newer(entry[0], majority[0]))) majority = entry;
  }
  if (!majority) return undefined;
  const ratioByVersion: Record<string, number> = {};
  // The heaviest versions by stake, the rest under `other`. Number() of a nAVAX sum loses only digits far below the ratio's precision.
  for (const [version, s] of foldTop(byVersion, MAX_PEER_LABEL_VALUES)) ratioByVersion[version] = Number(s) / Number(total);
  const out: VersionStake = { ratioByVersion, majorityVersion: majority[0] };
  const cmp = self ? compareNodeVersions(self.version, majority[0]) : undefined;
  if (cmp !== undefined) out.behindMajority = cmp < 0;
  return out;
}

/** Tie-break order: the newer version, or the larger string when versions cannot be read or are equal. */
function newer(a: string, b: string): boolean {
  const cmp = compareNodeVersions(a, b);
  return cmp !== undefined && cmp !== 0 ? cmp > 0 : a > b;
}
