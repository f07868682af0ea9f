import type { MetricName, Sample } from '../../src/metrics/metric-defs.js';
import type { NodeIpValue } from './value.js';

/**
 * The example's metric is declared by the source itself (`metrics` in
 * index.ts), outside the product's contract, whose names the Sample type
 * lists: hence the cast.
 */
export const NODE_IP_METRIC = 'avax_example_node_ip_info' as MetricName;

/** The advertised address → one info series. Pure. */
export function collectNodeIp(v: NodeIpValue, node: string): Sample[] {
  return [{ name: NODE_IP_METRIC, labels: { node, ip: v.ip }, value: 1 }];
}
