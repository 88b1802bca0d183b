// Makes sure the Debian packages some tests need are installed: `node scripts/ensure-system-packages.mjs chromium redis-server`.
// Nothing to do when their programs are on the PATH; as root on Debian it runs
// `apt-get install -y --no-install-recommends <missing>`; otherwise it fails with one line saying what to install.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The programs that show a package is installed (Debian names). */
const PROGRAMS = {
  chromium: ['chromium', 'chromium-browser'],
  'redis-server': ['redis-server'],
};

function onPath(program) {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(directory, program), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in PROGRAMS));
if (wanted.length === 0 || unknown.length > 0) {
  console.error(`usage: ensure-system-packages.mjs ${Object.keys(PROGRAMS).join(' | ')} ...${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  process.exit(2);
}
const missing = wanted.filter((name) => !PROGRAMS[name].some(onPath));
if (missing.length === 0) process.exit(0);

const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
const canInstall = process.platform === 'linux' && process.getuid?.() === 0 && onPath('apt-get');
if (!canInstall) {
  console.error(`Missing system package(s) ${missing.join(', ')}: install them (Debian/Ubuntu: sudo ${command}) and run the tests again.`);
  process.exit(1);
}
console.error(`Installing ${missing.join(', ')} (${command})...`);
const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
// A fresh image has no package lists: update only when the first try fails.
if (!run(['install', '-y', '--no-install-recommends', ...missing]) && !(run(['update']) && run(['install', '-y', '--no-install-recommends', ...missing]))) {
  console.error(`Could not install ${missing.join(', ')}: run "${command}" as root and run the tests again.`);
  process.exit(1);
}
const stillMissing = missing.filter((name) => !PROGRAMS[name].some(onPath));
if (stillMissing.length > 0) {
  console.error(`Installed ${stillMissing.join(', ')} but cannot find ${stillMissing.map((name) => PROGRAMS[name].join(' or ')).join(', ')} on the PATH.`);
  process.exit(1);
}
