/**
 * Headless Chromium for the simulator page's tests: Debian's `chromium` package, driven by
 * playwright-core. A machine without it gets it installed (root on Debian) by
 * `scripts/ensure-system-packages.mjs`, or the tests fail with one line saying what to install.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

function findOnPath(programs: string[]): string | undefined {
  for (const program of programs) {
    for (const directory of (process.env.PATH ?? '').split(delimiter)) {
      const candidate = join(directory, program);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
  }
  return undefined;
}

/** The Chromium executable: `CHROMIUM_PATH`, else `chromium` on the PATH (installed when missing). */
export function chromiumExecutable(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const programs = ['chromium', 'chromium-browser'];
  const found = findOnPath(programs);
  if (found) return found;
  const script = new URL('../../scripts/ensure-system-packages.mjs', import.meta.url);
  try {
    execFileSync(process.execPath, [script.pathname, 'chromium'], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const said = String((error as { stderr?: string }).stderr ?? '').trim().split('\n').at(-1);
    throw new Error(said || 'Chromium is missing: install it (Debian: apt-get install -y --no-install-recommends chromium).');
  }
  const installed = findOnPath(programs);
  if (!installed) throw new Error('Chromium is missing: install it (Debian: apt-get install -y --no-install-recommends chromium).');
  return installed;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true });
}
