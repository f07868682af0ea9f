import { FLAGS } from '../../src/config/flags.js';
import { SETTINGS } from '../../src/config/settings.js';
import { flatten, type Entry } from '../../src/config/table.js';

/**
 * The reference tables of docs/configuration.md, generated from the table of
 * settings (src/config/settings.ts) by `npm run docs:config`; a test fails
 * when the file differs (test/config-doc.test.ts). Only the blocks between
 * the markers are generated; the prose around them is written by hand.
 */

/** Path of the page, relative to the repository root. */
export const CONFIG_DOC_PATH = 'docs/configuration.md';

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The markers around a generated block. */
export function markers(name: string): [string, string] {
  return [`<!-- begin ${name}: generated from src/config/settings.ts by npm run docs:config -->`, `<!-- end ${name} -->`];
}

/** One row per flag: flag, type, default and meaning (test/config-messages.test.ts compares the first three with --help). */
export function flagsTable(): string[] {
  const rows = [...FLAGS].map(([name, f]) => {
    const type = f.array ? 'array' : f.kind;
    const shown = f.default === undefined ? '' : f.defaultIsCode ? `\`${f.default}\`` : f.default;
    return `| \`--${name}\` | ${type} | ${cell(shown)} | ${cell(f.docs)} |`;
  });
  return ['| flag | type | default | meaning |', '|---|---|---|---|', ...rows];
}

function typeOf(e: Entry): string {
  if (e.node.type === 'section') return 'mapping';
  if (e.node.type === 'list') return 'list of mappings';
  return e.node.kind;
}

function setBy(e: Entry): string {
  if (e.node.type !== 'leaf') return '';
  const parts: string[] = [];
  if (e.node.flag !== undefined) parts.push(`\`--${e.node.flag}\``, `\`${FLAGS.get(e.node.flag)?.env ?? ''}\``);
  if (e.node.env !== undefined) parts.push(`\`${e.node.env}\` only`);
  return parts.join(', ');
}

function meaningOf(e: Entry): string {
  const n = e.node;
  if (n.type === 'section' && n.sameAs !== undefined) return `${n.describe} (see \`${n.sameAs}\`)`;
  if (n.type !== 'leaf') return n.describe;
  const required = n.required ? '; required' : '';
  const secret = n.secret !== undefined ? `; **secret**: \`--config.check\` prints ${n.secret}` : '';
  return `${n.docs ?? n.describe}${required}${secret}`;
}

function defaultOf(e: Entry): string {
  if (e.node.type !== 'leaf') return '';
  if (e.node.default !== undefined) return `\`${e.node.default}\``;
  return e.node.defaultText ?? '';
}

/** One row per key of the YAML file, YAML-only keys included: the path, type, flag and variable that set it, default and meaning. */
export function yamlTable(): string[] {
  const rows = flatten(SETTINGS).map((e) => `| \`${e.path}\` | ${typeOf(e)} | ${setBy(e)} | ${cell(defaultOf(e))} | ${cell(meaningOf(e))} |`);
  return ['| key | type | flag, variable | default | meaning |', '|---|---|---|---|---|', ...rows];
}

const BLOCKS: Record<string, () => string[]> = { flags: flagsTable, yaml: yamlTable };

/** The page with every generated block replaced by what the table gives now; throws when a block's markers are missing. */
export function renderConfigDoc(page: string): string {
  let out = page;
  for (const [name, render] of Object.entries(BLOCKS)) {
    const [begin, end] = markers(name);
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${CONFIG_DOC_PATH}: the markers of the generated block "${name}" are missing`);
    out = `${out.slice(0, from + begin.length)}\n${render().join('\n')}\n${out.slice(to)}`;
  }
  return out;
}
