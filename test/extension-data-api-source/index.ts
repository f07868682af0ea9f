/**
 * An example Data API source, defined the way the extension point promises:
 * one folder (value, collect, status and this definition) plus one catalog
 * line. test/extension.test.ts adds it to the product's catalog and checks
 * that it shows on /metrics, in /-/status and on the status page without any
 * other file knowing it.
 */
import { z } from 'zod';
import { defineDataApiSource } from '../../src/sources/data-api/source.js';
import { collectValidationCount } from './collect.js';
import type { ValidationCountValue } from './value.js';

/** Only the field counted is read; the rest of each item is ignored. */
const validationItem = z.object({ txHash: z.string() });

/** `GET /v1/networks/{network}/validators/{nodeId}`: how many validations the service lists for each watched node id. */
export const validationCountSource = defineDataApiSource<ValidationCountValue>({
  name: 'example_data_api_validations',
  requestsPerPoll: (asked) => asked.nodeIds,
  async poll(ctx) {
    const counts = await Promise.all(
      ctx.nodeIds.map(async (nodeId) => {
        const path = `/v1/networks/${ctx.network}/validators/${encodeURIComponent(nodeId)}`;
        const listing = await ctx.client.list(path, {}, 'validators', validationItem, ctx.deadline, { maxPages: ctx.maxPages });
        return { nodeId, validations: listing.items.length };
      }),
    );
    return { network: ctx.network, counts };
  },
  collect: collectValidationCount,
  metrics: {
    avax_example_data_api_validations: {
      type: 'gauge',
      help: 'Validations the Data API lists for a watched node id (an example source).',
      labels: ['network', 'node_id'],
      source: 'Data API GET /v1/networks/{network}/validators/{nodeId}',
    },
  },
  status: {
    order: 70,
    badges: (v, kit) => [kit.badge('example-validations', 'ok', `${v.counts.length} node ids counted`)],
    section: (v, kit) => `<h3>Validations the Data API lists</h3>\n${kit.note(v.counts.map((c) => `${c.nodeId}: ${c.validations} validations`).join('; '))}`,
  },
});
