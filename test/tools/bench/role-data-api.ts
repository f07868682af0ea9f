/**
 * Child role `data-api`: the project's fake Data API in a process of its own,
 * with the fixture's answers about the mainnet world's own validator (the
 * node the sidecar scenario polls), so the exporter's Data API sources have
 * real work to do: the node's validations, the blocks it proposed, the
 * chains' latest blocks, L1 validators.
 */
import { mkdirSync } from 'node:fs';
import { FakeDataApi, defaultFakeDataApiState, type FakeDataApiCall, type FakeDataApiState } from '../../fakes/fake-data-api.js';
import { FIXTURE_IDS } from '../../fakes/fake-data.js';
import { MAINNET, mainnetWorld } from './world.js';
import { recordBodies, type RecordedCalls } from './role-fake.js';
import type { Role } from './child.js';

/** What the data-api role reports at start. */
export interface DataApiInfo {
  url: string;
  /** The node id its answers are about. */
  nodeId: string;
}

function callKey(c: FakeDataApiCall): string {
  return `GET ${c.path}?${new URLSearchParams(c.query).toString()}`;
}

export async function startDataApiRole(): Promise<Role> {
  const nodeId = mainnetWorld(MAINNET).nodeId as string;
  // The fixture's answers (wire-shaped: strings and numbers), about the world's own validator instead of the fixture node.
  const state = JSON.parse(JSON.stringify(defaultFakeDataApiState()).replaceAll(FIXTURE_IDS.nodeId, nodeId)) as FakeDataApiState;
  const api = await FakeDataApi.start({ state, maxCalls: 200_000 });
  return {
    info: { url: api.url, nodeId } satisfies DataApiInfo,
    handlers: {
      clear: () => {
        api.clearCalls();
        return true;
      },
      /** The calls since the last `bodies` by kind, one answer of each written to `dir`. */
      async bodies(a: unknown): Promise<RecordedCalls> {
        const { dir } = a as { dir: string };
        mkdirSync(dir, { recursive: true });
        const calls = api.calls.splice(0);
        const requestOf = (c: FakeDataApiCall) => ({ url: `${api.url}${c.path}?${new URLSearchParams(c.query).toString()}`, method: 'GET' });
        return recordBodies(calls, callKey, requestOf, dir, 'data-api');
      },
    },
    close: () => api.stop(),
  };
}
