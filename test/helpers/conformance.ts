/**
 * Asking a real AvalancheGo and a fake the same question, and comparing their answers (issue 41, point 3): the
 * HTTP status, the headers AvalancheGo sets, and the shape of the body (./wire-shape.ts: keys and their order,
 * value types, number encodings); error codes and texts word for word where both are asked the same question.
 * Used by test/real-network/conformance.test.ts (the primary network's three roles, a bootstrapping node) and
 * test/real-network/l1.test.ts (an L1's validators and chain).
 *
 * @packageDocumentation
 */
import { expect } from 'vitest';
import { compareShapes, type ShapeDifference, type ShapeRules } from './wire-shape.js';

/** The role of the node a question is asked of. */
export type Role = 'validator' | 'rpc' | 'partial-sync' | 'l1-validator';

/** What one question asks. `fakeParams` replaces ids of the real world with the fixture world's. */
export interface Question<Ids = unknown> {
  name: string;
  role: Role;
  httpMethod: 'GET' | 'POST';
  path: string;
  /** For the fake, when its world names the thing otherwise (an L1 chain's route, a subnet's tag). */
  fakePath?: string;
  rpcMethod?: string;
  params?: (real: Ids) => unknown;
  fakeParams?: unknown;
  /** The same question on both sides: error texts must then be equal word for word. */
  sameQuestion?: boolean;
  rules?: ShapeRules;
}

/**
 * Keys AvalancheGo writes only when they are set, which one world has and the other has not.
 * Each cites the field's `omitempty` (or the code that leaves it out).
 */
const OPTIONAL: Record<string, string> = {
  // vms/platformvm/service.go GetCurrentValidators: the fixture world's validators have delegators and
  // validation reward owners; api.PermissionlessValidator (vms/platformvm/api/static_service.go) tags them omitempty.
  'result.validators[].delegators': 'vms/platformvm/api: Delegators []PrimaryDelegator `json:"delegators,omitempty"`',
  'result.validators[].delegatorCount': 'vms/platformvm/api: DelegatorCount *json.Uint64 `json:"delegatorCount,omitempty"`',
  'result.validators[].delegatorWeight': 'vms/platformvm/api: DelegatorWeight *json.Uint64 `json:"delegatorWeight,omitempty"`',
};

/** Maps keyed by data. */
const MAPS = ['result.vmVersions'];

/** One answer, as compared. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/** The headers both must send alike (Date, Content-Length and the node id's value vary by world). */
const HEADERS = ['content-type', 'x-content-type-options', 'node-id'];

/** Asks `q` of the node at `base` with `params` (a JSON-RPC call, or a GET). */
export async function ask(base: string, q: Question<never>, params: unknown): Promise<Answer> {
  const init: RequestInit =
    q.httpMethod === 'GET'
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: q.rpcMethod, params }) };
  const res = await fetch(base + q.path, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain-text answer (404 page not found, 503 not bootstrapped) is compared as text
  }
  const headers: Record<string, string> = {};
  for (const h of HEADERS) {
    const v = res.headers.get(h);
    if (v !== null) headers[h] = h === 'node-id' ? 'NodeID-…' : v;
  }
  return { status: res.status, headers, body, text };
}

/**
 * Keys of health reports that only a node running long enough writes, with the AvalancheGo file that says so.
 * The local network's validators have just started; its other nodes run with a short grace period and show the
 * key, so its shape is compared there.
 */
export const HEALTH_OPTIONAL_FOR_VALIDATOR: Record<string, string> = {
  'checks.network.message.primary network validator health':
    'network/network.go HealthCheck: written once --network-no-ingress-connections-grace-period (10 min) has passed since start-up',
};

/** A chain id as a health check's name: an L1's chain (the primary network's chains are named by alias). */
const isChainId = (k: string) => /^[1-9A-HJ-NP-Za-km-z]{40,}$/.test(k);

/**
 * Health reports: checks by name, chain checks by the chains each world runs. An L1 chain's check of the fake is
 * compared with the real node's L1 chain check when it runs one, else with its P-Chain's (a chain's check like any).
 */
function compareHealth(real: unknown, fake: unknown, role: Role): ShapeDifference[] {
  const r = real as { checks: Record<string, unknown>; healthy: boolean };
  const f = fake as { checks: Record<string, unknown>; healthy: boolean };
  const diffs = compareShapes({ ...r, checks: {} }, { ...f, checks: {} });
  const names = (o: Record<string, unknown>) => Object.keys(o).filter((k) => !isChainId(k));
  if (names(r.checks).join() !== names(f.checks).join()) {
    diffs.push({ path: 'checks (names, in order)', real: names(r.checks).join(', '), fake: names(f.checks).join(', ') });
  }
  const rules: ShapeRules = { optional: role === 'validator' ? HEALTH_OPTIONAL_FOR_VALIDATOR : {} };
  for (const k of names(r.checks)) if (k in f.checks) diffs.push(...compareShapes(r.checks[k], f.checks[k], rules, `checks.${k}`));
  const realL1 = Object.keys(r.checks).find(isChainId);
  for (const k of Object.keys(f.checks).filter(isChainId)) {
    if (realL1)
      diffs.push(
        ...compareShapes(withoutVmOwnHealth(r.checks[realL1]), withoutVmOwnHealth(f.checks[k]), {}, `checks.<L1 chain ${k}> against checks.<L1 chain>`),
      );
    // Against P, the in-process chain whose engine.vm is null: the rest of the check only.
    else if (r.checks['P']) diffs.push(...compareShapes(withoutVm(r.checks['P']), withoutVm(f.checks[k]), {}, `checks.<L1 chain ${k}> against checks.P`));
  }
  return diffs;
}

/** A chain check without its engine's `vm` report: an in-process chain (P) writes null there, a plugin VM its report. */
function withoutVm(check: unknown): unknown {
  const copy = structuredClone(check) as { message?: { engine?: Record<string, unknown> } };
  if (copy.message?.engine) delete copy.message.engine['vm'];
  return copy;
}

/**
 * A plugin VM's chain check without `message.engine.vm.health`: the rpcchainvm server writes `{database, health}`
 * for every plugin (vms/rpcchainvm/vm_server.go Health), but `health` is whatever that VM's HealthCheck returns: 200
 * for the real L1's xsvm (vms/example/xsvm/vm.go), null for the fake's Subnet-EVM (graft/subnet-evm/plugin/evm/health.go).
 */
function withoutVmOwnHealth(check: unknown): unknown {
  const copy = structuredClone(check) as { message?: { engine?: { vm?: Record<string, unknown> | null } } };
  const vm = copy.message?.engine?.vm;
  if (vm && typeof vm === 'object') delete vm['health'];
  return copy;
}

/** How the answers differ in their HTTP status and the headers AvalancheGo sets. */
export function statusAndHeaderDifferences(real: Answer, fake: Answer): ShapeDifference[] {
  const diffs: ShapeDifference[] = [];
  if (real.status !== fake.status) diffs.push({ path: 'HTTP status', real: String(real.status), fake: String(fake.status) });
  for (const h of HEADERS)
    if (real.headers[h] !== fake.headers[h]) diffs.push({ path: `header ${h}`, real: real.headers[h] ?? '(none)', fake: fake.headers[h] ?? '(none)' });
  return diffs;
}

/** Every way the fake's answer differs from the real one. */
export function differences(q: Question<never>, real: Answer, fake: Answer): ShapeDifference[] {
  const diffs = statusAndHeaderDifferences(real, fake);
  if (typeof real.body === 'string' || typeof fake.body === 'string') {
    if (real.text !== fake.text) diffs.push({ path: 'body', real: JSON.stringify(real.text.slice(0, 200)), fake: JSON.stringify(fake.text.slice(0, 200)) });
    return diffs;
  }
  if (q.httpMethod === 'GET' && q.path.startsWith('/ext/health')) return [...diffs, ...compareHealth(real.body, fake.body, q.role)];
  diffs.push(...compareShapes(real.body, fake.body, { optional: { ...OPTIONAL, ...q.rules?.optional }, mapPaths: [...MAPS, ...(q.rules?.mapPaths ?? [])] }));
  const err = (b: unknown) => (b as { error?: { code: number; message: string } }).error;
  if (q.sameQuestion && (err(real.body) || err(fake.body)) && JSON.stringify(err(real.body)) !== JSON.stringify(err(fake.body))) {
    diffs.push({ path: 'error', real: JSON.stringify(err(real.body)), fake: JSON.stringify(err(fake.body)) });
  }
  return diffs;
}

/** Fails on any difference, listing them and both answers. */
export function expectSameAnswer(q: Question<never>, real: Answer, fake: Answer): void {
  const diffs = differences(q, real, fake);
  const listed = diffs.map((d) => `${d.path}: real ${d.real}, fake ${d.fake}`).join('\n');
  expect(diffs, `${listed}\nreal: ${real.text.slice(0, 1500)}\nfake: ${fake.text.slice(0, 1500)}`).toEqual([]);
}
