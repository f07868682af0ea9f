import type { MetricName, Sample } from '../../../metrics/metric-defs.js';
import type { NodeVitalsValue } from './value.js';
import { sample } from '../../sample.js';

/**
 * The node's vitals → samples: one sample per value the node sent, none for
 * a value it did not (a missing reading is not a zero).
 */
export function collectNodeVitals(v: NodeVitalsValue, node: string): Sample[] {
  const out: Sample[] = [];
  const put = (name: MetricName, labels: Record<string, string>, value: number | undefined) => {
    if (value !== undefined) out.push(sample(name, labels, value));
  };
  const n = { node };
  put('avax_node_disk_available_bytes', n, v.disk?.availableBytes);
  put('avax_node_disk_available_ratio', n, v.disk?.availableRatio);
  put('avax_node_network_connected_peers', n, v.network?.connectedPeers);
  put('avax_node_network_send_fail_ratio', n, v.network?.sendFailRatio);
  put('avax_node_network_last_message_received_age_seconds', n, v.network?.lastReceivedAgeSeconds);
  put('avax_node_network_last_message_sent_age_seconds', n, v.network?.lastSentAgeSeconds);
  put('avax_node_network_ingress_connections', n, v.network?.ingressConnections);
  put('avax_node_router_outstanding_requests', n, v.router?.outstandingRequests);
  put('avax_node_router_longest_running_request_seconds', n, v.router?.longestRunningRequestSeconds);
  put('avax_node_bootstrapping_subnets', n, v.bootstrappingSubnets);
  for (const c of v.chains) {
    const labels = { node, chain: c.chain };
    put('avax_node_chain_processing_blocks', labels, c.processingBlocks);
    put('avax_node_chain_longest_processing_block_seconds', labels, c.longestProcessingSeconds);
    put('avax_node_chain_last_accepted_height', labels, c.lastAcceptedHeight);
  }
  return out;
}
