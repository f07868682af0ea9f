/**
 * The Data API validators' part of the status page: each watched validator as
 * the Data API sees it (status, uptime against its requirement, time left,
 * reachability, proposed blocks, version).
 */
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import { rewardUptimeThreshold } from '../../../domain/rules.js';
import { timeLeftLevel, uptimeLevel, worstLevel, type Level, type StatusKit } from '../../../status/status-kit.js';
import { currentValidation } from './collect.js';
import type { DataApiValidatorsValue } from './value.js';
import type { ProposerState } from '../node-blocks/value.js';

/**
 * Watched validators as the Data API sees them. `proposers` come from the
 * node-blocks source; `upgradeTime` (the ACP-267 activation, which the Data
 * API does not know) from a node's validators value.
 */
export function dataApiValidatorsSection(
  validators: DataApiValidatorsValue,
  proposers: readonly ProposerState[],
  upgradeTime: number | undefined,
  kit: StatusKit,
  nowMs: number,
): string {
  const rows = validators.nodes.slice(0, kit.maxRows).map((n) => {
    const who = `Data API: validator ${n.nodeId}`;
    const cur = currentValidation(n.validations.filter((x) => x.subnetId === PRIMARY_NETWORK_ID));
    const levels: Level[] = [];
    const cells: string[] = [];
    const add = (field: string, level: Level, text: string, issue: string) => {
      levels.push(kit.judge(level, `${who} ${issue}`));
      cells.push(kit.cell(field, level, text));
    };
    if (!cur) add('da-status', 'crit', 'no validation known', 'has no validation');
    else add('da-status', cur.status === 'active' ? 'ok' : cur.status === 'pending' ? 'warn' : 'crit', cur.status, `validation ${cur.status}`);
    const active = cur?.status === 'active';
    if (active && cur.uptimeRatio !== undefined) {
      const threshold = rewardUptimeThreshold(cur.startTimestamp, upgradeTime);
      add(
        'da-uptime',
        uptimeLevel(cur.uptimeRatio, threshold),
        `${kit.pct(cur.uptimeRatio)} (needs ${kit.pct(threshold)})`,
        `uptime ${kit.pct(cur.uptimeRatio)}`,
      );
    } else cells.push(kit.td(''));
    if (cur && (active || cur.status === 'pending')) {
      const left = cur.endTimestamp - nowMs / 1000;
      add(
        'da-time-left',
        timeLeftLevel(left),
        left > 0 ? `${kit.formatDuration(left)} (ends ${kit.when(cur.endTimestamp)})` : `ended ${kit.when(cur.endTimestamp)}`,
        `validation ends in ${kit.formatDuration(Math.max(0, left))}`,
      );
    } else cells.push(kit.td(''));
    cells.push(kit.td(active && cur.reachabilityRatio !== undefined ? kit.pct(cur.reachabilityRatio) : ''));
    const p = proposers.find((x) => x.nodeId === n.nodeId && x.chain === 'P');
    const last = p?.last ? `; last #${p.last.height} at ${kit.when(p.last.timestampSeconds)}` : '';
    cells.push(kit.td(p ? `${p.count} since ${kit.when(p.sinceSeconds)}${last}` : ''));
    cells.push(kit.td(active ? (cur.version ?? '') : ''));
    return `<tr data-da-validator="${kit.escape(n.nodeId)}">${kit.idCell(n.nodeId)}${kit.cell('da-overall', worstLevel(levels), '')}${cells.join('')}</tr>`;
  });
  const more =
    validators.nodes.length > kit.maxRows
      ? kit.note(`${validators.nodes.length - kit.maxRows} more watched validators are not shown; all are on /metrics.`)
      : '';
  return `<h3>Validators as the Data API sees them (${kit.escape(validators.network)}, primary network)</h3>\n${kit.table(
    'da-validators',
    ['validator', 'status', 'validation', 'uptime', 'time left', 'reachability', 'P-Chain blocks proposed', 'version'],
    rows,
    'no watched validator',
  )}${more}`;
}
