import { gunzipSync } from 'node:zlib';
import type { Exposition } from '../exposition/render.js';

/**
 * A probe-only target's answer as it is kept for the later probes of the same
 * round: one form of it at a time. The rendered exposition keeps its text once
 * joined and its gzip once made (45 KB and 10 KB on the bench's mainnet node),
 * and a target keeps its answer until its next round, so 1,000 targets held
 * 55 MB of answers that Prometheus had fetched already, in gzip. Once the gzip
 * is made, the text is let go and a plain probe gets it back from the gzip;
 * until a client asks for gzip, only the text is kept. The bytes served are
 * the same either way.
 */
export function keptAnswer(rendered: Exposition): Exposition {
  let full: Exposition | undefined = rendered;
  let zipped: Promise<Buffer> | undefined;
  let gz: Buffer | undefined;
  return {
    get text() {
      // Rare (Prometheus asks for gzip): made again on each such probe rather than kept.
      return full ? full.text : gunzipSync(gz as Buffer);
    },
    gzip() {
      zipped ??= (full as Exposition).gzip().then(
        (made) => {
          gz = made;
          full = undefined;
          return made;
        },
        (err: unknown) => {
          zipped = undefined;
          throw err;
        },
      );
      return zipped;
    },
    series: rendered.series,
    contentType: rendered.contentType,
  };
}
