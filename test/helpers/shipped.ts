/**
 * What a shipped build (the npm package, the Docker image's dist/) may contain: compiled
 * JavaScript that imports only Node built-ins, its own files and production dependencies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ROOT } from './promql-contract.js';

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The project's package.json dependencies (production) and devDependencies. */
export const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** Every file under `dir`, relative to it, with `/` separators. */
export function filesUnder(dir: string): string[] {
  return walk(dir)
    .map((f) => relative(dir, f).split('\\').join('/'))
    .sort();
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * Imports of the compiled JavaScript under `dir` that a production install cannot satisfy:
 * `file: specifier` for every static or dynamic import of a package that is neither a Node
 * built-in nor a production dependency.
 */
export function unshippableImports(dir: string): string[] {
  const prod = new Set(Object.keys(manifest.dependencies ?? {}));
  const builtin = new Set(builtinModules);
  const bad: string[] = [];
  for (const file of filesUnder(dir).filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)) {
      const spec = m[1] as string;
      if (spec.startsWith('.') || spec.startsWith('node:') || builtin.has(spec)) continue;
      if (!prod.has(packageOf(spec))) bad.push(`${file}: ${spec}`);
    }
  }
  return bad;
}

/** Every identifier the code of a JavaScript or TypeScript text names (its comments and strings aside). */
export function identifiersOf(text: string, fileName: string): Set<string> {
  const out = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) out.add(node.text.replace(/^#/, ''));
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
  return out;
}

/** The identifiers of each compiled JavaScript file under `dir`, by its path relative to `dir`. */
export function shippedIdentifiers(dir: string): Map<string, Set<string>> {
  return new Map(
    filesUnder(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => [f, identifiersOf(readFileSync(join(dir, f), 'utf8'), f)] as const),
  );
}

/** The runtime exports of every module of `dir` (tests aside). */
async function modulesOf(dir: string): Promise<Record<string, unknown>[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return Promise.all(files.map((f) => import(pathToFileURL(join(dir, f)).href) as Promise<Record<string, unknown>>));
}

/**
 * The names only the tests' fakes (test/fakes/) define: their exports that are not the demo's
 * (a re-export of src/demo/ is the same value), and the methods the fake servers add to the
 * demo's (the call log, fault injection, test-only switches).
 */
export async function testFakeNames(): Promise<string[]> {
  const demo = new Set((await modulesOf(join(ROOT, 'src', 'demo'))).flatMap((m) => Object.values(m)));
  const names = new Set<string>();
  for (const m of await modulesOf(join(ROOT, 'test', 'fakes'))) {
    for (const [name, value] of Object.entries(m)) {
      if (demo.has(value)) continue;
      names.add(name);
      if (typeof value !== 'function' || typeof value.prototype !== 'object' || value.prototype === null) continue;
      const proto = value.prototype as object;
      const base = Object.getPrototypeOf(proto) as object;
      for (const method of Object.getOwnPropertyNames(proto)) if (method !== 'constructor' && !(method in base)) names.add(method);
    }
  }
  return [...names].sort();
}
