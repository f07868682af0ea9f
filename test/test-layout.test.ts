/**
 * Where code and tests live (docs/development.md, "Where tests live"):
 * a test of one unit sits beside it, a test of the product seen from outside
 * sits in test/; and no module in src/ outside the metric contract is longer
 * than 500 lines (issue 24: a file that long does more than one thing).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

const isTest = (p: string) => p.endsWith('.test.ts');
const srcTests = filesUnder(join(ROOT, 'src'), isTest);
const srcModules = filesUnder(join(ROOT, 'src'), (p) => p.endsWith('.ts') && !isTest(p));
/** Test files of test/ whose code lives in test/ too (the fakes): their tests sit beside them. */
const BESIDE_IN_TEST = ['fakes'];
const productTests = filesUnder(join(ROOT, 'test'), isTest).filter((p) => !BESIDE_IN_TEST.some((d) => relative(join(ROOT, 'test'), p).startsWith(`${d}/`)));
const besideInTest = filesUnder(join(ROOT, 'test'), isTest).filter((p) => !productTests.includes(p));

/** The relative specifiers a file imports from its own folder (`./x.js`). */
function ownFolderImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/from '(\.\/[^']+)'/g)].map((m) => m[1] as string);
}

/** The names a test in test/ may not take: each module of src/ and each source's folder (a unit's name). */
function unitNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of srcModules) {
    const name = basename(m, '.ts');
    // index.ts and the family/definition modules are named after their folder's role, not a unit.
    if (name !== 'index' && name !== 'source' && name !== 'value' && name !== 'collect' && name !== 'status' && name !== 'changes') {
      names.set(name, relative(ROOT, m));
    }
    if (/\/src\/sources\/(node|data-api)\/[^/]+\/index\.ts$/.test(m)) names.set(basename(dirname(m)), relative(ROOT, dirname(m)));
  }
  return names;
}

describe('where tests live', () => {
  it('finds the tests on both sides (the rule has something to check)', () => {
    expect(srcTests.length).toBeGreaterThan(10);
    expect(productTests.length).toBeGreaterThan(10);
  });

  it('a test in src/ sits beside the unit it tests: it imports from its own folder', () => {
    const strays = srcTests.filter((t) => ownFolderImports(t).length === 0).map((t) => relative(ROOT, t));
    expect(strays).toEqual([]);
  });

  it('a test of the fakes sits beside them in test/fakes/ and imports from there', () => {
    expect(besideInTest.length).toBeGreaterThan(0);
    const strays = besideInTest.filter((t) => ownFolderImports(t).length === 0).map((t) => relative(ROOT, t));
    expect(strays).toEqual([]);
  });

  it('no test in test/ is named after one unit of src/: such a test belongs beside that unit', () => {
    const units = unitNames();
    const misplaced = productTests.flatMap((t) => {
      const unit = units.get(basename(t, '.test.ts'));
      return unit ? [`${relative(ROOT, t)} tests ${unit}: move it beside it`] : [];
    });
    expect(misplaced).toEqual([]);
  });

  it('the check catches a misplaced test (a test/ file named after a src module)', () => {
    const units = unitNames();
    expect(units.get('json-array-split')).toBe('src/http/json-array-split.ts');
    expect(units.get('peers')).toBe('src/sources/node/peers');
  });
});

describe('module size', () => {
  it('no file in src/ but the metric contract is longer than 500 lines', () => {
    const CONTRACT = 'src/metrics/metric-defs.ts';
    const long = filesUnder(join(ROOT, 'src'), (p) => p.endsWith('.ts'))
      .map((p) => ({ path: relative(ROOT, p), lines: readFileSync(p, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.path !== CONTRACT && f.lines > 500)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
