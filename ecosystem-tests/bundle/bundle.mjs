// Bundles the core entry and the webhooks entry of the installed package for a platform without
// Node.js (esbuild, platform "neutral"), as an edge or browser build would, and fails on any Node
// built-in or on msw reaching the bundle. Prints each bundle's size, minified and gzipped.
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';

const nodeBuiltins = new Set(builtinModules);
const isNodeBuiltin = (path) => path.startsWith('node:') || nodeBuiltins.has(path.split('/')[0]);

async function bundleEntry(entry) {
  const builtinsSeen = [];
  const result = await build({
    stdin: { contents: `export * from '${entry}';`, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'refuse-node-builtins',
        setup(builder) {
          builder.onResolve({ filter: /.*/ }, (args) => {
            if (!isNodeBuiltin(args.path)) return undefined;
            builtinsSeen.push(`${args.path} (imported by ${args.importer})`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const bytes = result.outputFiles[0].contents;
  return {
    entry,
    builtinsSeen,
    msw: inputs.filter((input) => input.includes('node_modules/msw/')),
    minifiedBytes: bytes.length,
    gzippedBytes: gzipSync(bytes).length,
    packages: [
      ...new Set(
        inputs
          .map((input) => input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1])
          .filter((name) => name && name !== 'restaurant-partner-sdk'),
      ),
    ].sort(),
  };
}

const results = [];
const bundles = [];
for (const entry of ['restaurant-partner-sdk', 'restaurant-partner-sdk/webhooks']) {
  try {
    const bundle = await bundleEntry(entry);
    bundles.push(bundle);
    const problems = [
      ...bundle.builtinsSeen.map((builtin) => `Node built-in ${builtin}`),
      ...(bundle.msw.length ? [`msw reached the bundle (${bundle.msw.length} files)`] : []),
    ];
    const size = `${(bundle.minifiedBytes / 1024).toFixed(1)} KiB minified, ${(bundle.gzippedBytes / 1024).toFixed(1)} KiB gzipped, with its dependencies ${bundle.packages.join(', ')}`;
    results.push({
      check: `bundle: ${entry} without Node built-ins`,
      ok: problems.length === 0,
      detail: problems.length ? problems.join('; ') : size,
    });
  } catch (error) {
    results.push({ check: `bundle: ${entry} without Node built-ins`, ok: false, detail: error.message });
  }
}
console.log(
  `ECOSYSTEM-RESULTS ${JSON.stringify({ runtime: `esbuild (platform neutral)`, results, bundles })}`,
);
