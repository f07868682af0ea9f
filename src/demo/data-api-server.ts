/**
 * The demo's Data API: a real `node:http` server answering the endpoints the exporter reads (a
 * node's validations, the L1 validations, the blocks a node proposed, the latest blocks of a
 * chain, P-Chain address balances) with the shapes of the reference fixtures (`dataapi.*`;
 * balances, which have none, after the spec's PChainBalance): amounts as decimal strings,
 * timestamps as numbers, newest first, `nextPageToken` paging, `{message, statusCode, error}`
 * error bodies. It answers from {@link DataApiServer.state}; the tests' fake
 * (test/fakes/fake-data-api.ts) extends it with a call log, an API key check and faults.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { P_CHAIN_BALANCE_CATEGORIES, type FakeBalanceAsset, type FakeChainAlias, type FakeDataApiBlock, type FakeDataApiState } from './data-api-state.js';
import { MAINNET_CHAIN_IDS, PRIMARY_NETWORK_ID } from './fixture-world.js';
import { bindServer, FakeHttpServer, type BoundServer } from './http-server.js';

/** Options of {@link DataApiServer.start}. */
export interface DataApiServerOptions {
  host?: string;
  port?: number;
  /** The world it answers from. */
  state: FakeDataApiState;
}

const JSON_CT = 'application/json; charset=utf-8';
const NETWORKS = new Set(['mainnet', 'fuji', 'testnet']);
/** Blockchain ids the spec accepts, by chain. */
const CHAIN_IDS: Record<string, FakeChainAlias> = {
  'p-chain': 'p-chain',
  'x-chain': 'x-chain',
  'c-chain': 'c-chain',
  [PRIMARY_NETWORK_ID]: 'p-chain',
  [MAINNET_CHAIN_IDS.X]: 'x-chain',
  '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm': 'x-chain',
  [MAINNET_CHAIN_IDS.C]: 'c-chain',
  yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp: 'c-chain',
};

/** The service's JSON error body. */
export function errorJson(status: number, message: string | string[]): string {
  return JSON.stringify({ message, statusCode: status, error: http.STATUS_CODES[status] ?? 'Error' });
}

/** A request the fake could not serve, answered with the service's error body. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | string[],
  ) {
    super(Array.isArray(detail) ? detail.join('; ') : detail);
  }
}

/** A running Data API. */
export class DataApiServer extends FakeHttpServer {
  /** The world it answers from. */
  state: FakeDataApiState;

  /** Page token → offset of the next page in the listing it was issued for. */
  private readonly tokens = new Map<string, { listing: string; offset: number }>();

  protected constructor(
    bound: BoundServer,
    state: FakeDataApiState,
    /** Largest page actually served whatever `pageSize` asks (the service's limit is 100). */
    private readonly maxPageSize = 100,
  ) {
    super(bound);
    this.state = state;
  }

  /** Starts a Data API answering from `opts.state` (on 127.0.0.1, any free port, unless told). */
  static async start(opts: DataApiServerOptions): Promise<DataApiServer> {
    const api = new DataApiServer(await bindServer(opts.host ?? '127.0.0.1', opts.port ?? 0), opts.state);
    api.attach();
    return api;
  }

  protected answerInternalError(res: ServerResponse, err: unknown): void {
    this.send(res, 500, errorJson(500, `fake Data API error: ${err instanceof Error ? err.message : String(err)}`));
  }

  protected async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.serve(req, res, new URL(req.url ?? '/', 'http://fake'));
  }

  /** Answers a received request: the test fake overrides it to log the call, check the key and inject faults. */
  protected serve(req: IncomingMessage, res: ServerResponse, u: URL): Promise<void> {
    this.reply(req.method ?? 'GET', u, res);
    return Promise.resolve();
  }

  /** Sends the service's answer to `method u`: the listing asked for, or its error. */
  protected reply(method: string, u: URL, res: ServerResponse): void {
    try {
      this.send(res, 200, JSON.stringify(this.answer(method, u)));
    } catch (err) {
      if (!(err instanceof HttpProblem)) throw err;
      this.send(res, err.status, errorJson(err.status, err.detail));
    }
  }

  private answer(method: string, u: URL): unknown {
    if (method !== 'GET') throw new HttpProblem(404, `Cannot ${method} ${u.pathname}`);
    if (u.pathname === '/v1/health-check') return { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } };
    const parts = u.pathname.split('/').map(decodeURIComponent);
    // ['', 'v1', 'networks', network, ...rest]
    if (parts[1] !== 'v1' || parts[2] !== 'networks' || parts[3] === undefined) throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
    const network = parts[3];
    if (!NETWORKS.has(network)) throw new HttpProblem(400, ['network must be one of the following values: mainnet, fuji, testnet']);
    const ours = (network === 'testnet' ? 'fuji' : network) === this.state.network;
    const q = u.searchParams;
    const pageSize = parsePageSize(q.get('pageSize'));
    const chainInfo = (alias: FakeChainAlias) => ({ chainName: alias, network });

    if (parts[4] === 'validators' && parts[5] !== undefined && parts.length === 6) {
      let list = ours ? [...(this.state.validations[parts[5]] ?? [])] : [];
      const status = q.get('validationStatus');
      if (status !== null) list = list.filter((v) => v.validationStatus === status);
      if (q.get('sortOrder') === 'asc') list.reverse();
      const page = this.page(list, `${u.pathname}?${status}&${q.get('sortOrder')}`, pageSize, q.get('pageToken'));
      return { ...(page.next ? { nextPageToken: page.next } : {}), validators: page.items };
    }
    if (parts[4] === 'l1Validators' && parts.length === 5) {
      const inactive = q.get('includeInactiveL1Validators');
      if (inactive !== null && inactive !== 'true' && inactive !== 'false') {
        throw new HttpProblem(400, ['includeInactiveL1Validators must be a boolean value']);
      }
      const [nodeId, subnetId, validationId] = [q.get('nodeId'), q.get('subnetId'), q.get('l1ValidationId')];
      const list = (ours ? (this.state.l1Validators ?? []) : []).filter(
        (v) =>
          (nodeId === null || v.nodeId === nodeId) &&
          (subnetId === null || v.subnetId === subnetId) &&
          (validationId === null || v.validationId === validationId) &&
          (inactive === 'true' || (v.weight !== 0 && v.remainingBalance !== 0)),
      );
      const page = this.page(list, `${u.pathname}?${nodeId}&${subnetId}&${validationId}&${inactive}`, pageSize, q.get('pageToken'));
      // blockHeight: the P-Chain height the balances were computed at, a decimal string.
      return { validators: page.items, ...(page.next ? { nextPageToken: page.next } : {}), blockHeight: this.state.blocks['p-chain'][0]?.blockNumber ?? '0' };
    }
    if (parts[4] === 'blockchains' && parts[5] !== undefined) {
      const alias = CHAIN_IDS[parts[5]];
      if (!alias) throw new HttpProblem(404, `Blockchain ${parts[5]} not found`);
      if (parts[6] === 'balances' && parts.length === 7)
        return { balances: this.balances(alias, network, ours, q.get('addresses')), chainInfo: chainInfo(alias) };
      let list: FakeDataApiBlock[];
      if (parts[6] === 'blocks' && parts.length === 7) list = ours ? this.state.blocks[alias] : [];
      else if (parts[6] === 'nodes' && parts[7] !== undefined && parts[8] === 'blocks' && parts.length === 9) {
        const byNode = alias === 'p-chain' ? this.state.proposed : this.state.proposedOn?.[alias];
        if (!byNode) throw new HttpProblem(400, `Node blocks are not served for ${alias}`);
        list = ours ? (byNode[parts[7]] ?? []) : [];
      } else throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
      const start = parseTimestamp(q.get('startTimestamp'), 'startTimestamp');
      const end = parseTimestamp(q.get('endTimestamp'), 'endTimestamp');
      const filtered = list.filter((b) => (start === undefined || b.blockTimestamp >= start) && (end === undefined || b.blockTimestamp < end));
      const page = this.page(filtered, `${u.pathname}?${start}&${end}`, pageSize, q.get('pageToken'));
      return { blocks: page.items, ...(page.next ? { nextPageToken: page.next } : {}), chainInfo: chainInfo(alias) };
    }
    throw new HttpProblem(404, `Cannot GET ${u.pathname}`);
  }

  /**
   * Endpoint 5: the balance of every address given, summed per category and asset (the service
   * adds the addresses up). Addresses may carry a `P-`/`X-` prefix; one of another network is a 400.
   * Only the P-Chain holds data here; the X- and C-Chain answer their categories empty.
   */
  private balances(alias: FakeChainAlias, network: string, ours: boolean, addressesParam: string | null): Record<string, FakeBalanceAsset[]> {
    const addresses = (addressesParam ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    if (addresses.length === 0) throw new HttpProblem(400, ['addresses should not be empty']);
    const hrp = network === 'mainnet' ? 'avax' : 'fuji';
    const bare = addresses.map((a) => a.replace(/^[PX]-/, ''));
    const wrong = bare.find((a) => !a.startsWith(`${hrp}1`));
    if (wrong !== undefined) throw new HttpProblem(400, [`Invalid address ${wrong} for network ${network}`]);
    const categories: readonly string[] =
      alias === 'p-chain'
        ? P_CHAIN_BALANCE_CATEGORIES
        : alias === 'x-chain'
          ? ['locked', 'unlocked', 'atomicMemoryUnlocked', 'atomicMemoryLocked']
          : ['atomicMemoryUnlocked', 'atomicMemoryLocked'];
    const out: Record<string, FakeBalanceAsset[]> = Object.fromEntries(categories.map((c) => [c, []]));
    if (!ours || alias !== 'p-chain') return out;
    for (const category of P_CHAIN_BALANCE_CATEGORIES) {
      const byAsset = new Map<string, FakeBalanceAsset>();
      for (const a of bare) {
        for (const e of this.state.pChainBalances?.[a]?.[category] ?? []) {
          const prev = byAsset.get(e.assetId);
          byAsset.set(
            e.assetId,
            prev ? { ...prev, amount: (BigInt(prev.amount) + BigInt(e.amount)).toString(), utxoCount: prev.utxoCount + e.utxoCount } : { ...e },
          );
        }
      }
      out[category] = [...byAsset.values()];
    }
    return out;
  }

  private page<T>(list: readonly T[], listing: string, requested: number, token: string | null): { items: T[]; next: string | undefined } {
    let offset = 0;
    if (token !== null) {
      const t = this.tokens.get(token);
      if (!t || t.listing !== listing) throw new HttpProblem(400, ['Invalid pageToken']);
      offset = t.offset;
    }
    const size = Math.min(requested, this.maxPageSize);
    const items = list.slice(offset, offset + size);
    if (offset + size >= list.length) return { items, next: undefined };
    const next = randomUUID();
    if (this.tokens.size > 10_000) this.tokens.clear();
    this.tokens.set(next, { listing, offset: offset + size });
    return { items, next };
  }

  protected send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': JSON_CT, ...headers });
    res.end(body);
  }
}

function parsePageSize(v: string | null): number {
  if (v === null) return 10;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1) throw new HttpProblem(400, ['pageSize must not be less than 1']);
  if (n > 100) throw new HttpProblem(400, ['pageSize must not be greater than 100']);
  return n;
}

function parseTimestamp(v: string | null, name: string): number | undefined {
  if (v === null) return undefined;
  if (!/^\d+$/.test(v)) throw new HttpProblem(400, [`${name} must not be less than 0`]);
  return Number(v);
}
