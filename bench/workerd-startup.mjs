/**
 * The Worker of ecosystem-tests/cloudflare-workers (it books with PartnerClient and verifies
 * deliveries with the receiver) bundled as wrangler uploads it with `--minify` (esbuild, the workerd
 * conditions, one file), from dist/: its gzip size, and its start-up in workerd through Miniflare
 * (from a new Miniflare to the first answer), beside an empty Worker started the same way, in turns.
 * Miniflare and workerd come from the folder `npm run ecosystem` installs (see
 * scripts/run-ecosystem.mjs); without it the figures say so instead of a number.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { sdkFromDist } from './bundle-size.mjs';

const EMPTY_WORKER = 'export default { fetch: () => new Response("ok") };';

/** The work folder `npm run ecosystem` installs for this checkout (the same rule as the runner's). */
function ecosystemFolder(root) {
  if (process.env.ECOSYSTEM_DIR) return process.env.ECOSYSTEM_DIR;
  const rootWithSlash = root.endsWith('/') ? root : `${root}/`;
  return join(
    process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'restaurant-partner-sdk',
    `ecosystem-tests-${createHash('sha256').update(rootWithSlash).digest('hex').slice(0, 12)}`,
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchWorkerd({ root, record, rounds = 5 }) {
  process.stderr.write('the ecosystem Worker: its script gzip size and its start-up in workerd\n');
  const esbuild = await import('esbuild');
  const bundle = await esbuild.build({
    entryPoints: [join(root, 'ecosystem-tests/cloudflare-workers/worker.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [sdkFromDist(root)],
  });
  const script = bundle.outputFiles[0].text;
  record(
    'workerd_script_gzip_bytes',
    gzipSync(script, { level: 9 }).length,
    'bytes gzip -9 (the ecosystem Worker, minified)',
  );

  const folder = join(ecosystemFolder(root), 'cloudflare-workers');
  if (!existsSync(join(folder, 'package.json'))) {
    const why = `not measured: Miniflare is not installed in ${folder} (run \`npm run ecosystem -- cloudflare-workers\` once)`;
    record('workerd_startup_ms', why, '');
    return;
  }
  const { Miniflare } = await import(
    pathToFileURL(createRequire(join(folder, 'package.json')).resolve('miniflare')).href
  );
  const startOnce = async (contents) => {
    const started = performance.now();
    const miniflare = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.mjs', contents }],
      compatibilityDate: '2024-01-01',
    });
    try {
      await (await miniflare.dispatchFetch('http://worker.local/')).text();
      return performance.now() - started;
    } finally {
      await miniflare.dispose();
    }
  };
  const times = { worker: [], empty: [] };
  await startOnce(EMPTY_WORKER);
  for (let round = 0; round < rounds; round += 1) {
    for (const name of round % 2 === 0 ? ['worker', 'empty'] : ['empty', 'worker'])
      times[name].push(await startOnce(name === 'worker' ? script : EMPTY_WORKER));
  }
  record(
    'workerd_startup_ms',
    median(times.worker),
    'ms from new Miniflare to the first answer (median of 5)',
  );
  record(
    'workerd_startup_empty_ms',
    median(times.empty),
    'ms, the same for an empty Worker (same run, in turns)',
  );
}
