import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'webhooks/index': 'src/webhooks/index.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/node': 'src/testing/node.ts',
    'bin/restaurant-partner-fake': 'src/bin/restaurant-partner-fake.ts',
  },
  format: ['esm'],
  target: 'node22',
  platform: 'neutral',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  // Every dependency stays external: partners' bundlers dedupe them, and msw must never be bundled.
  external: [/^node:/, 'zod', 'p-retry', 'luxon', 'msw'],
});
