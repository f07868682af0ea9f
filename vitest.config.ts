import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests start real servers and wait for poll rounds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
