// Lint: typescript-eslint with type information. recommended-type-checked catches the unsafe `any`
// flows and promise mistakes a type check alone lets through; no-floating-promises and
// no-misused-promises are spelled out because in a long-running daemon an unawaited rejection or
// a promise handed to a callback that ignores it is a silent failure. Formatting is Prettier's job.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The layers of src/ (docs/architecture.md, "Which folder may import which"): a module may import its own
// folder and the layers below its own, never a layer beside or above it. ESLint's core no-restricted-imports
// says this with one `files:` block per layer and no new dependency; it checks `import type` and
// `export ... from` like any import. A specifier is refused when it is relative and names a folder (or a
// top-level module) of a layer the importer may not use. Tests (*.test.ts) stand above every layer. `data-api/` names
// both the client (src/data-api/, layer 2) and the Data API sources (src/sources/data-api/): only layers 0-2 are refused
// `data-api/`, and they are refused `sources/` too, so the shared name never refuses or lets through a wrong import.
const LAYERS = [
  { name: 'leaves', modules: ['domain/', 'http/', 'metrics/', 'runtime/', 'log.ts'] },
  { name: 'config', modules: ['config/'] },
  { name: 'state, the demo world and the Data API client', modules: ['state/', 'demo/', 'data-api/'] },
  { name: 'status kit', modules: ['status/'] },
  { name: 'sources', modules: ['sources/'] },
  { name: 'scheduler and exposition', modules: ['scheduler.ts', 'exposition/'] },
  { name: 'probe', modules: ['probe/'] },
  { name: 'server', modules: ['server/'] },
  { name: 'daemon parts', modules: ['daemon/'] },
  { name: 'daemon', modules: ['daemon.ts'] },
  { name: 'cli', modules: ['cli.ts'] },
];
const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A specifier's pattern for a module: a folder by its segment, a top-level file by its name as imported (`.js`). */
const specifierOf = (m) => (m.endsWith('/') ? `${escapeRegex(m.slice(0, -1))}/` : `${escapeRegex(m.replace(/\.ts$/, ''))}\\.js$`);
const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.modules.flatMap((own) => {
    const refused = LAYERS.slice(rank)
      .flatMap((l) => l.modules)
      .filter((m) => m !== own);
    if (refused.length === 0) return []; // the top layer may import everything
    return {
      files: [own.endsWith('/') ? `src/${own}**/*.ts` : `src/${own}`],
      ignores: ['**/*.test.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^\\.\\.?/(?:.*/)?(?:${refused.map(specifierOf).join('|')})`,
                message: `src/${own} is in the layer "${layer.name}": it may import only the layers below it (docs/architecture.md).`,
              },
            ],
          },
        ],
      },
    };
  }),
);

export default defineConfig(
  { ignores: ['dist/', 'build/', '.tmp/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program for every file: the root tsconfig.json includes src/ and test/ (test/tools/ too). The project
      // service would pick test/tools/tsconfig.json for the tools (the bench's build file, same compiler options)
      // and build a second program for them and what they import: about 5 s of a 23-27 s lint.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A leading underscore marks a binding kept on purpose (a rest sibling's omitted key, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  ...layerRules,
  // Plain JavaScript configuration files are in no tsconfig: lint them without type information.
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
