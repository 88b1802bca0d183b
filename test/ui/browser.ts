/**
 * Headless Chromium for the simulator page's tests: Debian's `chromium` package, driven by
 * playwright-core. A machine without it gets it installed (root on Debian) by
 * `scripts/ensure-system-packages.mjs`, or the tests fail with one line saying what to install.
 */
import { chromium, type Browser } from 'playwright-core';
// @ts-expect-error: a plain .mjs script without types
import { ensureSystemPackages, findProgram } from '../../scripts/ensure-system-packages.mjs';

/** The Chromium executable: `CHROMIUM_PATH`, else `chromium` on the PATH (installed when missing). */
export function chromiumExecutable(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const problem = (ensureSystemPackages as (packages: string[]) => string | undefined)(['chromium']);
  if (problem) throw new Error(problem);
  return (findProgram as (name: string) => string | undefined)('chromium')!;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true });
}
