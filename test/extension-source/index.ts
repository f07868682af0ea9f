/**
 * An example source, defined the way the extension point promises: one
 * folder (value, collect, status and this definition) plus one catalog
 * line. test/extension.test.ts adds it to the product's catalog and checks
 * that it shows on /metrics, in /-/status and on the status page without any
 * other file knowing it.
 */
import { z } from 'zod';
import { defineNodeSource } from '../../src/sources/node/source.js';
import { collectNodeIp } from './collect.js';
import type { NodeIpValue } from './value.js';

const nodeIpResult = z.object({ ip: z.string() });

/** info.getNodeIP: the address the node advertises to its peers. */
export const nodeIpSource = defineNodeSource<NodeIpValue>({
  name: 'example_node_ip',
  rpcMethods: ['info.getNodeIP'],
  async poll(ctx) {
    return { ip: (await ctx.rpc.call('/ext/info', 'info.getNodeIP', {}, nodeIpResult, ctx.deadline)).ip };
  },
  collect: collectNodeIp,
  metrics: {
    avax_example_node_ip_info: {
      type: 'gauge',
      help: 'Always 1: the public IP and port the node advertises (an example source).',
      labels: ['node', 'ip'],
      source: 'info.getNodeIP',
    },
  },
  status: {
    order: 60,
    badges: (v, kit) => [kit.badge('example-ip', 'ok', `advertises ${v.ip}`)],
    section: (v, kit) => `<h3>Advertised address</h3>\n${kit.note(`The node advertises ${v.ip} to its peers.`)}`,
  },
});
