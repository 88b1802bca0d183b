/**
 * Bundle size of small partner apps, as an edge platform uploads them: esbuild, minified, ESM, one
 * file with every dynamic import inlined (splitting off), gzip level 9, for the browser platform
 * and for workerd (`conditions: workerd, worker, browser`). The SDK comes from dist/ (as packed),
 * openai-node from node_modules, in the same run. `BUNDLE_REPORT=1` prints the largest inputs of
 * each bundle (from esbuild's metafile): where the bytes go.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const CLIENT_APP = `
import { PartnerClient } from 'restaurant-partner-sdk';
const client = new PartnerClient({
  baseUrl: globalThis.BASE_URL,
  partnerId: globalThis.PARTNER_ID,
  apiToken: globalThis.API_TOKEN,
});
export async function book(restaurantId, input, idempotencyKey) {
  return client.reservations.create(restaurantId, input, { idempotencyKey });
}
export async function upcoming(restaurantId) {
  return client.reservations.list(restaurantId).toArray();
}
`;

const RECEIVER_APP = `
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
const receiver = createWebhookReceiver({ tokens: [globalThis.WEBHOOK_TOKEN] })
  .on('RESERVATION_CONFIRMED', (event) => globalThis.confirmed?.(event.reservation.id))
  .on('RESERVATION_CANCELLED', (event) => globalThis.cancelled?.(event.reservation.id));
export default { fetch: (request) => receiver.handle(request) };
`;

const SYNC_APP = `${CLIENT_APP}
import { createReservationSync, createMemorySyncStore } from 'restaurant-partner-sdk/sync';
export const sync = createReservationSync({
  client,
  store: createMemorySyncStore(),
  onChange: async (change) => globalThis.save?.(change),
});
`;

const OPENAI_APP = `
import OpenAI from 'openai';
const client = new OpenAI({ apiKey: globalThis.OPENAI_API_KEY });
export async function ask(input) {
  return client.responses.create({ model: 'gpt-4.1-mini', input });
}
`;

export const APPS = { client: CLIENT_APP, receiver: RECEIVER_APP, sync: SYNC_APP, openai: OPENAI_APP };

export const TARGETS = {
  browser: { platform: 'browser' },
  workerd: {
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
  },
};

/** Resolves `restaurant-partner-sdk[/sub]` through package.json `exports` to dist/, as a packed install would. */
export function sdkFromDist(root) {
  const exportsMap = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports;
  return {
    name: 'sdk-from-dist',
    setup(build) {
      build.onResolve({ filter: /^restaurant-partner-sdk(\/.*)?$/ }, (args) => {
        const entry = exportsMap[`.${args.path.slice('restaurant-partner-sdk'.length)}`];
        if (!entry) return { errors: [{ text: `no export ${args.path}` }] };
        return { path: join(root, entry.default) };
      });
    },
  };
}

/** Bundles one app for one target; returns its minified and gzip sizes and its metafile. */
export async function bundleApp(root, app, target) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    stdin: { contents: APPS[app], resolveDir: root, loader: 'js' },
    bundle: true,
    splitting: false,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [sdkFromDist(root)],
    ...TARGETS[target],
  });
  const bytes = Buffer.concat(result.outputFiles.map((file) => file.contents));
  return { minified: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, metafile: result.metafile };
}

/** The inputs of a bundle grouped by package (the SDK's own files as `sdk`), largest first, in bytes kept after minification. */
export function whereBytesGo(metafile) {
  const sizes = new Map();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name =
        input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? (input.includes('dist/') ? 'sdk' : 'app');
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

/** Records the four figures (the larger of browser and workerd for each app). */
export async function benchBundles({ root, record, report = process.env.BUNDLE_REPORT === '1' }) {
  process.stderr.write(
    'partner app bundles beside openai-node (esbuild, minified, one file, gzip -9; browser and workerd)\n',
  );
  const sizes = {};
  for (const app of Object.keys(APPS)) {
    for (const target of Object.keys(TARGETS)) {
      const bundle = await bundleApp(root, app, target);
      sizes[`${app}/${target}`] = bundle.gzip;
      process.stderr.write(
        `    ${app} (${target}): ${bundle.minified} bytes minified, ${bundle.gzip} gzip\n`,
      );
      if (report)
        process.stderr.write(
          `      ${whereBytesGo(bundle.metafile)
            .slice(0, 8)
            .map(([name, bytes]) => `${name} ${bytes}`)
            .join(', ')}\n`,
        );
    }
  }
  const worst = (app) => Math.max(sizes[`${app}/browser`], sizes[`${app}/workerd`]);
  record(
    'bundle_client_gzip_bytes',
    worst('client'),
    'bytes gzip -9, books and lists (worse of browser, workerd)',
    '<= 61440',
  );
  record(
    'bundle_receiver_gzip_bytes',
    worst('receiver'),
    'bytes gzip -9, fetch-style receiver only',
    '<= 15360',
  );
  record(
    'bundle_sync_extra_gzip_bytes',
    worst('sync') - worst('client'),
    'bytes gzip -9 that /sync adds to the client app',
    '<= 15360',
  );
  record(
    'bundle_openai_gzip_bytes',
    worst('openai'),
    'bytes gzip -9, openai-node: new OpenAI() and one call',
  );
  return sizes;
}
