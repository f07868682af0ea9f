import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { LATE_RENDER_MS, MAX_RENDER_GAP_MS, PAUSED_RENDER_SERIES, RenderLoop, renderSliceMs, type RenderInput } from './render-loop.js';
import { LATE_SLICE_MS, SLICE_MS } from '../exposition/time-slice.js';
import type { Sample } from '../metrics/metric-defs.js';
import { createLogger } from '../log.js';
import { LogCapture, valueOf } from '../../test/helpers/daemon.js';

/** A render input whose state is one number; its assembly fails once when asked to. */
function fakeInput(nodes: number, filler = 0) {
  const state = { value: 0, rounds: Array.from({ length: nodes }, () => 0), assembled: 0, failNext: false };
  // Series besides the one that holds the value: a fleet-sized exposition when asked for.
  const series: Sample[] = Array.from({ length: filler }, (_, i) => ({ name: 'avax_source_up', labels: { node: 'n', source: `s${i}` }, value: 1 }));
  const input: RenderInput = {
    nodeRounds: () => state.rounds,
    expire: () => {},
    assemble: () => {
      state.assembled++;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('assembly failed');
      }
      return [[{ name: 'avax_exporter_series', labels: {}, value: state.value }], series];
    },
  };
  return {
    state,
    input,
  };
}

const served = (loop: RenderLoop) => valueOf(loop.exposition.text.toString(), 'avax_exporter_series');
const settle = () => new Promise((r) => setTimeout(r, 20));
/** A render loop whose logs go nowhere. */
const quietLoop = () => new RenderLoop(createLogger({ level: 'info', format: 'json', destination: new LogCapture() }));
/** A node's round ended and the rounds advanced, as the fleet tells the loop. */
function endRound(loop: RenderLoop): void {
  loop.roundEnded();
  loop.roundsAdvanced();
}

describe('render loop', () => {
  it('renders once on start, and is ready only once every node has a round in the served exposition', async () => {
    const f = fakeInput(2);
    const loop = quietLoop();
    await loop.start(f.input);
    expect(loop.renders).toBe(1);
    expect(loop.ready()).toBe(false);
    f.state.rounds[0] = 1;
    endRound(loop);
    await loop.settle();
    expect(loop.ready()).toBe(false); // one node of two
    f.state.rounds[1] = 1;
    expect(loop.ready()).toBe(false); // not before a render holds it
    endRound(loop);
    await loop.settle();
    expect(loop.ready()).toBe(true);
  });

  it('coalesces requests that arrive during a render into one more render', async () => {
    const f = fakeInput(1);
    const loop = quietLoop();
    await loop.start(f.input);
    f.state.value = 1;
    loop.requestRender();
    expect(loop.inFlight).toBeDefined();
    f.state.value = 2;
    loop.requestRender();
    loop.requestRender();
    loop.requestRender();
    await loop.settle();
    // The start, the one asked for, and one for everything asked during it.
    expect(f.state.assembled).toBe(3);
    expect(loop.renders).toBe(3);
    expect(served(loop)).toBe(2);
  });

  it('resolves a round waiter on the render that follows the rounds, with the state they saw', async () => {
    const f = fakeInput(2);
    const loop = quietLoop();
    await loop.start(f.input);
    let resolved = false;
    const waited = loop.waitForRounds(1).then(() => (resolved = true));
    f.state.rounds[0] = 1;
    endRound(loop);
    await loop.settle();
    await settle();
    expect(resolved).toBe(false); // the other node has not completed a round yet
    f.state.rounds[1] = 1;
    f.state.value = 7;
    endRound(loop);
    await waited;
    expect(served(loop)).toBe(7);
    // Each render that followed a round measured its lag from that round's end.
    expect(loop.freshnessLagsMs()).toHaveLength(2);
    for (const lag of loop.freshnessLagsMs()) expect(lag).toBeGreaterThanOrEqual(0);
  });

  it('keeps serving the last exposition when a render fails, logs it, and releases its waiters; the next render still measures the round', async () => {
    const f = fakeInput(1);
    const logs = new LogCapture();
    const loop = new RenderLoop(createLogger({ level: 'info', format: 'json', destination: logs }));
    f.state.value = 3;
    await loop.start(f.input);
    const waited = loop.waitForRounds(1);
    f.state.rounds[0] = 1;
    f.state.value = 4;
    f.state.failNext = true;
    endRound(loop);
    await waited;
    expect(served(loop)).toBe(3);
    expect(logs.withMsg('render failed')).toHaveLength(1);
    expect(loop.freshnessLagsMs()).toEqual([]);
    loop.requestRender();
    await loop.settle();
    expect(served(loop)).toBe(4);
    expect(loop.freshnessLagsMs()).toHaveLength(1);
  });

  it('renders the served moment again, fresh or cached, to the same text', async () => {
    const f = fakeInput(1);
    const loop = quietLoop();
    f.state.value = 5;
    await loop.start(f.input);
    expect((await loop.renderFresh()).text.equals(loop.exposition.text)).toBe(true);
    expect((await loop.renderCached()).text.equals(loop.exposition.text)).toBe(true);
    expect(loop.renders).toBe(1); // neither is served
  });

  it('serves an exposition whose gzip is made: a scrape never waits for a compression', async () => {
    const f = fakeInput(1);
    const loop = quietLoop();
    f.state.value = 9;
    await loop.start(f.input);
    let made = false;
    void loop.exposition.gzip().then(() => (made = true));
    await Promise.resolve();
    expect(made).toBe(true);
    expect(gunzipSync(await loop.exposition.gzip()).equals(loop.exposition.text)).toBe(true);
  });

  it("at a fleet's size, gathers the rounds of some nodes ending close together into one render after a pause", async () => {
    const f = fakeInput(3, PAUSED_RENDER_SERIES);
    const loop = quietLoop();
    await loop.start(f.input);
    expect(f.state.assembled).toBe(1);
    // Rounds of two of the three nodes end one after another.
    for (let i = 1; i <= 4; i++) {
      f.state.rounds[i % 2] = i;
      f.state.value = i;
      endRound(loop);
    }
    expect(loop.inFlight).toBeDefined();
    expect(f.state.assembled).toBe(1); // not yet: it waits out the pause after the start's render
    await loop.settle();
    // One render for all four rounds, with the last value.
    expect(f.state.assembled).toBe(2);
    expect(loop.renders).toBe(2);
    expect(served(loop)).toBe(4);
    expect(loop.freshnessLagsMs()).toHaveLength(1);
  });

  it("renders at once, even at a fleet's size, once every node has a new round: all it shows is new", async () => {
    const f = fakeInput(2, PAUSED_RENDER_SERIES);
    const loop = quietLoop();
    await loop.start(f.input);
    f.state.rounds[0] = 1;
    f.state.rounds[1] = 1;
    f.state.value = 1;
    endRound(loop);
    expect(f.state.assembled).toBe(2); // started without a pause
    await loop.settle();
    expect(served(loop)).toBe(1);
  });

  it('resolves a round waiter on the paused render that holds its rounds', async () => {
    const f = fakeInput(2, PAUSED_RENDER_SERIES);
    const loop = quietLoop();
    await loop.start(f.input);
    let resolved = false;
    const waited = loop.waitForRounds(1).then(() => (resolved = true));
    f.state.rounds[0] = 1;
    endRound(loop); // one node of two: a render after the pause
    f.state.rounds[1] = 1;
    f.state.value = 6;
    endRound(loop); // the render waiting out its pause will hold this round too
    await loop.settle();
    expect(loop.renders).toBe(2);
    expect(resolved).toBe(true);
    await waited;
    expect(served(loop)).toBe(6);
  });

  it('gives a render longer slices only once the oldest round it serves is later than any pause makes it', () => {
    expect(LATE_RENDER_MS).toBeGreaterThan(MAX_RENDER_GAP_MS);
    expect(LATE_SLICE_MS).toBeGreaterThan(SLICE_MS);
    // A render that serves no round (a reload, an expiry) is never in a hurry.
    expect(renderSliceMs(undefined)).toBe(SLICE_MS);
    expect(renderSliceMs(0)).toBe(SLICE_MS);
    expect(renderSliceMs(MAX_RENDER_GAP_MS)).toBe(SLICE_MS);
    expect(renderSliceMs(LATE_RENDER_MS)).toBe(LATE_SLICE_MS);
    expect(renderSliceMs(10 * LATE_RENDER_MS)).toBe(LATE_SLICE_MS);
  });
});
