import { gunzipSync, gzipSync } from 'node:zlib';
import type { Exposition } from '../exposition/render.js';

/** The gzip level of a probe answer: the exposition's own, the fastest (made once per round, served by it). */
const GZIP_LEVEL = 1;

/**
 * A probe answer as it is kept for later probes (of the same round for a
 * probe-only target, of the same /metrics render for a configured node): one
 * form of it at a time. The rendered exposition keeps its pieces, its text
 * once joined and its gzip once made (45 KB of text on the bench's mainnet
 * node), and a probe-only target keeps its answer until its next round, so
 * 1,000 targets held 55 MB of answers that Prometheus had fetched already, in
 * gzip. Once the gzip is made the rest is let go, and a plain probe gets the
 * text back from the gzip; until a client asks for gzip, only the rendered
 * exposition is kept. The bytes of the text are the same either way.
 *
 * The gzip is made here, at once and in one piece, rather than by the
 * exposition's gzip(), which stitches kept segments so that a /metrics render
 * compresses only what changed since the last one: an answer rendered from
 * nothing has no kept segment, and compressing its few hundred lines a run at
 * a time cost ten times one compression and made twice the bytes (a mainnet
 * node's 45 KB answer: 1.3-2.3 ms of CPU and 19.9 KB, against 0.11-0.16 ms
 * and 9.4 KB).
 */
export function keptAnswer(rendered: Exposition): Exposition {
  let full: Exposition | undefined = rendered;
  let gz: Buffer | undefined;
  return {
    get text() {
      // Rare (Prometheus asks for gzip): made again on each such probe rather than kept.
      return full ? full.text : gunzipSync(gz as Buffer);
    },
    gzip() {
      if (gz === undefined) {
        try {
          gz = gzipSync((full as Exposition).text, { level: GZIP_LEVEL });
        } catch (err) {
          // Out of memory in zlib: the text stays, and is served plain (see expositionBody).
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
        full = undefined;
      }
      return Promise.resolve(gz);
    },
    series: rendered.series,
    contentType: rendered.contentType,
  };
}
