import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests live in test/, and beside the code they test in src/ (a source's folder holds its tests).
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // End-to-end tests start real servers and wait for poll rounds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most suites spend their time waiting on poll rounds and child processes: two workers overlap
    // those waits on a 2-core machine without starving the CPU-heavy suites (soak, churn).
    maxWorkers: 2,
  },
});
