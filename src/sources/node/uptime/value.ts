/** The node's uptime as the network sees it, or the fact that it is not a validator. */
export type UptimeValue = { isValidator: true; rewardingStakeRatio: number; weightedAverageRatio: number } | { isValidator: false };
