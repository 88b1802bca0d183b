// Bundles each Worker as wrangler would (esbuild, the workerd/worker/browser export conditions, one
// file), runs it in workerd through Miniflare with no compatibility flag (so no nodejs_compat), and
// POSTs the scenario's config to it. Started by the runner with Node.js 24; argv[2] is the config JSON.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { createRequire } from 'node:module';
import { report } from '../scenario.mjs';

const workerdVersion = createRequire(import.meta.url)('workerd/package.json').version;

/** Bundles and runs one Worker, answering its results; a Worker that cannot build or run fails `check`. */
async function runWorker(file, check, body, external = []) {
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
    miniflare = new Miniflare({ modules: [{ type: 'ESModule', path: 'worker.mjs', contents: bundle.outputFiles[0].text }], compatibilityDate: '2026-07-01' });
    const response = await miniflare.dispatchFetch('http://worker.local/', { method: 'POST', body });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 1000)}`);
    return JSON.parse(text).results;
  } catch (error) {
    const detail = error.errors?.length ? error.errors.map((problem) => problem.text).join('; ') : error.message;
    return [{ check, ok: false, detail: `${file}: ${detail}` }];
  } finally {
    await miniflare?.dispose();
  }
}

const results = [
  ...(await runWorker('./worker.mjs', 'Worker runs the scenario', process.argv[2])),
  // /testing loads msw only when its MSW handlers are asked for, through a dynamic import that a
  // bundler still follows: a Worker that does not install msw leaves it external.
  ...(await runWorker('./testing-worker.mjs', 'testing: in-process fake', '{}', ['msw'])),
];
report(`workerd ${workerdVersion} via Miniflare`, results);
