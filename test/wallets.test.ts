/**
 * Wallet balances (configuration `addresses`): the section's validation, the
 * pure conversions and collectors, the fakes' balance endpoints, and the
 * daemon end to end against a fake node (eth_getBalance, C-Chain and L1) and
 * a fake Data API (P-Chain balances), including what an upstream failure
 * turns into.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig, loadConfig } from '../src/config/load.js';
import { isValidBech32 } from '../src/config/addresses.js';
import { baseUnitsToWhole, collectAddressBalances } from '../src/sources/common/address-balances/collect.js';
import { networkLabel } from '../src/sources/node/address-balances/index.js';
import { AVAX_ASSET_IDS, networkLabelOf, spendableNavax } from '../src/sources/data-api/address-balances/index.js';
import { UpstreamError } from '../src/http/errors.js';
import { FakeNode } from './fakes/fake-node.js';
import { FakeDataApi, fakeAvaxAmount, type FakeDataApiOptions } from './fakes/fake-data-api.js';
import { FIXTURE_IDS } from './fakes/fake-data.js';
import type { Daemon } from '../src/daemon.js';
import { eventually, scrape, seriesOf, startTestDaemon, valueOf, type TestDaemon } from './helpers/daemon.js';
import { problemsOf } from './helpers/config.js';
import { testHandle } from '../src/daemon.js';

/** Real addresses (valid bech32 checksums): the first is the fake Data API's reward address. */
const P_MAIN = 'P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5';
const P_MAIN_2 = 'P-avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg';
/** The same key as P_MAIN, on fuji. */
const P_FUJI = 'P-fuji18jma8ppw3nhx5r4ap8clazz0dps7rv5u6wmu4t';
const RELAYER = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const L1_RELAYER = '0x00000000000000000000000000000000000000a1';
const WATCHED = '0x00000000000000000000000000000000000000b2';
const L1 = FIXTURE_IDS.l1ChainId;
const WEI = 10n ** 18n;

const twoNodes = {
  nodes: [
    { name: 'a', url: 'http://a:9650' },
    { name: 'b', url: 'http://b:9650' },
  ],
};

describe('configuration: addresses', () => {
  it('sends each address to whoever reads it: EVM ones to their node (default the first), P-Chain ones to the Data API', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-wallets-'));
    const file = join(dir, 'config.yml');
    writeFileSync(
      file,
      `
nodes:
  - {name: a, url: "http://a:9650"}
  - {name: b, url: "http://b:9650"}
addresses:
  - {alias: relayer, chain: C, address: "${RELAYER}", floor_avax: 5}
  - {alias: l1-relayer, chain: ${L1}, address: "${L1_RELAYER}", rpc_node: b, floor_avax: 0.5}
  - {alias: fee-wallet, chain: P, address: "${P_MAIN}", floor_avax: 10}
  - {alias: watched only, chain: C, address: "${WATCHED}"}
`,
    );
    const { config } = loadConfig([`--config.file=${file}`], {});
    expect(config.nodes[0]?.addresses).toEqual([
      { alias: 'relayer', chain: 'C', address: RELAYER, floorAvax: 5 },
      { alias: 'watched only', chain: 'C', address: WATCHED },
    ]);
    expect(config.nodes[1]?.addresses).toEqual([{ alias: 'l1-relayer', chain: L1, address: L1_RELAYER, floorAvax: 0.5 }]);
    expect(config.dataApi.addresses).toEqual([{ alias: 'fee-wallet', chain: 'P', address: P_MAIN, floorAvax: 10 }]);
    // Without the section nothing changes shape (a reload compares configurations as JSON).
    const plain = buildConfig(twoNodes);
    expect(plain.nodes.every((n) => !('addresses' in n))).toBe(true);
    expect('addresses' in plain.dataApi).toBe(false);
  });

  it('checks each address against its chain kind, with the path of every problem', () => {
    const problems = problemsOf(() =>
      buildConfig({
        ...twoNodes,
        addresses: [
          { alias: 'short', chain: 'C', address: '0x1234' },
          { alias: 'bech32 on C', chain: 'C', address: P_MAIN },
          { alias: 'hex on P', chain: 'P', address: RELAYER },
          { alias: 'typo', chain: 'P', address: 'P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre6' },
          { alias: 'x-chain', chain: 'X', address: RELAYER },
          { alias: 'no prefix', chain: 'P', address: P_MAIN.slice(2) },
          { alias: 'rpc on P', chain: 'P', address: P_MAIN_2, rpc_node: 'a' },
          { alias: 'zero floor', chain: 'C', address: '0x0000000000000000000000000000000000000001', floor_avax: 0 },
          { alias: 'text floor', chain: 'C', address: '0x0000000000000000000000000000000000000002', floor_avax: '5' },
          { alias: 'tab\there', chain: 'C', address: '0x0000000000000000000000000000000000000003' },
          { alias: 'colour', chain: 'C', address: '0x0000000000000000000000000000000000000004', colour: 'blue' },
        ],
      }),
    );
    expect(problems).toEqual([
      'addresses[0].address: "0x1234" must be an EVM address: 0x followed by 40 hex digits',
      `addresses[1].address: "${P_MAIN}" must be an EVM address: 0x followed by 40 hex digits`,
      `addresses[2].address: "${RELAYER}" is not a P-Chain address: expected P-avax1…, P-fuji1…, P-local1… or P-custom1… (an EVM address: its chain is C or an L1 blockchain id)`,
      'addresses[3].address: "P-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre6" is not a valid P-Chain address: its checksum does not match (a typo or a truncated copy?)',
      'addresses[4].chain: "X" must be P, C or the blockchain id (CB58) of an EVM L1',
      `addresses[5].address: "${P_MAIN.slice(2)}" is not a P-Chain address: expected P-avax1…, P-fuji1…, P-local1… or P-custom1…`,
      'addresses[6].rpc_node: P-Chain balances come from the Data API; rpc_node is for C-Chain and L1 addresses',
      'addresses[7].floor_avax: 0 must be a number greater than zero (leave floor_avax out to watch the balance without an alert)',
      'addresses[8].floor_avax: "5" must be a number',
      'addresses[9].alias: "tab\\there" must be printable ASCII',
      'addresses[10].colour: unknown key (the keys here: alias, chain, address, floor_avax, rpc_node)',
    ]);
  });

  it('rejects a duplicate alias and an address listed twice on one chain (EVM case-insensitively)', () => {
    expect(
      problemsOf(() =>
        buildConfig({
          ...twoNodes,
          addresses: [
            { alias: 'relayer', chain: 'C', address: RELAYER },
            { alias: 'relayer', chain: L1, address: RELAYER },
            { alias: 'same, lower case', chain: 'C', address: RELAYER.toLowerCase() },
          ],
        }),
      ),
    ).toEqual([
      'addresses[1].alias: duplicate alias "relayer" (also addresses[0])',
      `addresses[2].address: ${RELAYER.toLowerCase()} on chain C is already watched as addresses[0]`,
    ]);
  });

  it('needs someone to ask: a known rpc_node, a node at all, the Data API on and on the address network', () => {
    expect(problemsOf(() => buildConfig({ ...twoNodes, addresses: [{ alias: 'r', chain: 'C', address: RELAYER, rpc_node: 'c' }] }))).toEqual([
      'addresses[0].rpc_node: no node is named "c" (configured: a, b)',
    ]);
    expect(problemsOf(() => buildConfig({ demo: true, addresses: [{ alias: 'r', chain: L1, address: RELAYER }] }))).toEqual([
      'addresses[0]: L1 balances are read from a node (eth_getBalance), and no node is configured',
    ]);
    expect(problemsOf(() => buildConfig({ ...twoNodes, data_api: { enabled: false }, addresses: [{ alias: 'f', chain: 'P', address: P_MAIN }] }))).toEqual([
      'addresses[0].chain: P-Chain balances are read from the Data API, which is turned off (data_api.enabled)',
    ]);
    expect(problemsOf(() => buildConfig({ ...twoNodes, data_api: { network: 'fuji' }, addresses: [{ alias: 'f', chain: 'P', address: P_MAIN }] }))).toEqual([
      `addresses[0].address: ${P_MAIN} is a mainnet address, but data_api.network is fuji`,
    ]);
    // testnet is fuji.
    expect(
      buildConfig({ ...twoNodes, data_api: { network: 'testnet' }, addresses: [{ alias: 'f', chain: 'P', address: P_FUJI }] }).dataApi.addresses,
    ).toHaveLength(1);
  });

  it('a bad section makes the CLI exit 2 with the paths, before anything starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-wallets-'));
    const file = join(dir, 'config.yml');
    writeFileSync(file, `addresses:\n  - {alias: relayer, chain: C, address: "0xnothex"}\n  - {alias: relayer, chain: P, address: "${P_MAIN}"}\n`);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_')));
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', `--config.file=${file}`, '--config.check'], {
      encoding: 'utf8',
      env: clean,
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('addresses[0].address: "0xnothex" must be an EVM address');
    expect(r.stderr).toContain('addresses[1].alias: duplicate alias "relayer" (also addresses[0])');
  });

  it('verifies bech32 checksums', () => {
    expect(isValidBech32(P_MAIN.slice(2))).toBe(true);
    expect(isValidBech32(P_MAIN_2.slice(2))).toBe(true);
    expect(isValidBech32(P_FUJI.slice(2))).toBe(true);
    // One character changed, upper case, a character outside the alphabet.
    expect(isValidBech32(P_MAIN_2.slice(2).replace('h2cc', 'h2cd'))).toBe(false);
    expect(isValidBech32(P_MAIN.slice(2).toUpperCase())).toBe(false);
    expect(isValidBech32(P_MAIN.slice(2).replace('8jma', 'bjma'))).toBe(false);
  });
});

describe('conversions and collectors (pure)', () => {
  it('converts base units to whole tokens, dividing the integer part exactly', () => {
    expect(baseUnitsToWhole(0n, 18)).toBe(0);
    expect(baseUnitsToWhole(1n, 18)).toBe(1e-18);
    expect(baseUnitsToWhole(12_500_000_000_000_000_000n, 18)).toBe(12.5);
    expect(baseUnitsToWhole(3_250_000_000n, 9)).toBe(3.25);
    // 720 million AVAX in wei (above 2^53): every whole token is kept.
    expect(baseUnitsToWhole(720_000_000n * WEI + 5n * 10n ** 17n, 18)).toBe(720_000_000.5);
    // A uint256 balance does not overflow into Infinity.
    expect(Number.isFinite(baseUnitsToWhole(2n ** 256n - 1n, 18))).toBe(true);
  });

  it('exports the balance of each address and its floor only where one is configured', () => {
    const samples = collectAddressBalances({
      network: 'mainnet',
      balances: [
        { alias: 'relayer', chain: 'C', address: RELAYER, floorAvax: 5, amount: 3n * WEI, decimals: 18 },
        { alias: 'fee-wallet', chain: 'P', address: P_MAIN, amount: 1_500_000_000n, decimals: 9 },
      ],
    });
    expect(samples).toEqual([
      { name: 'avax_address_balance_avax', labels: { network: 'mainnet', chain: 'C', address: RELAYER, alias: 'relayer' }, value: 3 },
      { name: 'avax_address_balance_floor_avax', labels: { network: 'mainnet', chain: 'C', address: RELAYER, alias: 'relayer' }, value: 5 },
      { name: 'avax_address_balance_avax', labels: { network: 'mainnet', chain: 'P', address: P_MAIN, alias: 'fee-wallet' }, value: 1.5 },
    ]);
  });

  it('reads the spendable AVAX of a P-Chain answer: unlocked and unstaked, the network AVAX asset only', () => {
    const spoof = { ...fakeAvaxAmount(999n * 10n ** 9n), assetId: '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe' };
    const answer = {
      balances: {
        unlockedUnstaked: [fakeAvaxAmount(2_000_000_000n), fakeAvaxAmount(250_000_000n), spoof].map((e) => ({
          assetId: e.assetId,
          denomination: e.denomination,
          amount: BigInt(e.amount),
        })),
      },
    };
    expect(spendableNavax(answer, 'mainnet')).toBe(2_250_000_000n);
    // The same entries are not fuji's AVAX.
    expect(spendableNavax(answer, 'fuji')).toBe(0n);
    expect(spendableNavax({ balances: { unlockedUnstaked: [{ assetId: AVAX_ASSET_IDS.fuji, denomination: 9, amount: 7n }] } }, 'testnet')).toBe(7n);
    const odd = { balances: { unlockedUnstaked: [{ assetId: AVAX_ASSET_IDS.mainnet, denomination: 18, amount: 7n }] } };
    expect(() => spendableNavax(odd, 'mainnet')).toThrow(UpstreamError);
    expect(() => spendableNavax(odd, 'mainnet')).toThrow(/denomination 18/);
  });

  it('labels the network as the Data API series do, so one wallet has one network on P and C', () => {
    expect(networkLabel({ networkId: 1, networkName: 'mainnet' })).toBe('mainnet');
    expect(networkLabel({ networkId: 5, networkName: 'fuji' })).toBe('fuji');
    expect(networkLabel({ networkId: 12345, networkName: 'network-12345' })).toBe('network-12345');
    expect(networkLabel({})).toBeUndefined();
    expect([networkLabelOf('mainnet'), networkLabelOf('fuji'), networkLabelOf('testnet')]).toEqual(['mainnet', 'fuji', 'fuji']);
  });
});

// ------------------------------------------------------------------ fakes and daemon

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function fakeNode(): Promise<FakeNode> {
  const node = await FakeNode.start();
  node.state.evmBalances = { C: { [RELAYER.toLowerCase()]: 12n * WEI + WEI / 2n }, [L1]: { [L1_RELAYER]: (3n * WEI) / 4n } };
  cleanup.push(() => node.stop());
  return node;
}

async function fakeDataApi(opts: FakeDataApiOptions = {}): Promise<FakeDataApi> {
  const api = await FakeDataApi.start(opts);
  api.state.pChainBalances = {
    [P_MAIN.slice(2)]: {
      unlockedUnstaked: [fakeAvaxAmount(3_250_000_000n)],
      // Staked AVAX is not spendable: not part of the balance.
      lockedStaked: [fakeAvaxAmount(2_000_000_000_000n)],
    },
  };
  cleanup.push(() => api.stop());
  return api;
}

/** JSON-RPC over HTTP to the fake node, returning the parsed reply. */
async function rpcReply(node: FakeNode, path: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('the fakes answer balances as the real services do', () => {
  it('the fake node answers eth_getBalance with a hex quantity, and geth argument errors', async () => {
    const node = await fakeNode();
    expect(await rpcReply(node, '/ext/bc/C/rpc', 'eth_getBalance', [RELAYER, 'latest'])).toEqual({ jsonrpc: '2.0', id: 7, result: '0xad78ebc5ac620000' });
    expect(await rpcReply(node, `/ext/bc/${L1}/rpc`, 'eth_getBalance', [L1_RELAYER, 'latest'])).toEqual({ jsonrpc: '2.0', id: 7, result: '0xa688906bd8b0000' });
    // An address the chain never saw holds 0.
    expect((await rpcReply(node, '/ext/bc/C/rpc', 'eth_getBalance', [WATCHED, 'latest']))['result']).toBe('0x0');
    expect((await rpcReply(node, '/ext/bc/C/rpc', 'eth_getBalance', ['0x1234', 'latest']))['error']).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string has length 4, want 40 for common.Address',
    });
    expect((await rpcReply(node, '/ext/bc/C/rpc', 'eth_getBalance', [RELAYER]))['error']).toEqual({
      code: -32602,
      message: 'missing value for required argument 1',
    });
    expect((await rpcReply(node, '/ext/bc/C/rpc', 'eth_getBalance', [RELAYER, '0xffffffffff']))['error']).toEqual({
      code: -32000,
      message: 'header not found',
    });
  });

  it('the fake Data API sums the addresses given per category and asset, and rejects another network address', async () => {
    const api = await fakeDataApi();
    const get = async (path: string) => {
      const res = await fetch(`${api.url}${path}`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const one = await get(`/v1/networks/mainnet/blockchains/p-chain/balances?addresses=${P_MAIN.slice(2)}`);
    expect(one.status).toBe(200);
    expect(one.body['chainInfo']).toEqual({ chainName: 'p-chain', network: 'mainnet' });
    const balances = one.body['balances'] as Record<string, unknown[]>;
    expect(Object.keys(balances).sort()).toEqual([
      'atomicMemoryLocked',
      'atomicMemoryUnlocked',
      'lockedPlatform',
      'lockedStakeable',
      'lockedStaked',
      'pendingStaked',
      'unlockedStaked',
      'unlockedUnstaked',
    ]);
    expect(balances['unlockedUnstaked']).toEqual([fakeAvaxAmount(3_250_000_000n)]);
    api.state.pChainBalances = { ...api.state.pChainBalances, [P_MAIN_2.slice(2)]: { unlockedUnstaked: [fakeAvaxAmount(750_000_000n)] } };
    const both = await get(`/v1/networks/mainnet/blockchains/p-chain/balances?addresses=${P_MAIN},${P_MAIN_2}`);
    expect((both.body['balances'] as Record<string, unknown[]>)['unlockedUnstaked']).toEqual([{ ...fakeAvaxAmount(4_000_000_000n), utxoCount: 2 }]);
    const wrong = await get(`/v1/networks/mainnet/blockchains/p-chain/balances?addresses=${P_FUJI}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(api.callsTo('balances')).toHaveLength(3);
  });
});

/** A daemon polling `node` every 500 ms and, if given, the fake Data API as often, watching `addresses`. */
async function daemonFor(node: FakeNode, api: FakeDataApi | undefined, addresses: unknown[]): Promise<TestDaemon> {
  const t = await startTestDaemon({
    nodes: [{ name: 'fake', url: node.url }],
    ...(api ? { data_api: { url: api.url, interval: '500ms', rate_limit: 6000 } } : {}),
    addresses,
  });
  cleanup.push(() => t.daemon.stop());
  return t;
}

const WALLETS = [
  { alias: 'relayer', chain: 'C', address: RELAYER, floor_avax: 5 },
  { alias: 'l1-relayer', chain: L1, address: L1_RELAYER, rpc_node: 'fake', floor_avax: 1 },
  { alias: 'fee-wallet', chain: 'P', address: P_MAIN, floor_avax: 10 },
  { alias: 'watched', chain: 'C', address: WATCHED },
];
const label = (alias: string, chain: string, address: string) => ({ network: 'mainnet', chain, address, alias });

async function upValue(daemon: Daemon, node: string, source: string): Promise<number | undefined> {
  return valueOf(await scrape(daemon), 'avax_source_up', { node, source });
}

describe('end to end: balances through the daemon', () => {
  it('exports every watched balance in AVAX with its floor, and follows a top-up', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon } = await daemonFor(node, api, WALLETS);
    await eventually(
      async () => (await upValue(daemon, 'fake', 'address_balances')) === 1 && (await upValue(daemon, 'data_api', 'data_api_address_balances')) === 1,
      10_000,
    );
    const text = await scrape(daemon);

    expect(valueOf(text, 'avax_address_balance_avax', label('relayer', 'C', RELAYER))).toBe(12.5);
    expect(valueOf(text, 'avax_address_balance_floor_avax', label('relayer', 'C', RELAYER))).toBe(5);
    expect(valueOf(text, 'avax_address_balance_avax', label('l1-relayer', L1, L1_RELAYER))).toBe(0.75);
    expect(valueOf(text, 'avax_address_balance_floor_avax', label('l1-relayer', L1, L1_RELAYER))).toBe(1);
    expect(valueOf(text, 'avax_address_balance_avax', label('fee-wallet', 'P', P_MAIN))).toBe(3.25);
    expect(valueOf(text, 'avax_address_balance_floor_avax', label('fee-wallet', 'P', P_MAIN))).toBe(10);
    expect(valueOf(text, 'avax_address_balance_avax', label('watched', 'C', WATCHED))).toBe(0);
    expect(seriesOf(text, 'avax_address_balance_floor_avax', { alias: 'watched' })).toEqual([]);
    // Four wallets, no node label: a wallet is not a property of the node that was asked.
    expect(seriesOf(text, 'avax_address_balance_avax')).toHaveLength(4);
    expect(seriesOf(text, 'avax_address_balance_avax').every((s) => !('node' in s.labels))).toBe(true);

    // What was asked: eth_getBalance at the chain's geth endpoint, one P-Chain request per address.
    const asked = node.calls.filter((c) => c.rpcMethod === 'eth_getBalance');
    expect(new Set(asked.map((c) => `${c.path} ${JSON.stringify(c.params)}`))).toEqual(
      new Set([
        `/ext/bc/C/rpc ${JSON.stringify([RELAYER, 'latest'])}`,
        `/ext/bc/C/rpc ${JSON.stringify([WATCHED, 'latest'])}`,
        `/ext/bc/${L1}/rpc ${JSON.stringify([L1_RELAYER, 'latest'])}`,
      ]),
    );
    expect(
      api.callsTo('balances').every((c) => c.path === '/v1/networks/mainnet/blockchains/p-chain/balances' && c.query['addresses'] === P_MAIN.slice(2)),
    ).toBe(true);

    // A top-up on each chain shows in the next rounds.
    (node.state.evmBalances?.['C'] as Record<string, bigint>)[RELAYER.toLowerCase()] = 20n * WEI;
    api.state.pChainBalances = { [P_MAIN.slice(2)]: { unlockedUnstaked: [fakeAvaxAmount(25_000_000_000n)] } };
    await eventually(async () => {
      const t = await scrape(daemon);
      return (
        valueOf(t, 'avax_address_balance_avax', label('relayer', 'C', RELAYER)) === 20 &&
        valueOf(t, 'avax_address_balance_avax', label('fee-wallet', 'P', P_MAIN)) === 25
      );
    }, 10_000);

    // promtool accepts the exposition.
    const file = join(mkdtempSync(join(tmpdir(), 'avax-exporter-wallets-')), 'metrics.txt');
    writeFileSync(file, await scrape(daemon));
    expect(execFileSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' }).trim()).toBe('');
  });

  it('without addresses nothing is asked and no balance source exists', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    const { daemon } = await daemonFor(node, api, []);
    await eventually(async () => (await upValue(daemon, 'data_api', 'data_api_blocks')) === 1, 10_000);
    await testHandle(daemon).waitForRounds(2);
    const text = await scrape(daemon);
    expect(seriesOf(text, 'avax_source_up', { source: 'address_balances' })).toEqual([]);
    expect(seriesOf(text, 'avax_source_up', { source: 'data_api_address_balances' })).toEqual([]);
    expect(seriesOf(text, 'avax_address_balance_avax')).toEqual([]);
    expect(node.calls.filter((c) => c.rpcMethod === 'eth_getBalance')).toEqual([]);
    expect(api.callsTo('balances')).toEqual([]);
  });
});

describe('end to end: an upstream failure becomes metrics, never a crash', () => {
  it('a chain the node does not run fails the node balance source with the address in the log; the node is otherwise fine', async () => {
    const node = await fakeNode();
    const missing = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';
    const { daemon, logs } = await daemonFor(node, undefined, [
      { alias: 'relayer', chain: 'C', address: RELAYER, floor_avax: 5 },
      { alias: 'lost', chain: missing, address: L1_RELAYER },
    ]);
    await eventually(async () => (await upValue(daemon, 'fake', 'address_balances')) === 0, 8_000);
    const text = await scrape(daemon);
    expect(valueOf(text, 'avax_source_poll_failures_total', { node: 'fake', source: 'address_balances', reason: 'http_status' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'info' })).toBe(1);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'c_chain' })).toBe(1);
    expect(seriesOf(text, 'avax_address_balance_avax')).toEqual([]);
    const line = logs.withMsg('source down').find((l) => l['source'] === 'address_balances');
    expect(line).toMatchObject({ node: 'fake', reason: 'http_status' });
    expect(String(line?.['err'])).toContain(`balance of lost (${L1_RELAYER}) on chain ${missing}: eth_getBalance at /ext/bc/${missing}/rpc: HTTP 404`);
  });

  it('a JSON-RPC error takes the balances down, their series go after the max age, and they come back', async () => {
    const node = await fakeNode();
    const { daemon, logs } = await daemonFor(node, undefined, [{ alias: 'relayer', chain: 'C', address: RELAYER, floor_avax: 5 }]);
    await eventually(async () => (await upValue(daemon, 'fake', 'address_balances')) === 1, 8_000);
    node.setFault('eth_getBalance', { kind: 'rpc-error', code: -32000, message: 'getDeleteStateObject (0x…) error: missing trie node' });
    await eventually(async () => seriesOf(await scrape(daemon), 'avax_address_balance_avax').length === 0, 8_000);
    const down = await scrape(daemon);
    expect(valueOf(down, 'avax_source_up', { node: 'fake', source: 'address_balances' })).toBe(0);
    expect(valueOf(down, 'avax_source_poll_failures_total', { node: 'fake', source: 'address_balances', reason: 'rpc_error' })).toBeGreaterThanOrEqual(1);
    // With the balance, its floor goes too: no alert on a value nobody knows.
    expect(seriesOf(down, 'avax_address_balance_floor_avax')).toEqual([]);
    expect((await fetch(`${daemon.url}/metrics`)).status).toBe(200);

    node.setFault('eth_getBalance', undefined);
    await eventually(async () => valueOf(await scrape(daemon), 'avax_address_balance_avax', label('relayer', 'C', RELAYER)) === 12.5, 8_000);
    expect(logs.withMsg('source up').filter((l) => l['source'] === 'address_balances')).toHaveLength(1);
  });

  it('a Data API failure takes down only the P-Chain balances; the node balances and the other Data API sources stay up', async () => {
    const node = await fakeNode();
    const api = await fakeDataApi();
    api.setFault('balances', { kind: 'status', status: 500 });
    const { daemon } = await daemonFor(node, api, WALLETS);
    await eventually(
      async () => (await upValue(daemon, 'data_api', 'data_api_address_balances')) === 0 && (await upValue(daemon, 'data_api', 'data_api_blocks')) === 1,
      10_000,
    );
    const text = await scrape(daemon);
    expect(
      valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source: 'data_api_address_balances', reason: 'http_status' }),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'avax_source_up', { node: 'fake', source: 'address_balances' })).toBe(1);
    expect(valueOf(text, 'avax_address_balance_avax', label('relayer', 'C', RELAYER))).toBe(12.5);
    expect(seriesOf(text, 'avax_address_balance_avax', { chain: 'P' })).toEqual([]);
  });

  it('a P-Chain address of another network than the Data API is asked about is a network_mismatch, not a request', async () => {
    const node = await fakeNode(); // mainnet, so the Data API is asked about mainnet
    const api = await fakeDataApi();
    const { daemon, logs } = await daemonFor(node, api, [{ alias: 'fuji-wallet', chain: 'P', address: P_FUJI, floor_avax: 1 }]);
    await eventually(async () => (await upValue(daemon, 'data_api', 'data_api_address_balances')) === 0, 10_000);
    const text = await scrape(daemon);
    expect(
      valueOf(text, 'avax_source_poll_failures_total', { node: 'data_api', source: 'data_api_address_balances', reason: 'network_mismatch' }),
    ).toBeGreaterThanOrEqual(1);
    expect(api.callsTo('balances')).toEqual([]);
    const line = logs.withMsg('source down').find((l) => l['source'] === 'data_api_address_balances');
    expect(String(line?.['err'])).toContain(`balance of fuji-wallet (${P_FUJI}) on chain P: a fuji address, but the Data API is asked about mainnet`);
  });
});
