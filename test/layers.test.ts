// The layering of src/ is enforced, not claimed: the lint refuses an import that runs against the
// direction in docs/architecture.md, and no import circle remains in src/, type imports included.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/**
 * Lints `code` as if it were the file at `path` (relative to the repository), with the repository's own configuration
 * less type information: the layer rule reads import specifiers, not types, so no TypeScript program is built (a
 * program over the whole repository is slow, and a snippet it could not place would come back as a parsing error,
 * not as the rule's findings). A parsing error, or a path the layer rule is not configured for, fails loudly.
 */
async function importErrors(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });
  const filePath = join(root, path);
  const config = (await eslint.calculateConfigForFile(filePath)) as { rules?: Record<string, unknown> } | undefined;
  if (config?.rules?.['no-restricted-imports'] === undefined) throw new Error(`the layer rule is not configured for ${path}`);
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  const fatal = messages.filter((m) => m.fatal === true || m.ruleId === null);
  if (fatal.length > 0) throw new Error(`${path} was not linted: ${fatal.map((m) => m.message).join('; ')}`);
  return messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// The snippets are linted as files three folders down (src/sources/node/peers/collect.ts, src/sources/data-api/blocks/index.ts): their specifiers climb from there, not from test/.
const UP = ['..', '..', '..'].join('/');

describe('the lint enforces the direction of imports', () => {
  it('refuses a source that imports the exposition, the server or the daemon, type imports included', async () => {
    const errors = await importErrors(
      'src/sources/node/peers/collect.ts',
      [
        `import type { SourceState } from '${UP}/state/store.js';`,
        `import type { Sample } from '${UP}/metrics/metric-defs.js';`,
        `import { renderExposition } from '${UP}/exposition/render.js';`,
        `import type { StatusKit } from '${UP}/server/status-page.js';`,
        `export { startDaemon } from '${UP}/daemon.js';`,
        'export type Both = [SourceState, Sample, StatusKit, typeof renderExposition];',
        '',
      ].join('\n'),
    );
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain(`'${UP}/exposition/render.js' import is restricted`);
    expect(errors[1]).toContain(`'${UP}/server/status-page.js' import is restricted`);
    expect(errors[2]).toContain(`'${UP}/daemon.js' import is restricted`);
    expect(errors[0]).toContain('src/sources/ is in the layer "sources"');
  }, 120_000);

  it('refuses the metric contract importing anything above it, and the config importing the Data API client', async () => {
    expect(
      await importErrors('src/metrics/metric-defs.ts', "import type { SourceDef } from '../sources/source.js';\nexport type X = SourceDef;\n"),
    ).toHaveLength(1);
    expect(
      await importErrors('src/config/load.ts', "import type { DataApiClient } from '../data-api/client.js';\nexport type X = DataApiClient;\n"),
    ).toHaveLength(1);
  }, 120_000);

  it('keeps the Data API client under the sources: a Data API source may import it, it may not import a source', async () => {
    expect(
      await importErrors(
        'src/sources/data-api/blocks/index.ts',
        [
          `import type { DataApiClient } from '${UP}/data-api/client.js';`,
          "import type { DataApiContext } from '../source.js';",
          `import type { AnySource } from '${['..', '..'].join('/')}/source.js';`,
          'export type X = [DataApiClient, DataApiContext, AnySource];',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
    const errors = await importErrors(
      'src/data-api/client.ts',
      "import type { DataApiContext } from '../sources/data-api/source.js';\nexport type X = DataApiContext;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('src/data-api/ is in the layer');
  }, 120_000);

  it('lets a layer import the layers below it and its own folder', async () => {
    expect(
      await importErrors(
        'src/exposition/assemble.ts',
        [
          "import type { SourceDef } from '../sources/source.js';",
          "import type { Sample } from '../metrics/metric-defs.js';",
          "import { renderExposition } from './render.js';",
          'export type X = [SourceDef, Sample, typeof renderExposition];',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
  }, 120_000);
});

/** Every .ts file under `dir`. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

// `import ... from`, `import type`, `export ... from`, side-effect imports and `import('...')` (calls and type positions).
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The modules of `dirs` (default src/) each module of them imports (resolved files; `.js` specifiers name `.ts` files). */
function importGraph(dirs: string[] = [src]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  // Tests stand above every layer and nothing imports them, so they close no circle; a test's code strings (a child's
  // script naming `./src/...`) are not its imports.
  for (const file of dirs.flatMap(tsFiles).filter((f) => !f.endsWith('.test.ts'))) {
    const targets: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? '';
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec);
      const target = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p) && p.endsWith('.ts'));
      if (target === undefined) throw new Error(`${relative(root, file)}: cannot resolve ${spec}`);
      if (dirs.some((d) => target.startsWith(d))) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** One import circle of the graph, as a path that ends where it started, or undefined when there is none. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (node: string): string[] | undefined => {
    const at = onPath.indexOf(node);
    if (at >= 0) return [...onPath.slice(at), node];
    if (done.has(node)) return undefined;
    onPath.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('import circles', () => {
  it('finds a circle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeUndefined();
  });

  it('sees type imports, export-from and import() types', () => {
    const seen = (text: string) => [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]);
    expect(seen("import type { A } from './a.js';\nexport type { B } from './b.js';\nlet c: import('./c.js').C;\nimport './d.js';\n")).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
    ]);
  });

  it('none remains in src/, type imports included', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    // metric-defs.ts imports nothing in src/: the metric contract is a leaf.
    expect(graph.get(join(src, 'metrics', 'metric-defs.ts'))).toEqual([]);
    const cycle = findCycle(graph);
    expect(cycle?.map((f) => relative(src, f)).join(' -> '), 'an import circle in src/').toBeUndefined();
  });

  it('none in the test fakes and the demo world they extend: no module of the state imports a server', () => {
    const graph = importGraph([join(root, 'test', 'fakes'), join(src, 'demo')]);
    expect(graph.get(join(root, 'test', 'fakes', 'fake-node.ts'))).toContain(join(src, 'demo', 'node-server.ts'));
    // The state model imports nothing; the fixture world, the IDs and the generators import no server.
    expect(graph.get(join(src, 'demo', 'node-state.ts'))).toEqual([]);
    for (const data of ['fixture-world.ts', 'ids.ts', 'generate.ts', 'data-api-state.ts'])
      expect(
        graph.get(join(src, 'demo', data))?.filter((f) => /server|fake-/.test(f)),
        data,
      ).toEqual([]);
    const cycle = findCycle(graph);
    expect(cycle?.map((f) => relative(root, f)).join(' -> '), 'an import circle in test/fakes/ or src/demo/').toBeUndefined();
  });
});
