import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLAGS } from '../src/config/flags.js';
import { SETTINGS } from '../src/config/settings.js';
import { flatten } from '../src/config/table.js';
import { CONFIG_DOC_PATH, flagsTable, markers, renderConfigDoc, yamlTable } from './tools/config-doc.js';

/**
 * docs/configuration.md's reference tables are what the table of settings
 * (src/config/settings.ts) generates: every flag with its variable, type and
 * default, and every key of the YAML file, YAML-only ones included.
 */
describe('configuration reference', () => {
  it('the committed docs/configuration.md is what the table of settings generates (run npm run docs:config)', () => {
    const page = readFileSync(CONFIG_DOC_PATH, 'utf8');
    expect(page).toBe(renderConfigDoc(page));
  });

  it('a generated block is replaced whole and the prose around it kept; a page without the markers is refused', () => {
    const [begin, end] = markers('flags');
    const [yBegin, yEnd] = markers('yaml');
    const page = `prose before\n${begin}\n| stale | row |\n${end}\nprose between\n${yBegin}\n${yEnd}\nprose after\n`;
    const out = renderConfigDoc(page);
    expect(out).not.toContain('| stale | row |');
    expect(out.startsWith(`prose before\n${begin}\n| flag | type | default | meaning |\n`)).toBe(true);
    expect(out).toContain(`\n${end}\nprose between\n${yBegin}\n| key | type | flag, variable | default | meaning |\n`);
    expect(out.endsWith(`${yEnd}\nprose after\n`)).toBe(true);
    expect(() => renderConfigDoc('no markers here')).toThrow(/markers of the generated block "flags" are missing/);
  });

  it('every flag has its row, and every key of the table (YAML-only ones included) its row with the flag and variable that set it', () => {
    const flagRows = flagsTable().join('\n');
    for (const name of FLAGS.keys()) expect(flagRows).toContain(`| \`--${name}\` |`);
    const keyRows = yamlTable();
    const paths = flatten(SETTINGS).map((e) => e.path);
    for (const p of paths)
      expect(
        keyRows.some((r) => r.startsWith(`| \`${p}\` |`)),
        p,
      ).toBe(true);
    // YAML-only keys the flags never reach.
    for (const p of ['nodes[].name', 'nodes[].headers', 'nodes[].secret_headers', 'nodes[].watch', 'addresses[].rpc_node', 'data_api.key'])
      expect(paths).toContain(p);
    expect(keyRows).toContainEqual(
      expect.stringMatching(/^\| `watch\.max_validators` \| number \| `--watch\.max-validators`, `AVAX_EXPORTER_WATCH_MAX_VALIDATORS` \| `5000` \|/),
    );
    expect(keyRows).toContainEqual(expect.stringMatching(/^\| `data_api\.key` \| string \| `AVAX_EXPORTER_DATA_API_KEY` only \|.*\*\*secret\*\*/));
  });
});
