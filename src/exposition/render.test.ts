import { describe, expect, it, vi } from 'vitest';
import { gunzipSync, gzipSync } from 'node:zlib';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MadeSamples, Sample } from '../metrics/metric-defs.js';
import { ExpositionRenderer } from './render.js';

/** Bytes handed to zlib's deflate since the test began: how much of a render's gzip was compressed anew. */
const deflated = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  return {
    ...zlib,
    deflateRawSync: (buf: Buffer, opts: import('node:zlib').ZlibOptions) => {
      deflated.bytes += buf.length;
      return zlib.deflateRawSync(buf, opts);
    },
  };
});

/** A sample whose value counts its reads: formatting a sample reads its value once. */
function counted(name: Sample['name'], labels: Record<string, string>, value: number, reads: { n: number }): Sample {
  return {
    name,
    labels,
    get value() {
      reads.n++;
      return value;
    },
  };
}

/** One validator's series, as the validators collector groups them (one labels object per entity). */
function entry(nodeId: string, weight: number, reads: { n: number }, subnet = '11111111111111111111111111111111LpoYY'): Sample[] {
  const labels = { node: 'n1', node_id: nodeId, subnet };
  return [
    counted('avax_validator_active', labels, 1, reads),
    counted('avax_validator_weight', labels, weight, reads),
    counted('avax_validator_start_timestamp_seconds', labels, 1_700_000_000, reads),
  ];
}

describe('ExpositionRenderer.renderGroups', () => {
  it('writes a group it rendered before from its kept bytes, without formatting it again, byte for byte as a fresh render', async () => {
    const reads = { n: 0 };
    // Non-ASCII label values: the kept bytes are UTF-8, as the text is.
    const a = entry('NodeID-é', 1e12, reads);
    const b = entry('NodeID-日本', 2e12, reads);
    const loose = [counted('avax_exporter_validators_omitted', { node: 'n1', subnet: 'x' }, 0, reads)];
    const budgets1 = [counted('avax_validator_downtime_budget_seconds', { node: 'n1', node_id: 'NodeID-é', subnet: 's' }, 100, reads)];
    const renderer = new ExpositionRenderer();

    const first = await renderer.renderGroups([a, b, loose, budgets1]);
    expect(renderer.formattedGroups).toBe(4);
    const firstText = first.text.toString('utf8');
    expect(reads.n).toBe(8);

    // The next round: the entries are unchanged (the same groups), the budgets are new.
    const budgets2 = [counted('avax_validator_downtime_budget_seconds', { node: 'n1', node_id: 'NodeID-é', subnet: 's' }, 90, reads)];
    reads.n = 0;
    const second = await renderer.renderGroups([a, b, loose, budgets2]);
    expect(renderer.formattedGroups).toBe(1);
    expect(reads.n).toBe(1); // only the new budget's value was read
    // Joining it encodes the new group's one part only: the others are copied from the bytes kept from the first join.
    const encode = vi.spyOn(Buffer, 'byteLength');
    const secondBytes = second.text;
    expect(encode).toHaveBeenCalledTimes(1);
    encode.mockRestore();
    const flat = await new ExpositionRenderer().render([...a, ...b, ...loose, ...budgets2]);
    expect(secondBytes.equals(flat.text)).toBe(true);
    expect(second.series).toBe(flat.series);
    expect(firstText.replace('} 100\n', '} 90\n')).toBe(second.text.toString('utf8'));
    // Per metric, the series in group order: both validators' weights under one HELP/TYPE.
    const text = second.text.toString('utf8');
    expect(text.match(/# TYPE avax_validator_weight /g)).toHaveLength(1);
    expect(text).toContain(
      'avax_validator_weight{node="n1",node_id="NodeID-é",subnet="11111111111111111111111111111111LpoYY"} 1000000000000\navax_validator_weight{node="n1",node_id="NodeID-日本"',
    );
  });

  it('asks a group that makes its samples for them once, writes them as a flat render does, and keeps none of them', async () => {
    const reads = { n: 0 };
    let makes = 0;
    let madeLast: WeakRef<Sample>[] = [];
    const made = (make: () => Sample[]): MadeSamples => ({
      make: () => {
        makes++;
        const samples = make();
        madeLast = samples.map((x) => new WeakRef(x));
        return samples;
      },
    });
    const a = made(() => entry('NodeID-A', 1, reads));
    // It repeats A's series (and adds B's): a duplicate across groups, dropped from its kept lines without its samples.
    const b = made(() => [...entry('NodeID-B', 2, reads), ...entry('NodeID-A', 3, reads)]);
    const flat = await new ExpositionRenderer().render([...entry('NodeID-A', 1, reads), ...entry('NodeID-B', 2, reads), ...entry('NodeID-A', 3, reads)]);
    const renderer = new ExpositionRenderer();
    for (let round = 0; round < 3; round++) {
      const out = await renderer.renderGroups([a, b]);
      expect(out.text.equals(flat.text)).toBe(true);
      expect(out.series).toBe(6);
      expect(renderer.duplicates).toBe(3);
    }
    expect(makes).toBe(2);
    // Once formatted, the renderer holds their lines only: the samples a group made are garbage.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await new Promise((resolve) => setImmediate(resolve)); // WeakRefs made in a job hold their target until it ends
    gc();
    expect(madeLast).toHaveLength(6);
    expect(madeLast.every((ref) => ref.deref() === undefined)).toBe(true);
    expect((await renderer.renderGroups([a, b])).text.equals(flat.text)).toBe(true);
    expect(makes).toBe(2);
  });

  it('keeps the first of a series two cached groups both have, as a flat render does', async () => {
    const reads = { n: 0 };
    const a = entry('NodeID-A', 1, reads);
    const b = [...entry('NodeID-B', 2, reads), ...entry('NodeID-A', 3, reads)];
    const c = entry('NodeID-C', 4, reads);
    const renderer = new ExpositionRenderer();
    for (let round = 0; round < 2; round++) {
      const out = await renderer.renderGroups([a, b, c]);
      const flat = await new ExpositionRenderer().render([...a, ...b, ...c]);
      expect(out.text.toString('utf8')).toBe(flat.text.toString('utf8'));
      expect(out.series).toBe(9);
      expect(renderer.duplicates).toBe(3);
      expect(renderer.formattedGroups).toBe(round === 0 ? 3 : 0);
    }
  });

  it('finds a series two groups share after renders in which their parts had keys of their own (label values with spaces, quotes and newlines)', async () => {
    const reads = { n: 0 };
    const weight = (node: string, id: string, w: number) => [counted('avax_validator_weight', { node, node_id: id, subnet: 's p"a\\ce\n' }, w, reads)];
    const one = weight('node one', 'NodeID-A b', 1);
    const two = weight('node "two"', 'NodeID-B', 2);
    const renderer = new ExpositionRenderer();
    // Each part its own node: nothing to count, the parts keep no per-series keys.
    for (let round = 0; round < 2; round++) expect((await renderer.renderGroups([one, two])).series).toBe(2);
    // A later group of node one repeats node one's series (and adds one): the first stays, as in a flat render.
    const again = [...weight('node one', 'NodeID-A b', 9), ...weight('node one', 'NodeID-C', 3)];
    for (let round = 0; round < 2; round++) {
      const out = await renderer.renderGroups([one, two, again]);
      const flat = await new ExpositionRenderer().render([...one, ...two, ...again]);
      expect(out.text.toString('utf8')).toBe(flat.text.toString('utf8'));
      expect(out.series).toBe(3);
      expect(renderer.duplicates).toBe(1);
      expect(out.text.toString('utf8')).toContain('avax_validator_weight{node="node one",node_id="NodeID-A b",subnet="s p\\"a\\\\ce\\n"} 1\n');
    }
    // Apart again: the same text as a flat render.
    const out = await renderer.renderGroups([one, two]);
    expect(out.text.toString('utf8')).toBe((await new ExpositionRenderer().render([...one, ...two])).text.toString('utf8'));
  });

  it('joins an earlier exposition read after a later render encoded the groups it shares', async () => {
    const reads = { n: 0 };
    const a = entry('NodeID-A', 1, reads);
    const renderer = new ExpositionRenderer();
    const first = await renderer.renderGroups([a, entry('NodeID-B', 2, reads)]);
    const second = await renderer.renderGroups([a, entry('NodeID-B', 5, reads)]);
    const secondText = second.text.toString('utf8'); // encodes group a's kept bytes
    expect(secondText).toContain('node_id="NodeID-B",subnet="11111111111111111111111111111111LpoYY"} 5\n');
    const firstText = first.text.toString('utf8');
    expect(firstText).toBe(secondText.replace('} 5\n', '} 2\n'));
    expect(await renderer.renderGroups([a])).toHaveProperty('series', 3);
  });

  it('gzips a render by compressing only the runs of series that changed, to the same text', async () => {
    const reads = { n: 0 };
    // A validator set: 600 entries, each its own group, as the validators collector makes them.
    const entries = Array.from({ length: 600 }, (_, i) => entry(`NodeID-${i}-é`, i, reads));
    const renderer = new ExpositionRenderer();
    const first = await renderer.renderGroups(entries);
    deflated.bytes = 0;
    const firstGzip = await first.gzip();
    expect(gunzipSync(firstGzip).equals(first.text)).toBe(true);
    const wholeBytes = deflated.bytes;
    // Everything but the HELP and TYPE lines, which are compressed once for every render.
    expect(wholeBytes).toBeGreaterThan(first.text.length * 0.95);

    // One entry changes: its run of each metric is compressed again, the rest kept.
    const next = entries.slice();
    next[300] = entry('NodeID-300-é', 1e15, reads);
    const second = await renderer.renderGroups(next);
    deflated.bytes = 0;
    const secondGzip = await second.gzip();
    expect(deflated.bytes).toBeLessThan(wholeBytes / 5);
    expect(gunzipSync(secondGzip).equals(second.text)).toBe(true);
    const flat = await new ExpositionRenderer().render(next.flat());
    expect(gunzipSync(secondGzip).equals(flat.text)).toBe(true);
    // The earlier exposition still gzips to its own text.
    expect(gunzipSync(await first.gzip()).toString('utf8')).toBe(first.text.toString('utf8'));
  });

  it('gzips a small exposition about as small as one compression of its text (no segment per metric)', async () => {
    const reads = { n: 0 };
    // A sidecar's shape: many metrics of a few series each, every group cached.
    const groups = Array.from({ length: 40 }, (_, i) => entry(`NodeID-${i}`, i, reads));
    const renderer = new ExpositionRenderer();
    await renderer.renderGroups(groups);
    const exp = await renderer.renderGroups(groups);
    const gz = await exp.gzip();
    expect(gunzipSync(gz).equals(exp.text)).toBe(true);
    expect(gz.length).toBeLessThan(gzipSync(exp.text, { level: 1 }).length * 1.15);
  });
});
