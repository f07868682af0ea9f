import type { Sample } from '../../../metrics/metric-defs.js';
import type { InfoValue } from './value.js';
import { sample } from '../../sample.js';

/** Node identity and upgrade schedule → samples. */
export function collectInfo(v: InfoValue, node: string): Sample[] {
  const out: Sample[] = [
    sample(
      'avax_node_info',
      { node, node_id: v.nodeId, version: v.version, network: v.networkName, database_version: v.databaseVersion, git_commit: v.gitCommit },
      1,
    ),
    sample('avax_node_network_id', { node }, v.networkId),
  ];
  for (const u of v.upgrades) out.push(sample('avax_node_upgrade_timestamp_seconds', { node, upgrade: u.name }, u.timestampSeconds));
  return out;
}
