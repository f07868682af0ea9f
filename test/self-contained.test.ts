/**
 * A clone stands alone: nothing in the project reads a path outside its checkout (the suite once
 * read its fixtures from a folder beside the clone, so nobody else could run it), and every
 * reference exchange a test names is in test/fixtures/reference/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_DIR } from './helpers/fixtures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folders and root files that hold code or configuration (docs are checked by the link test). */
const SCANNED_DIRS = ['src', 'test', '.ci', 'examples', 'alerts'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.tmp', 'coverage']);
const TEXT_EXT = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.jsonc', '.yml', '.yaml', '.sh', '.service', '.env', '']);

/** Substrings that only a path out of the checkout would contain (built so this file does not match itself). */
const FORBIDDEN = [['..', 'shared'].join('/'), ['shared', 'fixtures'].join('/'), ['', 'work', ''].join('/')];

function walk(dir: string, out: string[]): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && TEXT_EXT.has(extname(e.name))) out.push(p);
  }
  return out;
}

/** Every code and configuration file of the checkout. */
function scannedFiles(): string[] {
  const files = SCANNED_DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => walk(join(ROOT, d), []));
  for (const e of readdirSync(ROOT, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(e.name)) continue; // .git is a file in a worktree
    if (e.isFile() && (TEXT_EXT.has(extname(e.name)) || e.name === 'Dockerfile' || e.name.startsWith('.')) && !e.name.endsWith('.md'))
      files.push(join(ROOT, e.name));
  }
  // This file holds the scanner's own bad examples, on purpose.
  return files.filter((f) => f !== fileURLToPath(import.meta.url) && statSync(f).size < 2_000_000);
}

function inside(p: string): boolean {
  const rel = relative(ROOT, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A `..` path token: not part of `...`, a longer name, or a path that starts elsewhere (`$(dirname "$0")/..`). */
const UP_TOKEN = /(?<![\w./$])\.\.(?:\/[^\s'"`:,)\]}]*)?(?![.\w])/g;

/**
 * Where the line at `file` climbs out of the checkout: a `..` path resolved from the file's own
 * folder (imports, import.meta.url, compose volumes), or from the working directory (the
 * checkout's root when npm runs the suite) on lines that resolve against process.cwd().
 */
function escapes(text: string, file: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const f of FORBIDDEN) if (line.includes(f)) found.push(`${relative(ROOT, file)}:${i + 1}: ${f}`);
    for (const m of line.matchAll(UP_TOKEN)) {
      const bases = [dirname(file)];
      if (line.includes('process.cwd()')) bases.push(ROOT);
      for (const base of bases) if (!inside(resolve(base, m[0]))) found.push(`${relative(ROOT, file)}:${i + 1}: ${m[0]} from ${relative(ROOT, base) || '.'}`);
    }
  });
  return found;
}

describe('self-contained checkout', () => {
  it('the scanner flags what it is meant to flag, and only that', () => {
    const f = join(ROOT, 'test/helpers/fixtures.ts');
    expect(escapes(`resolve(process.cwd(), '${'..'}/shared/fixtures/reference')`, f)).toHaveLength(3);
    expect(escapes("resolve(process.cwd(), '../fixtures')", f)).toEqual(['test/helpers/fixtures.ts:1: ../fixtures from .']);
    expect(escapes("import x from '../../../outside.js';", f)).toEqual(['test/helpers/fixtures.ts:1: ../../../outside.js from test/helpers']);
    expect(escapes("import x from '../../src/x.js'; const y = [...z]; new URL('../fixtures/reference/', import.meta.url)", f)).toEqual([]);
    expect(escapes('cd "$(dirname "$0")/.."', join(ROOT, '.ci/run'))).toEqual([]);
    expect(escapes('      - ../dashboards:/var/lib/grafana/dashboards:ro', join(ROOT, 'examples/docker-compose.yml'))).toEqual([]);
  });

  it('nothing in src/, test/, .ci/, examples/, alerts/ or the root configuration reads a path outside the checkout', () => {
    const files = scannedFiles();
    const rel = files.map((f) => relative(ROOT, f));
    // The scan covers what it claims to: code, tests, CI, and the configuration at the root.
    expect(rel).toEqual(
      expect.arrayContaining(['package.json', 'tsconfig.json', 'vitest.config.ts', 'Dockerfile', '.ci/run', 'src/cli.ts', 'test/helpers/fixtures.ts']),
    );
    expect(files.flatMap((f) => escapes(readFileSync(f, 'utf8'), f))).toEqual([]);
  });

  it('the reference fixtures are inside the checkout, and every one a test names is there', () => {
    expect(inside(FIXTURE_DIR)).toBe(true);
    expect(existsSync(join(FIXTURE_DIR, 'README.md'))).toBe(true);
    const named = new Set<string>();
    for (const f of walk(join(ROOT, 'test'), []).filter((x) => x.endsWith('.ts'))) {
      for (const m of readFileSync(f, 'utf8').matchAll(/'((?:node|dataapi)\.[\w.]+\.json)'/g)) named.add(m[1] as string);
    }
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((n) => !existsSync(join(FIXTURE_DIR, n)))).toEqual([]);
    // The fixture README describes every file kept here.
    const readme = readFileSync(join(FIXTURE_DIR, 'README.md'), 'utf8');
    expect(readdirSync(FIXTURE_DIR).filter((n) => n.endsWith('.json') && !readme.includes(`\`${n}\``))).toEqual([]);
  });
});
