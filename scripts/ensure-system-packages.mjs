#!/usr/bin/env node
// Makes sure the system packages some tests need are installed, e.g.
//   node scripts/ensure-system-packages.mjs redis-server chromium
// Each argument is a Debian package whose program has the same name (redis-server, chromium), or
// `package=program` when they differ (e.g. `postgresql=postgres`, `chromium=chromium-browser`).
// Missing ones are installed with apt-get when this runs as root on Debian or Ubuntu; otherwise it
// stops with one line saying what to install. Nothing is ever skipped silently.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Debian's PostgreSQL server programs (`postgres`, `initdb`), off the PATH: the newest version first. */
function postgresqlFolders() {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((version) => /^\d+$/.test(version))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}

/**
 * Where a program is on PATH, or undefined (also looks in the sbin folders, where Debian puts some,
 * and in /usr/lib/postgresql/<version>/bin, where Debian puts the PostgreSQL server).
 */
export function findProgram(name) {
  const folders = [
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
    '/sbin',
    ...postgresqlFolders(),
  ];
  for (const folder of folders) {
    if (!folder) continue;
    try {
      accessSync(join(folder, name), constants.X_OK);
      return join(folder, name);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** Installs what is missing of `packages`; returns a one-line message when it cannot. */
export function ensureSystemPackages(packages) {
  const wanted = packages.map((spec) => {
    const [name, program = name] = spec.split('=');
    return { name, program };
  });
  const missing = wanted.filter(({ program }) => !findProgram(program)).map(({ name }) => name);
  const programOf = (name) => wanted.find((entry) => entry.name === name).program;
  if (missing.length === 0) return undefined;
  const list = missing.join(' ');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && findProgram('apt-get')) {
    process.stderr.write(`Installing system packages the tests need: ${list}\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    const install =
      update.status === 0 &&
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env,
      });
    const still = missing.filter((name) => !findProgram(programOf(name)));
    if (install && install.status === 0 && still.length === 0) return undefined;
    return `Could not install ${still.join(' ') || list} with apt-get; install it (apt-get install -y --no-install-recommends ${list}) and run the tests again.`;
  }
  return `The tests need ${list}: install it (Debian/Ubuntu: sudo apt-get install -y --no-install-recommends ${list}; macOS: brew install ${missing.map((name) => (name === 'redis-server' ? 'redis' : name)).join(' ')}) and run the tests again.`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problem = ensureSystemPackages(process.argv.slice(2));
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
