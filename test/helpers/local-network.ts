/**
 * The real AvalancheGo network of the suite (issue 41): five genesis validators, one node that validates nothing
 * (an RPC node) and one with `--partial-sync-primary-network`, all on 127.0.0.1 with ports the nodes chose
 * themselves, started by our driver (test/avalanchego/localnet, over AvalancheGo's tests/fixture/tmpnet) from the
 * node built by test/avalanchego/build.sh. With `{ l1: true }`, also an L1: a subnet with an xsvm chain, converted
 * (ConvertSubnetToL1Tx) with three validators of its own that validate nothing on the primary network
 * (test/avalanchego/localnet/l1.go).
 *
 * A test file calls {@link useLocalNetwork} once at its top: the network starts before the file's first test and
 * is stopped after its last, also when a test fails or the worker dies (every PID is killed on exit). The nodes'
 * logs of a file with a failed test are kept under `.tmp/localnet-logs/`; the rest of the network's directory
 * (databases included) is removed.
 *
 * @packageDocumentation
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ROOT } from './promql-contract.js';

const run = promisify(execFile);

/** A node of the local network, as the driver reports it (its `up` subcommand). */
export interface LocalNode {
  /**
   * `validator` (a genesis staker), `rpc` (validates nothing), `partial-sync` (tracks the P-Chain only) or
   * `l1-validator` (validates the L1 only, tracking its subnet).
   */
  readonly role: 'validator' | 'rpc' | 'partial-sync' | 'l1-validator';
  readonly nodeId: string;
  /** The node's API, e.g. `http://127.0.0.1:41235`; it keeps its port across {@link LocalNetwork.restartNode}. */
  readonly uri: string;
  readonly stakingAddress: string;
  /** The node's process now (it changes when the node is started again). */
  pid: number;
  readonly dataDir: string;
  readonly flagsPath: string;
}

/** One validator the L1's conversion names. */
export interface L1Validator {
  /**
   * `main` and `second` are funded for years; `short` was given 240 nAVAX, four minutes of the continuous fee at the
   * local network's 1 nAVAX/s (genesis/genesis_local.go), so its balance runs out while a file watches.
   */
  readonly name: 'main' | 'second' | 'short';
  readonly nodeId: string;
  readonly validationId: string;
  readonly weight: number;
  /** nAVAX at conversion. */
  readonly balance: number;
  /** Its node (role `l1-validator`). */
  readonly node: LocalNode;
}

/** The L1 of a network started with `{ l1: true }`. */
export interface LocalL1 {
  readonly subnetId: string;
  /** Its one chain, running xsvm. */
  readonly blockchainId: string;
  readonly validators: readonly L1Validator[];
}

interface Summary {
  networkDir: string;
  networkId: number;
  nodes: LocalNode[];
  preFundedKey: string;
  l1?: { subnetId: string; blockchainId: string; validators: Omit<L1Validator, 'node'>[] };
}

/** A running local network. */
export interface LocalNetwork {
  readonly networkId: number;
  readonly nodes: readonly LocalNode[];
  /** The five genesis validators. */
  readonly validators: readonly LocalNode[];
  /** The node that validates nothing. */
  readonly rpc: LocalNode;
  /** The node started with `--partial-sync-primary-network`. */
  readonly partialSync: LocalNode;
  /** The L1, when the network was started with `{ l1: true }`. */
  readonly l1?: LocalL1;
  /** One X-Chain, one P-Chain and one C-Chain transfer through `node` (default the first validator), accepted when it returns. */
  transfer(node?: LocalNode): Promise<{ x: string; p: string; c: string }>;
  /** One transfer on the L1's chain through `node` (default its `main` validator), accepted when it returns. */
  transferOnL1(node?: LocalNode): Promise<string>;
  /** Sends `signal` to the node and, for SIGTERM and SIGKILL, waits until its process is gone. */
  signal(node: LocalNode, signal: 'SIGTERM' | 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): Promise<void>;
  /**
   * Starts a stopped node again with its own flags, on the ports it had, and waits until its API answers;
   * `extraFlags` (`--name=value`) change what an operator would change by flag.
   */
  startNode(node: LocalNode, extraFlags?: readonly string[]): Promise<void>;
  /**
   * Starts one more node that validates nothing and can never finish bootstrapping: its only bootstrapper is
   * a closed port, so it knows no peer and its chains stay bootstrapping (503 on their APIs); waits until its API
   * answers. It is stopped with the network.
   */
  startStuckNode(): Promise<LocalNode>;
  /**
   * Starts one more node that validates nothing, with a fresh identity, joining the network: its bootstrappers
   * are the genesis validators, so it bootstraps the three chains from them. It listens on `httpPort` (pick it
   * with freePort, so an exporter can point at it before it starts); waits until its API answers, not until it
   * has bootstrapped. It is stopped with the network.
   */
  startNewNode(httpPort: number): Promise<LocalNode>;
}

/** The directory holding the node and the driver, built once (test/avalanchego/build.sh prints it). */
export function avalanchegoBuild(): string {
  const r = spawnSync('bash', [join(ROOT, 'test/avalanchego/build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error('test/avalanchego/build.sh failed (its messages are above): the real AvalancheGo is not built');
  return r.stdout.trim();
}

const live = new Set<number>();
let exitHookInstalled = false;

/** Kills every node still running when the worker exits (a crash, a timeout), so no network outlives the suite. */
function killOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of live) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`local network: ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function answers(uri: string): Promise<boolean> {
  try {
    const res = await fetch(`${uri}/ext/health/liveness`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function readPid(dataDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dataDir, 'process.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/** What a file asks of its network. */
export interface LocalNetworkOptions {
  /** Also an L1 (see {@link LocalL1}). */
  l1?: boolean;
}

/** Starts a local network in `dir` (made empty first). */
async function startLocalNetwork(dir: string, options: LocalNetworkOptions): Promise<{ network: LocalNetwork; stop: () => Promise<void> }> {
  const build = avalanchegoBuild();
  const driver = join(build, 'localnet');
  killOnExit();
  const l1Args = options.l1 ? ['--l1', '--xsvm', join(build, 'xsvm')] : [];
  const { stdout } = await run(driver, ['up', '--dir', dir, '--avalanchego', join(build, 'avalanchego'), ...l1Args], {
    timeout: 240_000,
    maxBuffer: 1 << 20,
  }).catch((e: unknown) => {
    // The driver stops what it started on a failed start; kill whatever is left, then say why.
    for (const pid of pidsUnder(dir)) kill(pid);
    throw new Error(`local network: the driver failed to start it: ${(e as { stderr?: string }).stderr ?? String(e)}`);
  });
  const summary = JSON.parse(stdout) as Summary;
  for (const n of summary.nodes) live.add(n.pid);
  const byRole = (role: LocalNode['role']) => summary.nodes.filter((n) => n.role === role);

  /**
   * Starts avalanchego with `args` detached (it outlives nothing: {@link killOnExit}), its output appended to
   * `<dataDir>/logs/<logName>`; waits for the process.json it writes and for its API to answer, and returns it.
   */
  const launch = async (dataDir: string, logName: string, args: string[]): Promise<{ pid: number; uri: string; stakingAddress: string }> => {
    mkdirSync(join(dataDir, 'logs'), { recursive: true });
    rmSync(join(dataDir, 'process.json'), { force: true });
    const out = openSync(join(dataDir, 'logs', logName), 'a');
    const child = spawn(join(build, 'avalanchego'), args, { detached: true, stdio: ['ignore', out, out] });
    child.unref();
    if (child.pid !== undefined) live.add(child.pid);
    await until(`the node of ${dataDir} writes its process.json`, () => readPid(dataDir) !== undefined, 60_000);
    const pc = JSON.parse(readFileSync(join(dataDir, 'process.json'), 'utf8')) as { pid: number; uri: string; stakingAddress: string };
    live.add(pc.pid);
    await until(`the node of ${dataDir} answers on ${pc.uri}`, () => answers(pc.uri), 60_000);
    return pc;
  };

  const startStuckNode = async (): Promise<LocalNode> => {
    const template = summary.nodes.find((n) => n.role === 'rpc');
    if (!template) throw new Error('local network: no RPC node to copy the flags of');
    const flags = JSON.parse(readFileSync(template.flagsPath, 'utf8')) as Record<string, string>;
    const dataDir = join(summary.networkDir, 'stuck-bootstrapping');
    mkdirSync(dataDir, { recursive: true });
    // A fresh identity (config/flags.go: ephemeral staking certificate and BLS key), fresh ports, and a
    // bootstrapper nobody listens on (port 1) under a real validator's id.
    for (const k of ['staking-tls-cert-file-content', 'staking-tls-key-file-content', 'staking-signer-key-file-content']) delete flags[k];
    Object.assign(flags, {
      'data-dir': dataDir,
      'http-port': '0',
      'staking-port': '0',
      'staking-ephemeral-cert-enabled': 'true',
      'staking-ephemeral-signer-enabled': 'true',
      'bootstrap-ips': '127.0.0.1:1',
      'bootstrap-ids': (summary.nodes[0] as LocalNode).nodeId,
    });
    const flagsPath = join(dataDir, 'flags.json');
    writeFileSync(flagsPath, JSON.stringify(flags));
    const pc = await launch(dataDir, 'stdout.log', ['--config-file', flagsPath]);
    const res = await fetch(`${pc.uri}/ext/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.getNodeID', params: {} }),
      signal: AbortSignal.timeout(5_000),
    });
    const nodeId = ((await res.json()) as { result?: { nodeID?: string } }).result?.nodeID;
    if (!nodeId) throw new Error(`local network: the stuck node on ${pc.uri} gave no node id`);
    return { role: 'rpc', nodeId, uri: pc.uri, stakingAddress: pc.stakingAddress, pid: pc.pid, dataDir, flagsPath };
  };

  const l1: LocalL1 | undefined = summary.l1 && {
    subnetId: summary.l1.subnetId,
    blockchainId: summary.l1.blockchainId,
    validators: summary.l1.validators.map((v) => {
      const node = summary.nodes.find((n) => n.nodeId === v.nodeId);
      if (!node) throw new Error(`local network: the L1 validator ${v.nodeId} has no node`);
      return { ...v, node };
    }),
  };

  const network: LocalNetwork = {
    startStuckNode,
    l1,
    networkId: summary.networkId,
    nodes: summary.nodes,
    validators: byRole('validator'),
    rpc: byRole('rpc')[0] as LocalNode,
    partialSync: byRole('partial-sync')[0] as LocalNode,
    async transfer(node) {
      const via = node ?? summary.nodes[0];
      if (!via) throw new Error('local network: no node to send the transfers through');
      const r = await run(driver, ['tx', '--uri', via.uri], { timeout: 120_000 });
      return JSON.parse(r.stdout) as { x: string; p: string; c: string };
    },
    async transferOnL1(node) {
      if (!l1) throw new Error('local network: started without an L1 ({ l1: true })');
      const via = node ?? (l1.validators.find((v) => v.name === 'main') as L1Validator).node;
      const r = await run(driver, ['tx', '--uri', via.uri, '--xsvm-chain', l1.blockchainId], { timeout: 120_000 });
      return (JSON.parse(r.stdout) as { l1: string }).l1;
    },
    async signal(node, signal) {
      process.kill(node.pid, signal);
      if (signal === 'SIGTERM' || signal === 'SIGKILL') {
        await until(`node ${node.nodeId} exits after ${signal}`, () => !alive(node.pid), 60_000);
        live.delete(node.pid);
      }
    },
    async startNode(node, extraFlags = []) {
      if (alive(node.pid)) throw new Error(`local network: node ${node.nodeId} is still running (pid ${node.pid})`);
      const httpPort = new URL(node.uri).port;
      const stakingPort = node.stakingAddress.split(':').pop() as string;
      // Flags on the command line win over the config file (config/config.go reads both through viper).
      const pc = await launch(node.dataDir, 'restarts.log', [
        '--config-file',
        node.flagsPath,
        `--http-port=${httpPort}`,
        `--staking-port=${stakingPort}`,
        ...extraFlags,
      ]);
      node.pid = pc.pid;
    },
    async startNewNode(httpPort) {
      const template = summary.nodes.find((n) => n.role === 'rpc');
      if (!template) throw new Error('local network: no RPC node to copy the flags of');
      const flags = JSON.parse(readFileSync(template.flagsPath, 'utf8')) as Record<string, string>;
      const dataDir = join(summary.networkDir, `new-node-${httpPort}`);
      mkdirSync(dataDir, { recursive: true });
      const validators = byRole('validator');
      // A fresh identity (config/flags.go: ephemeral staking certificate and BLS key) and an empty database, as a
      // node an operator adds; its bootstrappers are the real validators (config/config.go: bootstrap-ids and
      // bootstrap-ips, one id per address), so it fetches and executes their chains (chains/manager.go).
      for (const k of ['staking-tls-cert-file-content', 'staking-tls-key-file-content', 'staking-signer-key-file-content']) delete flags[k];
      Object.assign(flags, {
        'data-dir': dataDir,
        'http-port': String(httpPort),
        'staking-port': '0',
        'staking-ephemeral-cert-enabled': 'true',
        'staking-ephemeral-signer-enabled': 'true',
        'bootstrap-ips': validators.map((v) => v.stakingAddress).join(','),
        'bootstrap-ids': validators.map((v) => v.nodeId).join(','),
      });
      const flagsPath = join(dataDir, 'flags.json');
      writeFileSync(flagsPath, JSON.stringify(flags));
      const pc = await launch(dataDir, 'stdout.log', ['--config-file', flagsPath]);
      const res = await fetch(`${pc.uri}/ext/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.getNodeID', params: {} }),
        signal: AbortSignal.timeout(5_000),
      });
      const nodeId = ((await res.json()) as { result?: { nodeID?: string } }).result?.nodeID;
      if (!nodeId) throw new Error(`local network: the new node on ${pc.uri} gave no node id`);
      return { role: 'rpc', nodeId, uri: pc.uri, stakingAddress: pc.stakingAddress, pid: pc.pid, dataDir, flagsPath };
    },
  };

  const stop = async () => {
    await run(driver, ['down', '--dir', dir], { timeout: 90_000 }).catch(() => undefined);
    for (const pid of [...live, ...pidsUnder(dir)]) kill(pid);
    live.clear();
  };
  return { network, stop };
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The PIDs recorded by the nodes of the network in `dir` that still run an avalanchego of that directory. */
function pidsUnder(dir: string): number[] {
  const pids: number[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 3 || !existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const pid = readPid(join(d, e.name));
      if (pid !== undefined && alive(pid) && cmdlineMentions(pid, dir)) pids.push(pid);
      walk(join(d, e.name), depth + 1);
    }
  };
  walk(dir, 0);
  return pids;
}

function cmdlineMentions(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

/** Keeps the nodes' logs of a failed file, drops everything else. */
function keepLogs(dir: string, name: string): string | undefined {
  const kept = join(ROOT, '.tmp', 'localnet-logs', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  let any = false;
  const walk = (d: string, depth: number) => {
    if (depth > 3 || !existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const path = join(d, e.name);
      if (e.name === 'logs') {
        cpSync(path, join(kept, resolve(d).split('/').pop() as string), { recursive: true });
        any = true;
      } else if (e.name !== 'db' && e.name !== 'chainData') walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return any ? kept : undefined;
}

/**
 * Starts the local network before the file's first test and stops it after its last; returns a getter for it.
 * `name` names the kept logs (`.tmp/localnet-logs/<name>-<time>/`) when a test of the file fails.
 */
export function useLocalNetwork(name: string, options: LocalNetworkOptions = {}): () => LocalNetwork {
  let network: LocalNetwork | undefined;
  let stop: (() => Promise<void>) | undefined;
  let failed = false;
  const dir = mkdtempSync(join(tmpdir(), `avax-localnet-${name}-`));

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    ({ network, stop } = await startLocalNetwork(dir, options));
  }, 300_000);

  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });

  afterAll(async () => {
    await stop?.();
    if (failed || network === undefined) {
      const kept = keepLogs(dir, name);
      if (kept) console.error(`local network: the nodes' logs are kept in ${kept}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  return () => {
    if (!network) throw new Error('local network: not started (its beforeAll failed)');
    return network;
  };
}
