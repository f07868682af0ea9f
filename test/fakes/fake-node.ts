/**
 * The tests' fake AvalancheGo node: the demo's node server (src/demo/node-server.ts, the same
 * answers, computed from the same state) with what only tests need: a log of every call, and
 * faults (status codes, hangs, resets, malformed bodies, delays, slow bodies) injected per
 * method or route with {@link FakeNode.setFault}.
 *
 * Tests drive it through {@link FakeNode.state}, a plain mutable object with friendly types
 * (bigint, number, boolean, Date) that is serialised to the wire formats on every request, so a
 * mutation is visible on the next call.
 *
 * @packageDocumentation
 */
import type { ServerResponse } from 'node:http';
import { defaultFakeState } from '../../src/demo/fixture-world.js';
import { bindServer, type BoundServer } from '../../src/demo/http-server.js';
import { NodeServer, type NodeRequest } from '../../src/demo/node-server.js';
import type { FakeNodeState } from '../../src/demo/node-state.js';
import { peekRpc, recordCall, type FakeCall } from './call-log.js';
import { cannedAnswer, deliverPartial, deliverSlowly, findFault, type Fault } from './faults.js';

// The state model and the helpers the tests have always found here.
export type { FakeOwner, FakeValidator, FakeL1Validator, FakeCheck, FakeL1Uptime, FakeNodeState } from '../../src/demo/node-state.js';
export { setChainNetworkingIn } from '../../src/demo/health.js';
export { rfc3339Nano } from '../../src/demo/wire.js';
export type { FakeCall } from './call-log.js';
export type { Fault } from './faults.js';

/** Options of {@link FakeNode.start}. */
export interface FakeNodeOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port to bind; default 0 (any free port). */
  port?: number;
  /** Overrides merged (shallowly) over {@link defaultFakeState}. */
  state?: Partial<FakeNodeState>;
  /** Keep at most about this many entries in {@link FakeNode.calls} (oldest dropped). Default 100 000. */
  maxCalls?: number;
}

/**
 * A fake AvalancheGo node listening on a real TCP port.
 *
 * @example
 * const node = await FakeNode.start();
 * node.state.heights.P = 42n;
 * node.setFault('info.peers', { kind: 'status', status: 502 });
 * await node.stop();
 */
export class FakeNode extends NodeServer {
  /** Every request received, oldest first (bounded by `maxCalls`). */
  readonly calls: FakeCall[] = [];

  private readonly maxCalls: number;
  private readonly faults = new Map<string, Fault>();

  private constructor(bound: BoundServer, state: FakeNodeState, maxCalls: number) {
    super(bound, state);
    this.maxCalls = maxCalls;
  }

  /** Starts a fake node (default: the fixture world on 127.0.0.1, any free port). */
  static override async start(opts: FakeNodeOptions = {}): Promise<FakeNode> {
    const state: FakeNodeState = { ...defaultFakeState(), ...opts.state };
    const node = new FakeNode(await bindServer(opts.host ?? '127.0.0.1', opts.port ?? 0), state, opts.maxCalls ?? 100_000);
    node.attach();
    return node;
  }

  /**
   * Injects a fault. `target` is, by priority: a JSON-RPC method as sent (`'info.peers'`,
   * `'eth_blockNumber'`), `'<HTTP method> <path>'` (`'GET /ext/health'`, `'POST /ext/bc/P'`),
   * a bare path (`'/ext/info'`), a GET health shorthand (`'health'`, `'readiness'`,
   * `'liveness'`), or `'*'`. `undefined` removes the fault.
   */
  setFault(target: string, fault: Fault | undefined): void {
    if (fault === undefined) this.faults.delete(target);
    else this.faults.set(target, fault);
  }

  /** Removes every fault. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** Empties {@link FakeNode.calls}. */
  clearCalls(): void {
    this.calls.length = 0;
  }

  protected override async serve(r: NodeRequest, res: ServerResponse): Promise<void> {
    const call: FakeCall = { path: r.path, query: r.query, httpMethod: r.httpMethod, at: r.at };
    const peek = peekRpc(r.body);
    if (peek.method !== undefined) call.rpcMethod = peek.method;
    if (peek.hasParams) call.params = peek.params;
    recordCall(this.calls, call, this.maxCalls);

    const fault = findFault(this.faults, call, r.endpoint);
    if (fault?.kind === 'hang') return; // the socket stays open until the client or stop() closes it
    const canned = fault && cannedAnswer(fault, r.endpoint, peek, this.state.nodeId);
    if (canned) return this.deliver(res, canned);

    const wire = this.respond(r);
    if (fault?.kind === 'delay') {
      await this.sleep(fault.ms);
      if (res.destroyed || !this.listening) return;
    }
    if (fault?.kind === 'reset') return deliverPartial(res, wire);
    if (fault?.kind === 'trickle') return deliverSlowly(res, wire, fault.bytesPerSecond, (ms, fn) => this.later(ms, fn));
    this.deliver(res, wire);
  }
}
