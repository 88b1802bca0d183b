// Bundles worker.mjs as wrangler would (esbuild, the workerd/worker/browser export conditions), runs
// it in workerd through Miniflare, and POSTs the scenario's config to it. Started by the runner with
// the project's Node; argv[2] is the config JSON.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { createRequire } from 'node:module';

const bundle = await build({
  entryPoints: [new URL('./worker.mjs', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  write: false,
  logLevel: 'warning',
});
const workerdVersion = createRequire(import.meta.url)('workerd/package.json').version;

const miniflare = new Miniflare({
  modules: true,
  script: bundle.outputFiles[0].text,
  compatibilityDate: '2026-07-01',
});
try {
  const response = await miniflare.dispatchFetch('http://worker.local/', { method: 'POST', body: process.argv[2] });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text}`);
  const report = JSON.parse(text);
  console.log(`ECOSYSTEM-RESULTS ${JSON.stringify({ ...report, runtime: `workerd ${workerdVersion} via Miniflare` })}`);
} finally {
  await miniflare.dispose();
}
