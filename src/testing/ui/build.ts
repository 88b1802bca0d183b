/**
 * Builds the simulator page's assets with esbuild: one script (no framework, all page modules
 * bundled), one stylesheet and the HTML shell. `npm run build` writes them to `dist/testing/ui/`
 * (tsup's `onSuccess`); the server builds them in memory instead when it runs from source.
 * Build-time only: esbuild is not a dependency of the published package.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The asset files by name, as the server serves them under `/_fake/ui/`. */
export type SimulatorAssets = Record<'index.html' | 'simulator.js' | 'simulator.css', string>;

/** Builds the assets from the page sources in `pageDirectory` (the page's own folder, `ui/page/`). */
export async function buildSimulatorAssets(pageDirectory: string): Promise<SimulatorAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: {
      simulator: join(pageDirectory, 'main.ts'),
      'simulator-style': join(pageDirectory, 'simulator.css'),
    },
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: ['chrome111', 'firefox111', 'safari16.4'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = (suffix: string) => result.outputFiles.find((file) => file.path.endsWith(suffix))!.text;
  return {
    'index.html': await readFile(join(pageDirectory, 'index.html'), 'utf8'),
    'simulator.js': output('simulator.js'),
    'simulator.css': output('simulator-style.css'),
  };
}
