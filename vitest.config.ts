import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * Tests that need programs besides Node: a real redis-server (test/redis) or headless Chromium
 * (test/ui, the browser's view of the control API). `npm test` runs every project and installs
 * those programs first (a test that cannot start one fails, never skips); `npm run test:fast` runs
 * the `fast` project alone, for the inner loop on a machine without them.
 */
export const NEEDS_SYSTEM_PROGRAMS = [
  'test/redis/**/*.test.ts',
  'test/ui/simulator-page.test.ts',
  'test/testing/browser-origin.test.ts',
];

export default defineConfig({
  resolve: {
    // Tests import the package by its public name, as partners do, but from source.
    alias: [
      { find: /^restaurant-partner-sdk$/, replacement: source('index.ts') },
      { find: /^restaurant-partner-sdk\/testing\/node$/, replacement: source('testing/node.ts') },
      { find: /^restaurant-partner-sdk\/(webhooks|testing|redis|sync)$/, replacement: source('$1/index.ts') },
    ],
  },
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: NEEDS_SYSTEM_PROGRAMS,
        },
      },
      { extends: true, test: { name: 'system', include: NEEDS_SYSTEM_PROGRAMS } },
    ],
  },
});
