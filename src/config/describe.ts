import { Document, isMap, isPair, isScalar } from 'yaml';
import type { Config } from './load.js';
import { SETTINGS } from './settings.js';
import { printWeb } from './web.js';
import { printPoll } from './poll.js';
import { printNode, printWatch } from './node.js';
import { dataApiNotes, printDataApi } from './data-api.js';
import { printProbe } from './probe.js';
import { printLog } from './log.js';
import { printAddresses } from './addresses.js';
import { REDACTED } from './problems.js';

/**
 * What `--config.check` prints: the configuration the exporter would run with,
 * every default filled in, as a YAML file that `--config.file` reads back to
 * the same configuration (test/config-messages.test.ts reads it back). Each
 * section's module prints its own part; the keys come out in the order of the
 * table of settings (settings.ts), every key the table declares (the test
 * checks). Secrets are never printed: the Data API key as the file or variable
 * it comes from, a secret header or URL password as `<redacted>`, which the
 * loader refuses with a sentence, so a printed file is never run with a
 * placeholder for a password. Settings left unset (the Data API's URL and
 * network) stay unset, with a comment saying what applies; no YAML anchors, no
 * keys the loader does not know.
 */

/** A printed section's keys in the table's order, those left unset (undefined) out. */
function inTableOrder(keys: readonly string[], printed: Record<string, unknown>): Record<string, unknown> {
  const extra = Object.keys(printed).filter((k) => !keys.includes(k));
  // A key the table does not declare would not read back: a mistake of this module, not of the operator.
  if (extra.length > 0) throw new Error(`--config.check would print keys the table does not declare: ${extra.join(', ')}`);
  return Object.fromEntries(keys.filter((k) => printed[k] !== undefined).map((k) => [k, printed[k]]));
}

/** Puts a comment above the pair `key` of `map`, or at the end of the map when it has no such key. */
function commentAt(map: unknown, key: string, lines: string[]): void {
  if (!isMap(map) || lines.length === 0) return;
  const text = lines.map((l) => ` ${l}`).join('\n');
  const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
  if (pair && isScalar(pair.key)) pair.key.commentBefore = text;
  else map.comment = text;
}

/** The configuration as a YAML file `--config.file` reads back; secrets as `<redacted>` or as where they come from. */
export function describeConfig(config: Config): string {
  const c = config;
  const S = SETTINGS;
  const keys = (o: object) => Object.keys(o);
  const sections: Record<keyof typeof SETTINGS, unknown> = {
    web: inTableOrder(keys(S.web.keys), printWeb(c.web)),
    poll: inTableOrder(keys(S.poll.keys), printPoll(c.poll)),
    watch: inTableOrder(keys(S.watch.keys), printWatch(c.watch)),
    nodes: c.nodes.map((n) => {
      const printed = inTableOrder(keys(S.nodes.entry), printNode(n));
      return { ...printed, watch: inTableOrder(keys(S.nodes.entry.watch.keys), printed['watch'] as Record<string, unknown>) };
    }),
    log: inTableOrder(keys(S.log.keys), printLog(c.log)),
    data_api: inTableOrder(keys(S.data_api.keys), printDataApi(c.dataApi)),
    probe: inTableOrder(keys(S.probe.keys), printProbe(c.probe)),
    addresses: printAddresses(c.nodes, c.dataApi.addresses)?.map((a) => inTableOrder(keys(S.addresses.entry), a)),
    demo: c.demo,
  };
  const body = inTableOrder(keys(S), sections);
  // No anchors: a list shared by two nodes is written out twice, as an operator would.
  const doc = new Document(body, { aliasDuplicateObjects: false });
  doc.commentBefore = [
    ' avax-exporter configuration as --config.check read it: every default filled in; --config.file reads this file back.',
    ` Secrets are not shown: ${REDACTED} stands for one (write it back before use).`,
  ].join('\n');
  commentAt(doc.get('data_api', true), 'key_header', dataApiNotes(c.dataApi, c.demo));
  return doc.toString();
}
