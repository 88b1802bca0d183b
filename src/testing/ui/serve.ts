/**
 * Serves the simulator page (`GET /_fake/ui`) and its two assets from the package itself (no CDN:
 * it works offline), with a strict Content-Security-Policy: no inline script or style, no other
 * origin, and only same-origin `fetch` to the control API.
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimulatorAssets } from './build.js';

const CONTENT_TYPES: Record<keyof SimulatorAssets, string> = {
  'index.html': 'text/html; charset=utf-8',
  'simulator.js': 'text/javascript; charset=utf-8',
  'simulator.css': 'text/css; charset=utf-8',
};

/** The policy every answer of the page carries. */
export const SIMULATOR_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': SIMULATOR_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

let loading: Promise<SimulatorAssets> | undefined;

/**
 * Built assets sit in `dist/testing/ui/`; the code reading them may be bundled into `dist/`,
 * `dist/testing/` or `dist/bin/`, so the few places they can be are tried in turn.
 */
async function loadAssets(): Promise<SimulatorAssets> {
  const here = dirname(fileURLToPath(import.meta.url));
  if (import.meta.url.endsWith('.ts')) {
    // Running from source (tsx, vitest): build the same assets in memory.
    // A computed specifier keeps the bundler from shipping the build module (and esbuild) in dist.
    const buildModule = './build.js';
    const { buildSimulatorAssets } = (await import(
      /* @vite-ignore */ buildModule
    )) as typeof import('./build.js');
    return buildSimulatorAssets(join(here, 'page'));
  }
  const candidates = [join(here, 'ui'), join(here, 'testing', 'ui'), join(here, '..', 'testing', 'ui')];
  const directory = candidates.find((candidate) => existsSync(join(candidate, 'simulator.js')));
  if (!directory)
    throw new Error(`simulator assets not found next to ${here}; the package build is incomplete`);
  const read = (name: keyof SimulatorAssets) => readFile(join(directory, name), 'utf8');
  return {
    'index.html': await read('index.html'),
    'simulator.js': await read('simulator.js'),
    'simulator.css': await read('simulator.css'),
  };
}

/** true for the page's own paths (`/_fake/ui`, `/_fake/ui/...`). */
export const isSimulatorPath = (pathname: string): boolean => /\/_fake\/ui(?:\/|$)/.test(pathname);

/** Answers a request for the page or one of its assets. */
export async function serveSimulatorPage(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    return new Response(JSON.stringify({ detail: `Method "${method}" not allowed.` }), {
      status: 405,
      headers: { 'content-type': 'application/json', allow: 'GET, HEAD' },
    });
  }
  const name = (
    /\/_fake\/ui\/?$/.test(pathname) ? 'index.html' : pathname.slice(pathname.lastIndexOf('/') + 1)
  ) as keyof SimulatorAssets;
  if (!Object.hasOwn(CONTENT_TYPES, name) || (name === 'index.html' && !/\/_fake\/ui\/?$/.test(pathname))) {
    return new Response(JSON.stringify({ detail: 'Not found. The simulator page is GET /_fake/ui.' }), {
      status: 404,
      headers: { 'content-type': 'application/json' },
    });
  }
  loading ??= loadAssets().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  const assets = await loading;
  return new Response(method === 'HEAD' ? null : assets[name], {
    status: 200,
    headers: { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES[name] },
  });
}
