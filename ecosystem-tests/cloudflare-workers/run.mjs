// Bundles each Worker as wrangler would (esbuild, the workerd/worker/browser export conditions, one
// file), runs it in workerd through Miniflare with no compatibility flag (so no nodejs_compat), and
// POSTs the scenario's config to it. Started by the runner with Node.js 24; argv[2] is the config JSON.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { createRequire } from 'node:module';
import { report } from '../scenario.mjs';

const workerdVersion = createRequire(import.meta.url)('workerd/package.json').version;
// The newest compatibility date this workerd accepts is its own release date; the oldest we support
// is 2024-01-01, before FinalizationRegistry (2025-05-05), which most existing Workers still pin.
const NEWEST_DATE = `${workerdVersion.split('.')[1].slice(0, 4)}-${workerdVersion.split('.')[1].slice(4, 6)}-${workerdVersion.split('.')[1].slice(6, 8)}`;
const OLDEST_DATE = '2024-01-01';

/** Bundles and runs one Worker, answering its results; a Worker that cannot build or run fails `check`. */
async function runWorker(file, check, body, external = [], compatibilityDate = NEWEST_DATE) {
  let miniflare;
  try {
    const bundle = await build({
      entryPoints: [new URL(file, import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      target: 'es2022',
      external,
      write: false,
      logLevel: 'silent',
    });
    // The bundle as one explicit ES module, so workerd (not Miniflare's scan) resolves its imports.
    miniflare = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.mjs', contents: bundle.outputFiles[0].text }],
      compatibilityDate,
    });
    const response = await miniflare.dispatchFetch('http://worker.local/', { method: 'POST', body });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 1000)}`);
    return JSON.parse(text).results;
  } catch (error) {
    const detail = error.errors?.length
      ? error.errors.map((problem) => problem.text).join('; ')
      : error.message;
    return [{ check, ok: false, detail: `${file}: ${detail}` }];
  } finally {
    await miniflare?.dispose();
  }
}

const results = [
  ...(await runWorker(
    './worker.mjs',
    `Worker runs the scenario (compatibility date ${NEWEST_DATE})`,
    process.argv[2],
  )),
  ...(await runWorker(
    './worker.mjs',
    `Worker runs the scenario (compatibility date ${OLDEST_DATE})`,
    process.argv[2],
    [],
    OLDEST_DATE,
  )),
  // /testing loads msw only when its MSW handlers are asked for, through a dynamic import that a
  // bundler still follows: a Worker that does not install msw leaves it external.
  ...(await runWorker('./testing-worker.mjs', 'testing: in-process fake', '{}', ['msw'])),
];
report(`workerd ${workerdVersion} via Miniflare`, results);
