import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ExpositionRenderer } from '../exposition/render.js';
import { keptAnswer } from './kept-answer.js';

const samples = Array.from({ length: 50 }, (_, i) => ({ name: 'avax_node_peers' as const, labels: { node: `n${i}` }, value: i }));

describe('keptAnswer', () => {
  it('serves the same bytes as the rendered answer, plain after gzip, gzip after plain, and many times', async () => {
    const rendered = await new ExpositionRenderer().render(samples);
    const text = Buffer.from(rendered.text);
    const zipped = keptAnswer(await new ExpositionRenderer().render(samples));
    const gz = await zipped.gzip();
    expect(gunzipSync(gz)).toEqual(text);
    expect(await zipped.gzip()).toBe(gz);
    // After the gzip, the text comes back from it.
    expect(zipped.text).toEqual(text);
    expect(zipped.text).toEqual(text);
    const plain = keptAnswer(await new ExpositionRenderer().render(samples));
    expect(plain.text).toEqual(text);
    expect(gunzipSync(await plain.gzip())).toEqual(text);
    expect(plain.text).toEqual(text);
    expect([plain.series, plain.contentType]).toEqual([rendered.series, rendered.contentType]);
  });

  it('gzips what the exposition holds, in one member, no larger than the exposition would', async () => {
    const rendered = await new ExpositionRenderer().render(samples);
    const kept = keptAnswer(await new ExpositionRenderer().render(samples));
    const gz = await kept.gzip();
    expect(gunzipSync(gz)).toEqual(gunzipSync(await rendered.gzip()));
    expect(gz.length).toBeLessThanOrEqual((await rendered.gzip()).length);
  });
});
