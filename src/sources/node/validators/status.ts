import { balanceRunwaySeconds, downtimeBudgetSeconds, firstOfEach, rewardUptimeThreshold } from '../../../domain/rules.js';
import { navaxToAvax } from '../../../http/wire.js';
import {
  downtimeBudgetLevel,
  l1BalanceLevel,
  l1RunwayLevel,
  timeLeftLevel,
  uptimeLevel,
  worstLevel,
  type Level,
  type StatusKit,
} from '../../../status/status-kit.js';
import { PRIMARY_NETWORK_ID } from '../../../domain/ids.js';
import type { StatusSection } from '../../source.js';
import { l1UptimeSource } from '../l1-uptime/index.js';
import type { L1UptimeValue } from '../l1-uptime/value.js';
import type { SubnetValidators, ValidatorRecord, ValidatorsValue } from './value.js';

function primaryRow(kit: StatusKit, id: string, r: ValidatorRecord | undefined, v: ValidatorsValue, nowMs: number): string {
  const attrs = `data-validator="${kit.escape(id)}" data-subnet="${PRIMARY_NETWORK_ID}"`;
  if (!r && v.operatorWatched?.ownIdByDefault === true) {
    // The node's own id, watched by default, is the operator's validator only while it validates, as for
    // avax_validator_watched (collect.ts): an RPC or partial-sync node is not a validator that left the set.
    return `<tr ${attrs}>${kit.idCell(id)}${kit.cell('status', 'none', '')}<td colspan="5">not a primary-network validator: this node's own id is judged only while it validates</td></tr>`;
  }
  if (!r) {
    kit.judge('crit', `validator ${id} not in the current validator set`);
    return `<tr ${attrs}>${kit.idCell(id)}${kit.cell('status', 'crit', '')}<td colspan="5">not in this node's current validator set: the validation ended or was never registered</td></tr>`;
  }
  // The same requirement and budget as avax_validator_reward_uptime_threshold_ratio and avax_validator_downtime_budget_seconds.
  const threshold = rewardUptimeThreshold(r.startTime, v.rewardUptimeUpgradeTime);
  const budget = v.observedAt === undefined ? undefined : downtimeBudgetSeconds(r, threshold, v.observedAt);
  const cells: string[] = [];
  const levels: Level[] = [];
  const add = (field: string, level: Level, text: string, issue: string) => {
    levels.push(kit.judge(level, `validator ${id} ${issue}`));
    cells.push(kit.cell(field, level, text));
  };
  if (r.uptimeRatio === undefined) add('uptime', 'none', 'not reported', '');
  else add('uptime', uptimeLevel(r.uptimeRatio, threshold), kit.pct(r.uptimeRatio), `uptime ${kit.pct(r.uptimeRatio)} (needs ${kit.pct(threshold)})`);
  cells.push(kit.td(kit.pct(threshold)));
  if (budget === undefined) add('budget', 'none', 'unknown', '');
  else if (budget <= 0) add('budget', downtimeBudgetLevel(budget), `reward lost (over by ${kit.formatDuration(budget)})`, 'downtime budget used up');
  else add('budget', downtimeBudgetLevel(budget), kit.formatDuration(budget), `downtime budget ${kit.formatDuration(budget)}`);
  if (r.endTime === undefined) add('time-left', 'none', 'no end time', '');
  else {
    const left = r.endTime - nowMs / 1000;
    add(
      'time-left',
      timeLeftLevel(left, r.nextPeriod !== undefined && r.nextPeriod > 0),
      left > 0 ? `${kit.formatDuration(left)} (ends ${kit.when(r.endTime)})` : `ended ${kit.when(r.endTime)}`,
      `validation ends in ${kit.formatDuration(Math.max(0, left))}`,
    );
  }
  if (r.connected === undefined) add('connected', 'none', 'unknown', '');
  else add('connected', r.connected ? 'ok' : 'crit', r.connected ? 'yes' : 'no', 'not connected');
  return `<tr ${attrs}>${kit.idCell(id)}${kit.cell('status', worstLevel(levels), '')}${cells.join('')}</tr>`;
}

function primarySection(kit: StatusKit, s: SubnetValidators, v: ValidatorsValue, nowMs: number): string {
  // As in the collector, the first entry of a node id wins.
  const byId = new Map(firstOfEach(s.validators, (r) => r.nodeId).map((r) => [r.nodeId, r]));
  const watched = [...new Set(s.watched)];
  const rows = watched.slice(0, kit.maxRows).map((id) => primaryRow(kit, id, byId.get(id), v, nowMs));
  const watchedSet = new Set(watched);
  const others = [...byId.keys()].filter((id) => !watchedSet.has(id)).length;
  const notes: string[] = [];
  if (watched.length > kit.maxRows) notes.push(`${watched.length - kit.maxRows} more watched validators are not shown; all are on /metrics.`);
  if (others > 0) notes.push(`${others} other validators of the primary network (--watch.all-validators) are not shown here; they are on /metrics.`);
  if (s.omitted > 0) notes.push(`${s.omitted} validators over --watch.max-validators are neither shown nor exported.`);
  return `<h3>Watched validators (primary network, as this node sees them)</h3>\n${kit.table(
    'validators',
    ['validator', 'status', 'uptime', 'reward requirement', 'downtime budget left', 'time left', 'connected'],
    rows,
    'no watched validator',
  )}${notes.map(kit.note).join('')}`;
}

function l1Section(kit: StatusKit, s: SubnetValidators, watched: ReadonlySet<string>, price: number | undefined, l1: L1UptimeValue | undefined): string {
  const l1Validators = firstOfEach(
    s.validators.filter((r) => r.validationId !== undefined && r.balance !== undefined),
    (r) => r.validationId ?? '',
  );
  if (l1Validators.length === 0) return '';
  // Watched ids first, then the active ones by balance (with one fee price for all, the shortest runway first), inactive last.
  const rank = (r: ValidatorRecord) => (watched.has(r.nodeId) ? 0 : (r.balance ?? 0n) > 0n ? 1 : 2);
  const ordered = [...l1Validators].sort(
    (x, y) => rank(x) - rank(y) || ((x.balance ?? 0n) < (y.balance ?? 0n) ? -1 : (x.balance ?? 0n) > (y.balance ?? 0n) ? 1 : 0),
  );
  const uptimes = new Map((l1?.chains ?? []).filter((c) => c.subnetId === s.subnetId).flatMap((c) => c.validators.map((u) => [u.validationId, u] as const)));
  const rows = ordered.slice(0, kit.maxRows).map((r) => {
    const balance = navaxToAvax(r.balance ?? 0n);
    const who = `L1 validator ${r.nodeId}`;
    const balanceLevel = kit.judge(l1BalanceLevel(balance), `${who} balance ${kit.avax(balance)}`);
    const runway = balanceRunwaySeconds(r.balance ?? 0n, price);
    let runwayCell: string;
    let runwayLevel: Level = 'none';
    if (balance === 0) runwayCell = kit.cell('runway', 'none', 'inactive: pays no fee');
    else if (runway === undefined) runwayCell = kit.cell('runway', 'none', 'unknown (no fee price)');
    else {
      runwayLevel = kit.judge(l1RunwayLevel(runway), `${who} balance runway ${kit.days(runway)}`);
      runwayCell = kit.cell('runway', runwayLevel, kit.days(runway));
    }
    const u = r.validationId === undefined ? undefined : uptimes.get(r.validationId);
    const uptime = u ? `${kit.pct(u.uptimeRatio)}, ${u.connected ? 'connected' : 'not connected'}` : '';
    return `<tr data-l1-validation="${kit.escape(r.validationId ?? '')}" data-validator="${kit.escape(r.nodeId)}">${kit.idCell(r.nodeId)}${kit.idCell(r.validationId ?? '')}${kit.cell('status', worstLevel([balanceLevel, runwayLevel]), '')}${kit.cell('balance', balanceLevel, kit.avax(balance))}${runwayCell}${kit.td(uptime)}</tr>`;
  });
  const more = ordered.length > kit.maxRows ? kit.note(`${ordered.length - kit.maxRows} more validators of this L1 are not shown; all are on /metrics.`) : '';
  const priceNote = price === undefined ? '' : kit.note(`Fee price ${price} nAVAX per second per active L1 validator.`);
  return `<h3>L1 validators of <code>${kit.escape(s.subnetId)}</code></h3>\n${kit.table(
    'l1-validators',
    ['validator', 'validation id', 'status', 'balance', 'balance runway', 'L1 uptime'],
    rows,
    '',
  )}${more}${s.omitted > 0 ? kit.note(`${s.omitted} validators over --watch.max-validators are neither shown nor exported.`) : ''}${priceNote}`;
}

/** Watched primary-network validators, then each watched L1's validators with their balance runway. */
export const validatorsStatus: StatusSection<ValidatorsValue> = {
  order: 30,
  section(v, kit, view) {
    const primary = v.subnets.find((s) => s.subnetId === PRIMARY_NETWORK_ID);
    const watched = new Set(primary?.watched ?? []);
    const l1 = view.valueOf(l1UptimeSource);
    const out: string[] = [];
    if (primary) out.push(primarySection(kit, primary, v, view.nowMs));
    for (const s of v.subnets) if (s !== primary) out.push(l1Section(kit, s, watched, v.feePriceNavaxPerSecond, l1));
    return out.filter(Boolean).join('\n');
  },
};
