import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

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
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
