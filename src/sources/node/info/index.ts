import { z } from 'zod';
import { UpstreamError } from '../../../http/errors.js';
import { smallUint } from '../../../http/wire.js';
import { defineNodeSource, SLOW_REFRESH_ROUNDS } from '../source.js';
import { collectInfo } from './collect.js';
import type { Upgrade, InfoValue } from './value.js';
export type { Upgrade, InfoValue } from './value.js';

/** nodeId result schema. */
export const nodeIdResult = z.object({ nodeID: z.string().min(1) });
/** version result schema. */
export const versionResult = z.object({
  version: z.string(),
  databaseVersion: z.string(),
  gitCommit: z.string(),
  rpcProtocolVersion: z.string().optional(),
});
/** networkId result schema. */
export const networkIdResult = z.object({ networkID: smallUint });
/** networkName result schema. */
export const networkNameResult = z.object({ networkName: z.string().min(1) });
/**
 * info.upgrades: times are RFC 3339 strings, a few fields are numbers or ids
 * (upgrade/upgrade.go Config). Each release adds fields, and one may be of
 * another kind (an object, a list): only the `<name>Time` strings are read,
 * so any other value is accepted and ignored rather than failing the source.
 */
export const upgradesResult = z.record(z.string(), z.unknown());

/**
 * The network upgrade that raises the primary-network reward uptime
 * requirement from 80 % to 90 % (ACP-267) for validations that start after
 * it activates: the upgrade after Granite. While `info.upgrades` reports it
 * unscheduled (year 9999) the requirement stays 80 %.
 */
export const REWARD_UPTIME_UPGRADE = 'helicon';

/** Activation time of REWARD_UPTIME_UPGRADE in a parsed schedule, or undefined while unscheduled. Pure. */
export function rewardUptimeUpgradeTime(upgrades: readonly Upgrade[]): number | undefined {
  return upgrades.find((u) => u.name === REWARD_UPTIME_UPGRADE)?.timestampSeconds;
}

/** Years at or past this mean "not scheduled" (AvalancheGo uses 9999-12-01). */
const UNSCHEDULED_YEAR = 9000;

/** Reads the upgrade schedule: every `<name>Time` key with a real date. */
export function parseUpgrades(raw: Readonly<Record<string, unknown>>): Upgrade[] {
  const out: Upgrade[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (!key.endsWith('Time') || typeof value !== 'string') continue;
    const ms = Date.parse(value);
    if (!Number.isFinite(ms) || new Date(ms).getUTCFullYear() >= UNSCHEDULED_YEAR) continue;
    out.push({ name: key.slice(0, -'Time'.length), timestampSeconds: ms / 1000 });
  }
  return out.sort((a, b) => a.timestampSeconds - b.timestampSeconds || (a.name < b.name ? -1 : 1));
}

/**
 * Node identity. The network id is checked every round: a node that suddenly
 * reports another network (a load balancer pointing elsewhere, a reinstalled
 * node) is a failure, not new data. The rest rarely changes and is refreshed
 * every SLOW_REFRESH_ROUNDS rounds.
 */
export const infoSource = defineNodeSource<InfoValue>({
  name: 'info',
  rpcMethods: ['info.getNodeID', 'info.getNetworkID', 'info.getNetworkName', 'info.getNodeVersion', 'info.upgrades'],
  identity: true,
  // What the other sources need to know about the node: its id (watched by default), network (a
  // change is a failure), version (compared with the stake majority) and the ACP-267 activation.
  learn: (v) => ({
    nodeId: v.nodeId,
    networkId: v.networkId,
    networkName: v.networkName,
    version: v.version,
    rewardUptimeUpgradeTime: rewardUptimeUpgradeTime(v.upgrades),
    upgradeTimes: v.upgrades.map((u) => u.timestampSeconds),
  }),
  async poll(ctx, previous) {
    const call = <S extends z.ZodType>(method: string, schema: S) => ctx.rpc.call('/ext/info', method, {}, schema, ctx.deadline);
    const { networkID } = await call('info.getNetworkID', networkIdResult);
    if (ctx.known.networkId !== undefined && ctx.known.networkId !== networkID) {
      throw new UpstreamError(
        'network_mismatch',
        `node reports network id ${networkID}, but it was on network ${ctx.known.networkId}; its data is ignored until it is back (restart the exporter if the change is intended)`,
      );
    }
    if (previous && previous.networkId === networkID && ctx.round % SLOW_REFRESH_ROUNDS !== 0) {
      return previous;
    }
    const [id, version, name, upgrades] = await Promise.all([
      call('info.getNodeID', nodeIdResult),
      call('info.getNodeVersion', versionResult),
      call('info.getNetworkName', networkNameResult),
      call('info.upgrades', upgradesResult),
    ]);
    return {
      nodeId: id.nodeID,
      version: version.version,
      databaseVersion: version.databaseVersion,
      gitCommit: version.gitCommit,
      networkId: networkID,
      networkName: name.networkName,
      upgrades: parseUpgrades(upgrades),
    };
  },
  collect: collectInfo,
});
