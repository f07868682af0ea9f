import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import { PRIMARY_NETWORK_ID } from '../src/sources/node/validators/index.js';
import { lookupFailureOf } from '../src/sources/node/validators/validation-lookup.js';
import { RpcError } from '../src/http/json-rpc.js';
import { UpstreamError } from '../src/http/errors.js';
import { perTestResources, scrape, seriesOf, valueOf, waitUntilAllUp } from './helpers/daemon.js';
import { testHandle } from '../src/daemon.js';

/**
 * Point 7 of issue 14 at run time: a valid id the node does not know is state
 * (active 0, found 0), and one bad answer about one id does not blind the
 * other ids of the source.
 */

const SELF = FIXTURE_IDS.nodeId;
const L1 = FIXTURE_IDS.l1SubnetId;
/** Valid ids (checksums right) that the fake node's world does not hold. */
const UNKNOWN_NODE = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const UNKNOWN_SUBNET = '29uVeLPJB1eQJkzRemU8g8wZDw5uJRqpab5U2mX9euieVwiEbL';
const ENDED = '2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS';
/** A second real validation of the fixture L1 (the inactive validator's). */
const OTHER_VALIDATION = 'H7Fjzmi4BY6PA9QaNF9GnuMDojjzZ3mcSu5k1z3R4pD6Exj7c';

const { fakeNode, daemonFor } = perTestResources();

/** What the proxy answers for platform.getL1Validator of one id, instead of the node. */
type Tamper = { kind: 'rpc-error'; message: string } | { kind: 'result'; result: unknown } | { kind: 'status'; status: number };

/**
 * A real HTTP server in front of a fake node that passes every request
 * through, except platform.getL1Validator for the ids in `tamper`: those get
 * the answer given there, as a node whose state is broken for one validation
 * would give it (the fake node's faults are per method, not per argument).
 */
async function tamperingProxy(target: string, tamper: Map<string, Tamper>): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      void (async () => {
        let parsed: { id?: unknown; method?: string; params?: { validationID?: string } } | undefined;
        try {
          parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
        } catch {
          parsed = undefined;
        }
        const t = parsed?.method === 'platform.getL1Validator' ? tamper.get(parsed.params?.validationID ?? '') : undefined;
        if (t?.kind === 'status') {
          res.writeHead(t.status, { 'Content-Type': 'text/plain' }).end('bad gateway\n');
          return;
        }
        if (t) {
          const reply =
            t.kind === 'rpc-error'
              ? { jsonrpc: '2.0', error: { code: -32000, message: t.message, data: null }, id: parsed?.id }
              : { jsonrpc: '2.0', result: t.result, id: parsed?.id };
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
          return;
        }
        const init: RequestInit = { method: req.method ?? 'GET', headers: { 'content-type': req.headers['content-type'] ?? 'application/json' } };
        if (req.method === 'POST') init.body = body;
        const up = await fetch(target + (req.url ?? '/'), init);
        res.writeHead(up.status, { 'Content-Type': up.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await up.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const proxies: { stop: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.stop();
});

describe('a valid id the node does not know is state, not a failure', () => {
  it('node ids: active 0; subnet id: an empty set; validation id: found 0; the source is up and the known ids are exported', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({
      nodes: [
        {
          name: 'fake',
          url: node.url,
          watch: { node_ids: [SELF, UNKNOWN_NODE], subnet_ids: [L1, UNKNOWN_SUBNET], validation_ids: [FIXTURE_IDS.l1ValidationId, ENDED] },
        },
      ],
    });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(1);
    expect(valueOf(text, 'avax_validator_active', { node: 'fake', node_id: SELF, subnet: PRIMARY_NETWORK_ID })).toBe(1);
    expect(valueOf(text, 'avax_validator_active', { node: 'fake', node_id: UNKNOWN_NODE, subnet: PRIMARY_NETWORK_ID })).toBe(0);
    // Absent from the set: only its active 0, nothing that would describe a validation.
    expect(seriesOf(text, 'avax_validator_weight', { node_id: UNKNOWN_NODE })).toEqual([]);
    // The unknown subnet is an empty set (AvalancheGo answers [] for a subnet without validators), the L1 keeps its own:
    // the watched ids are watched there too, so they read active 0 (a validator removed from a watched subnet is not silent).
    const unknownSet = seriesOf(text, 'avax_validator_active', { subnet: UNKNOWN_SUBNET });
    expect(unknownSet.map((x) => x.labels['node_id']).sort()).toEqual([SELF, UNKNOWN_NODE].sort());
    expect(unknownSet.map((x) => x.value)).toEqual([0, 0]);
    expect(seriesOf(text, 'avax_validator_weight', { subnet: UNKNOWN_SUBNET })).toEqual([]);
    expect(valueOf(text, 'avax_exporter_validators_omitted', { node: 'fake', subnet: UNKNOWN_SUBNET })).toBe(0);
    expect(seriesOf(text, 'avax_validator_active', { node: 'fake', subnet: L1 }).length).toBeGreaterThan(0);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: FIXTURE_IDS.l1ValidationId })).toBe(1);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: ENDED })).toBe(0);
    expect(valueOf(text, 'avax_l1_validation_lookup_success', { node: 'fake', validation_id: ENDED })).toBe(1);
  });
});

describe('one bad answer about one validation id never blinds the other ids', () => {
  it.each<[string, Tamper, string]>([
    [
      'a JSON-RPC error other than not found',
      { kind: 'rpc-error', message: 'failed to convert L1 validator to API format: failed unmarshalling remaining balance owner' },
      'rpc_error',
    ],
    [
      'an answer that does not validate',
      { kind: 'result', result: { nodeID: SELF, validationID: OTHER_VALIDATION, subnetID: L1, weight: '-1', startTime: 'soon', balance: null } },
      'invalid_response',
    ],
  ])('%s: that id is unknown (lookup_success 0, no found), the others and the rest of the source stay', async (_, tamper) => {
    const node = await fakeNode();
    const proxy = await tamperingProxy(node.url, new Map([[OTHER_VALIDATION, tamper]]));
    proxies.push(proxy);
    const { daemon } = await daemonFor({
      nodes: [{ name: 'fake', url: proxy.url, watch: { validation_ids: [FIXTURE_IDS.l1ValidationId, OTHER_VALIDATION, ENDED] } }],
    });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(1);
    // The bad one: unknown, not "ended".
    expect(valueOf(text, 'avax_l1_validation_lookup_success', { node: 'fake', validation_id: OTHER_VALIDATION })).toBe(0);
    expect(seriesOf(text, 'avax_l1_validation_found', { validation_id: OTHER_VALIDATION })).toEqual([]);
    expect(seriesOf(text, 'avax_l1_validator_balance_avax', { validation_id: OTHER_VALIDATION })).toEqual([]);
    // The others: as without it.
    expect(valueOf(text, 'avax_l1_validation_lookup_success', { node: 'fake', validation_id: FIXTURE_IDS.l1ValidationId })).toBe(1);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: FIXTURE_IDS.l1ValidationId })).toBe(1);
    expect(valueOf(text, 'avax_l1_validator_balance_avax', { node: 'fake', node_id: SELF, subnet: L1, validation_id: FIXTURE_IDS.l1ValidationId })).toBe(
      8.780477952,
    );
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: ENDED })).toBe(0);
    expect(valueOf(text, 'avax_validator_active', { node: 'fake', node_id: SELF, subnet: PRIMARY_NETWORK_ID })).toBe(1);
  });

  it('without the tampering the same id is found: it was the answer, not the id', async () => {
    const node = await fakeNode();
    const { daemon } = await daemonFor({ nodes: [{ name: 'fake', url: node.url, watch: { validation_ids: [OTHER_VALIDATION] } }] });
    await waitUntilAllUp(daemon);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_l1_validation_found', { node: 'fake', validation_id: OTHER_VALIDATION })).toBe(1);
    expect(
      valueOf(text, 'avax_l1_validator_balance_avax', { node: 'fake', node_id: FIXTURE_IDS.l1InactiveNodeId, subnet: L1, validation_id: OTHER_VALIDATION }),
    ).toBe(0);
  });

  it('a node (or proxy) failing, rather than answering about the id, still fails the source: nothing is made up', async () => {
    const node = await fakeNode();
    const proxy = await tamperingProxy(node.url, new Map([[OTHER_VALIDATION, { kind: 'status', status: 502 }]]));
    proxies.push(proxy);
    const { daemon } = await daemonFor({
      nodes: [{ name: 'fake', url: proxy.url, watch: { validation_ids: [FIXTURE_IDS.l1ValidationId, OTHER_VALIDATION] } }],
    });
    await testHandle(daemon).waitForRounds(1);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'validators' })).toBe(0);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'fake', source: 'validators', reason: 'http_status' })).toBeGreaterThan(0);
  });

  it('classifies: JSON-RPC errors and invalid answers are about the id; transport failures are about the node', () => {
    expect(lookupFailureOf(new RpcError(-32000, 'database closed'))).toBe('rpc_error');
    expect(lookupFailureOf(new UpstreamError('invalid_response', 'weight: expected an unsigned decimal integer string'))).toBe('invalid_response');
    for (const reason of ['timeout', 'connect', 'http_status', 'network_mismatch'] as const)
      expect(lookupFailureOf(new UpstreamError(reason, 'x'))).toBeUndefined();
    expect(lookupFailureOf(new Error('boom'))).toBeUndefined();
  });
});
