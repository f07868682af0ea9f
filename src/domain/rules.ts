/**
 * The domain rules of Avalanche validation, in one pure module: the reward
 * uptime requirement, the downtime budget, an L1 validator's balance runway,
 * which entry of a validator counts when a set lists it twice, and the
 * quantiles of the peers' view. Collectors, the status page and the tests
 * use these and nothing else, so `/metrics`, the status page and the alert
 * rules' recording rules agree on every figure.
 *
 * @packageDocumentation
 */

/** Primary-network reward uptime requirement (80 %). */
export const REWARD_UPTIME_THRESHOLD = 0.8;
/** The requirement for validations that start once the ACP-267 upgrade is active (90 %). */
export const REWARD_UPTIME_THRESHOLD_ACP267 = 0.9;

/** The uptime requirement of a validation that started at `startTime` (Unix s), given the ACP-267 upgrade's activation. */
export function rewardUptimeThreshold(startTime: number, upgradeTime: number | undefined): number {
  return upgradeTime !== undefined && startTime >= upgradeTime ? REWARD_UPTIME_THRESHOLD_ACP267 : REWARD_UPTIME_THRESHOLD;
}

/** What the downtime budget needs of a validation. */
export interface BudgetInput {
  startTime: number;
  endTime: number | undefined;
  uptimeRatio: number | undefined;
}

/**
 * Downtime the validator may still have without losing its reward, in
 * seconds: allowed downtime over the whole period, (1 - threshold) × (end -
 * start), minus the downtime so far, (1 - uptime) × (now - start), with now
 * clamped to the period. Negative: the reward is already lost. The alert
 * rules compute the same from the network's view
 * (avax_validator:downtime_budget_seconds:network).
 */
export function downtimeBudgetSeconds(v: BudgetInput, threshold: number, now: number): number | undefined {
  if (v.endTime === undefined || v.uptimeRatio === undefined || v.endTime <= v.startTime) return undefined;
  const elapsed = Math.min(Math.max(now, v.startTime), v.endTime) - v.startTime;
  return (1 - threshold) * (v.endTime - v.startTime) - (1 - v.uptimeRatio) * elapsed;
}

/**
 * Seconds until an active L1 validator's balance (nAVAX) is used up at the
 * fee price (nAVAX per second); undefined without a price, or for an inactive
 * validator (balance 0), which pays no fee.
 */
export function balanceRunwaySeconds(balanceNavax: bigint, priceNavaxPerSecond: number | undefined): number | undefined {
  if (priceNavaxPerSecond === undefined || priceNavaxPerSecond <= 0 || balanceNavax <= 0n) return undefined;
  return Number(balanceNavax) / priceNavaxPerSecond;
}

/** An L1 validator's balance of 0: the P-Chain deactivated it (vms/platformvm/api/validator.go). */
export function isInactiveL1(v: { validationId: string | undefined; balance: bigint | undefined }): boolean {
  return v.validationId !== undefined && v.balance === 0n;
}

/**
 * The entries that count when a set lists a node more than once (an L1 can
 * list a legacy staker and an L1 validator for the same node): the first of
 * each key, in order.
 */
export function firstOfEach<T>(items: Iterable<T>, key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

/** Nearest-rank quantile of an ascending, non-empty list: the smallest value with at least q of the list at or below it. */
export function nearestRank(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1;
  return sorted[i] ?? NaN;
}

/**
 * The weighted nearest-rank quantiles of some values: sorted by value, each
 * counting its weight; quantile q is the smallest value at which at least q
 * of the total weight has been counted. Undefined without positive weight.
 */
export function weightedNearestRank(
  entries: readonly { value: number; weight: number }[],
  quantiles: readonly number[],
): { quantile: number; value: number }[] | undefined {
  const sorted = entries.filter((e) => e.weight > 0).sort((a, b) => a.value - b.value);
  const total = sorted.reduce((a, e) => a + e.weight, 0);
  if (sorted.length === 0 || total <= 0) return undefined;
  return quantiles.map((quantile) => {
    let acc = 0;
    for (const e of sorted) {
      acc += e.weight;
      if (acc >= quantile * total) return { quantile, value: e.value };
    }
    return { quantile, value: (sorted[sorted.length - 1] as { value: number }).value };
  });
}
