import { describe, expect, it } from 'vitest';
import { FakeNode } from '../fakes/fake-node.js';
import { generateValidators } from '../fakes/fake-data.js';
import { PRIMARY_NETWORK_ID } from '../../src/sources/node/validators/index.js';
import { scrape, seriesOf, startTestDaemon, waitUntilAllUp } from '../helpers/daemon.js';
import { testHandle } from '../../src/daemon.js';

describe('validator churn at scale', () => {
  it('20,000 validators with 5 % churn per poll: exactly the current set is exported, no series leak', async () => {
    const pool = generateValidators(23_000, { seed: 11, delegatorsPerValidator: 0 });
    let current = pool.slice(0, 20_000);
    let spare = pool.slice(20_000);
    const node = await FakeNode.start({ state: { primaryValidators: current } });
    const { daemon } = await startTestDaemon({
      nodes: [{ name: 'big', url: node.url, watch: { all_validators: true, max_validators: 25_000 } }],
      poll: { interval: '4s', timeout: '3500ms' },
    });
    try {
      await waitUntilAllUp(daemon, 30_000);
      const removedEver = new Set<string>();
      for (let round = 0; round < 3; round++) {
        // 5 % leave, 5 % join.
        const leaving = current.slice(0, 1_000);
        for (const v of leaving) removedEver.add(v.nodeId);
        current = [...current.slice(1_000), ...spare.slice(0, 1_000)];
        spare = [...spare.slice(1_000), ...leaving];
        node.state.primaryValidators = current;
        await testHandle(daemon).waitForRounds(2);
        const text = await scrape(daemon);
        // The node's own id is watched by default and is not in this generated set: active 0, nothing else.
        const active = seriesOf(text, 'avax_validator_active', { subnet: PRIMARY_NETWORK_ID }).filter((s) => s.value === 1);
        expect(active).toHaveLength(20_000);
        expect(seriesOf(text, 'avax_validator_active', { node_id: node.state.nodeId })).toEqual([{ labels: expect.any(Object) as unknown, value: 0 }]);
        const exported = new Set(active.map((s) => s.labels['node_id']));
        for (const v of current) expect(exported.has(v.nodeId)).toBe(true);
        const currentIds = new Set(current.map((v) => v.nodeId));
        for (const id of removedEver) if (!currentIds.has(id)) expect(exported.has(id)).toBe(false);
        expect(seriesOf(text, 'avax_validator_weight')).toHaveLength(20_000);
        expect(daemon.exposition().series).toBe(
          daemon
            .exposition()
            .text.toString()
            .split('\n')
            .filter((l) => l && !l.startsWith('#')).length,
        );
      }
    } finally {
      await daemon.stop();
      await node.stop();
    }
  }, 120_000);
});
