/**
 * Data for the tests' fake node: the demo's fixture world, IDs and generators (src/demo/), under
 * the names the tests have always used, plus the helpers only tests need.
 *
 * @packageDocumentation
 */
import type { FakeValidator } from '../../src/demo/node-state.js';
import { defaultFakeState } from '../../src/demo/fixture-world.js';
import { idFrom } from '../../src/demo/ids.js';

export { defaultFakeState, FIXTURE_IDS, FIXTURE_NOW, MAINNET_CHAIN_IDS, PRIMARY_NETWORK_ID } from '../../src/demo/fixture-world.js';
export { cb58Decode, cb58Encode, createPrng, idFrom, isCb58Id, isCb58NodeId, randomId, randomNodeId, type Prng } from '../../src/demo/ids.js';
export { generatePeers, generateValidators } from '../../src/demo/generate.js';

/**
 * A connected primary-network validator for `nodeId` with `weight` nAVAX of its own and, when
 * `delegated` is positive, one delegation of that many nAVAX: the fixture world's second
 * validator (times, owners, fee, BLS key) with another node and stake. Gives the fixture peers
 * (or generated ones) stake, e.g. to test how connected stake splits over versions; the default
 * world keeps the fixtures' two validators, which are not among its peers.
 */
export function fixtureValidatorFor(nodeId: string, weight: bigint, delegated = 0n): FakeValidator {
  const template = defaultFakeState().primaryValidators[1];
  if (!template) throw new Error('the fixture world has no second validator');
  const v = template;
  v.nodeId = nodeId;
  v.txId = idFrom(`validator/${nodeId}`);
  v.weight = weight;
  v.connected = true;
  v.uptime = 99.5;
  v.delegators =
    delegated > 0n
      ? [{ txId: idFrom(`delegation/${nodeId}`), startTime: v.startTime, endTime: v.endTime, weight: delegated, potentialReward: delegated / 100n }]
      : [];
  return v;
}
