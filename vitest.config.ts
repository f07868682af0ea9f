import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites that run on their own, after every other one: the detection matrix runs forty exporters, their fake
 * nodes and a real Prometheus against 1 s scrapes and 2 s polls, so a neighbour that takes a core (promtool's rule
 * tests, the soak) delays its polls past their timeout and raises source alerts that no real deployment would see.
 */
const ALONE = ['test/detection-matrix.test.ts'];

/**
 * Suites that run a real AvalancheGo network (test/helpers/local-network.ts): seven nodes take most of a core, so
 * they run last, one file at a time, with nothing else beside them.
 */
const REAL_NETWORK = ['test/real-network/**/*.test.ts'];

export default defineConfig({
  test: {
    // End-to-end tests start real servers and wait for poll rounds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most suites spend their time waiting on poll rounds and child processes: two workers overlap
    // those waits on a 2-core machine without starving the CPU-heavy suites (soak, churn).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          // A test of one unit sits beside it in src/ (a source's folder holds its tests); a test of the product from outside in test/ (docs/development.md, "Where tests live").
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE, ...REAL_NETWORK],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'real-network', include: REAL_NETWORK, fileParallelism: false, sequence: { groupOrder: 2 } } },
    ],
  },
});
