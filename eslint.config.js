// Lint: typescript-eslint with type information. recommended-type-checked catches the unsafe `any`
// flows and promise mistakes a type check alone lets through; no-floating-promises and
// no-misused-promises are spelled out because in a long-running daemon an unawaited rejection or
// a promise handed to a callback that ignores it is a silent failure. Formatting is Prettier's job.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'build/', '.tmp/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
  // Plain JavaScript configuration files are in no tsconfig: lint them without type information.
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
