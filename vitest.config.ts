import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A test of one unit sits beside it in src/ (a source's folder holds its tests); a test of the product from outside in test/ (docs/development.md, "Where tests live").
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // End-to-end tests start real servers and wait for poll rounds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most suites spend their time waiting on poll rounds and child processes: two workers overlap
    // those waits on a 2-core machine without starving the CPU-heavy suites (soak, churn).
    maxWorkers: 2,
  },
});
