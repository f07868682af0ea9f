/**
 * The documentation holds together: every relative link in README.md and docs/ (and the fixtures'
 * README) points at a file that exists, and at a heading that exists when it names one; every page
 * of docs/ is reachable from the README; its two commands are the ones CI runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
  join(ROOT, 'test/fixtures/reference/README.md'),
];

/** The text of a markdown file outside fenced code blocks and inline code spans (links there are not links). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Link targets: inline links and images `[x](target "title")`, and reference definitions `[x]: target`. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const refs = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1] as string);
  return [...inline, ...refs];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (m[1] as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Broken relative links of one markdown file, as `file: target (why)`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const bad: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto:, …
    const [path = '', anchor] = target.split('#', 2);
    const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(dest)) {
      bad.push(`${where} (no such file)`);
      continue;
    }
    if (relative(ROOT, dest).startsWith('..')) bad.push(`${where} (outside the repository)`);
    if (anchor !== undefined && anchor !== '') {
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) bad.push(`${where} (an anchor into a file that is not markdown)`);
      else if (!anchorsOf(readFileSync(dest, 'utf8')).has(anchor.toLowerCase())) bad.push(`${where} (no such heading)`);
    }
  }
  return bad;
}

describe('documentation links', () => {
  it('the checker reads links, code and anchors as GitHub does', () => {
    expect(linkTargets('a [x](docs/a.md) `[y](no.md)` ![i](p.png "t")\n```\n[z](no.md)\n```\n[r]: <ref.md>\n')).toEqual(['docs/a.md', 'p.png', 'ref.md']);
    expect([...anchorsOf('# Many nodes: /probe and sharding\n## `--web.config.file` (TLS)\n## Reload\n## Reload\n')]).toEqual([
      'many-nodes-probe-and-sharding',
      '--webconfigfile-tls',
      'reload',
      'reload-1',
    ]);
  });

  it('every relative link in README.md and docs/ points at a file (and heading) that exists', () => {
    expect(PAGES.length).toBeGreaterThan(5);
    const links = PAGES.flatMap((f) => linkTargets(readFileSync(f, 'utf8')));
    expect(links.length).toBeGreaterThan(50);
    expect(PAGES.flatMap(brokenLinks)).toEqual([]);
  });

  it('every page of docs/ can be reached from the README by following links', () => {
    const reached = new Set<string>();
    const queue = [join(ROOT, 'README.md')];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (reached.has(file)) continue;
      reached.add(file);
      for (const t of linkTargets(readFileSync(file, 'utf8'))) {
        const path = t.split('#')[0] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(t) || !path.endsWith('.md')) continue;
        const dest = resolve(dirname(file), decodeURIComponent(path));
        if (existsSync(dest)) queue.push(dest);
      }
    }
    const pages = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(DOCS, f));
    expect(pages.filter((p) => !reached.has(p)).map((p) => relative(ROOT, p))).toEqual([]);
  });
});

describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = firstBlock
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);

  it('starts with what the exporter is for, then its two commands: run the demo, run the tests', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Two commands', 'Install', 'Point it at a real node', 'Where everything else lives']);
    expect(commands).toEqual(['npm ci && npm start -- --demo', 'npm test']);
    // A newcomer's first screen, not the reference: that lives in docs/.
    expect(readme.length).toBeLessThan(8_000);
  });

  it('.ci/run runs the README test command, after npm ci, on Node 20 and on Node 24', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#') && !l.trim().startsWith('echo'));
    const test = commands[1] as string;
    const npmCi = ci.findIndex((l) => /^npm ci\b/.test(l.trim()));
    expect(npmCi).toBeGreaterThanOrEqual(0);
    expect(ci.slice(npmCi + 1).map((l) => l.trim())).toEqual([test, `npx -y -p node@24 -c 'node --version && ${test}'`]);
  });
});
