import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { buildSimulatorAssets } from './src/testing/ui/build.js';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'webhooks/index': 'src/webhooks/index.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/node': 'src/testing/node.ts',
    'redis/index': 'src/redis/index.ts',
    'sync/index': 'src/sync/index.ts',
    'postgres/index': 'src/postgres/index.ts',
    'otel/index': 'src/otel/index.ts',
    'bin/restaurant-partner': 'src/bin/restaurant-partner.ts',
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
  // Except zod: it ships as ~100 small modules, and loading them costs a cold start ~80 ms; bundled
  // (tree-shaken, in one shared chunk) the parts the SDK uses load in a few. zod keeps its settings
  // on globalThis, so a partner's `z.config(...)` still applies to this copy.
  noExternal: [/^zod(\/|$)/],
  external: [
    /^node:/,
    'p-retry',
    'luxon',
    'msw',
    'esbuild',
    'pg',
    'postgres',
    /^@electric-sql\//,
    /^@opentelemetry\//,
  ],
  async onSuccess() {
    // zod's code ships inside the chunks (noExternal above): its licence ships beside them.
    const zodLicence = await readFile('node_modules/zod/LICENSE', 'utf8');
    await writeFile(
      'dist/THIRD_PARTY_LICENSES.md',
      `# Third-party code in dist/\n\nThe chunks carry parts of zod (https://zod.dev), under this licence:\n\n\`\`\`\n${zodLicence.trim()}\n\`\`\`\n`,
    );
    // The simulator page's assets (GET /_fake/ui), built for the browser and shipped as files.
    const assets = await buildSimulatorAssets('src/testing/ui/page');
    await mkdir('dist/testing/ui', { recursive: true });
    for (const [name, text] of Object.entries(assets)) await writeFile(`dist/testing/ui/${name}`, text);
  },
});
