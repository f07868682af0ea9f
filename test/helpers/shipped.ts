/**
 * What a shipped build (the npm package, the Docker image's dist/) may contain: compiled
 * JavaScript that imports only Node built-ins, its own files and production dependencies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
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
