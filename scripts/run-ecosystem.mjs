// Runs ecosystem-tests/: the packed package, installed as a partner installs it, on Node.js 22 and 24,
// Bun, Deno and Cloudflare Workers (workerd through Miniflare), each against its own standalone fake,
// plus an esbuild bundle check. Started through `npm run ecosystem` (so process.execPath is the
// project's pinned Node); `npm run ecosystem -- bun deno` runs only the targets named, and
// `--tarball path.tgz` tests a tarball packed elsewhere instead of this checkout.
//
// The runtimes come from the npm packages that ecosystem-tests/ locks, installed on demand into a
// copy of that folder outside the repository (in the user's cache folder, reinstalled only when the
// lock changes): so the root `npm install` never downloads them, and no import can fall back on the
// repository's own node_modules, which a partner would not have. A runtime that cannot run is a
// failure naming what is missing, never a skip.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const sources = join(root, 'ecosystem-tests');
// One copy per checkout, so worktrees side by side never install into each other's.
const ecosystem = join(
  process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
  'restaurant-partner-sdk',
  `ecosystem-tests-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`,
);
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The fake's limit for every target: low enough that a burst of a few calls meets a 429. */
const FAKE_REQUESTS_PER_SECOND = 4;
/** A target takes about 10 s; a process still alive after this is a failure, not a wait. */
const TARGET_TIMEOUT_MS = 60_000;
const TARGETS_AT_ONCE = 3;

/** Where a package's binary lands, found from the target project's folder as the package itself installs it. */
const packageDirectory = (project, name) =>
  dirname(createRequire(join(ecosystem, project, 'package.json')).resolve(`${name}/package.json`));
const nodeBinary = (project) => join(packageDirectory(project, 'node'), 'bin/node');

const targets = [
  {
    name: 'Node.js 22',
    project: 'node-22',
    runtime: () => [nodeBinary('node-22'), ['main.mjs']],
    pinnedNode: true,
  },
  {
    name: 'Node.js 24',
    project: 'node-24',
    runtime: () => [nodeBinary('node-24'), ['main.mjs']],
    pinnedNode: true,
  },
  {
    name: 'Bun',
    project: 'bun',
    runtime: () => [join(packageDirectory('bun', 'bun'), 'bin/bun.exe'), ['main.mjs']],
  },
  // Network access to loopback only, and no other permission.
  {
    name: 'Deno',
    project: 'deno',
    runtime: () => [
      join(packageDirectory('deno', 'deno'), 'deno'),
      ['run', '--no-lock', '--allow-net=127.0.0.1', 'main.mjs'],
    ],
  },
  // Miniflare and esbuild are tools here, not the code under test: they run on Node.js 24.
  {
    name: 'Cloudflare Workers',
    project: 'cloudflare-workers',
    runtime: () => [nodeBinary('node-24'), ['run.mjs']],
    probe: () => [join(packageDirectory('cloudflare-workers', 'workerd'), 'bin/workerd'), ['--version']],
  },
  {
    name: 'esbuild bundle',
    project: 'bundle',
    runtime: () => [nodeBinary('node-24'), ['bundle.mjs']],
    withoutFake: true,
  },
];

function run(command, args, cwd) {
  return execFileSync(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}
const runNpm = (args, cwd) => run(npm[0], [...npm.slice(1), ...args], cwd);

/** Removes the work folders of other checkouts unused for a day (each holds about 620 MB of runtimes). */
function pruneOtherCheckouts() {
  const parent = dirname(ecosystem);
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(parent)) {
    const folder = join(parent, name);
    if (folder === ecosystem || !name.startsWith('ecosystem-tests-')) continue;
    const lastUsed = join(folder, '.last-used');
    if ((existsSync(lastUsed) ? statSync(lastUsed) : statSync(folder)).mtimeMs < dayAgo)
      rmSync(folder, { recursive: true, force: true });
  }
}

/** Copies ecosystem-tests/ into the work folder, keeping only the installed node_modules folders there. */
function copyProjects() {
  mkdirSync(ecosystem, { recursive: true });
  pruneOtherCheckouts();
  const keep = (path) => path.endsWith('/node_modules');
  for (const folder of [ecosystem, ...targets.map((target) => join(ecosystem, target.project))].filter(
    existsSync,
  )) {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (!keep(path) && !(folder === ecosystem && targets.some((target) => target.project === name)))
        rmSync(path, { recursive: true, force: true });
    }
  }
  cpSync(sources, ecosystem, { recursive: true, filter: (path) => !path.includes('/node_modules') });
  writeFileSync(join(ecosystem, '.last-used'), new Date().toISOString());
}

/** Installs the work folder from its lock, unless the install on disk came from the same lock. */
function installRuntimes() {
  const since = performance.now();
  copyProjects();
  const lockFiles = [
    'package.json',
    'package-lock.json',
    ...targets.map((target) => join(target.project, 'package.json')),
  ];
  const stamp = createHash('sha256')
    .update(lockFiles.map((file) => readFileSync(join(ecosystem, file), 'utf8')).join('\0'))
    .digest('hex');
  const stampFile = join(ecosystem, 'node_modules/.ecosystem-install-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    console.log(`runtimes: installed in ${ecosystem} from the same lock already (${seconds(since)})`);
    return;
  }
  runNpm(['ci', '--no-audit', '--no-fund', '--loglevel=error'], ecosystem);
  writeFileSync(stampFile, stamp);
  console.log(`runtimes: npm ci in ${ecosystem} (${seconds(since)})`);
}

const modifiedTimes = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path).flatMap((name) => modifiedTimes(join(path, name)))
    : [statSync(path).mtimeMs];

/** dist/ was built after the last change to what it is built from (as in `npm test`, which builds first). */
function distIsFresh() {
  if (!existsSync(join(root, 'dist/index.js'))) return false;
  const sources = ['src', 'tsup.config.ts', 'package.json', 'tsconfig.json']
    .map((path) => join(root, path))
    .filter(existsSync);
  return Math.min(...modifiedTimes(join(root, 'dist'))) > Math.max(...sources.flatMap(modifiedTimes));
}

/**
 * Packs the package (building dist/ first through its `prepack` script unless it is fresh), or takes
 * the tarball given with --tarball (a release candidate), then installs it.
 */
function installPackedPackage(givenTarball) {
  const since = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), 'restaurant-partner-sdk-ecosystem-'));
  try {
    const fresh = !givenTarball && distIsFresh();
    const tarball =
      givenTarball ??
      join(
        scratch,
        runNpm(
          ['pack', '--silent', ...(fresh ? ['--ignore-scripts'] : []), '--pack-destination', scratch],
          root,
        )
          .trim()
          .split('\n')
          .pop(),
      );
    runNpm(
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball],
      ecosystem,
    );
    // No project here installs msw: if it resolves, imports reach packages outside this install.
    const leak = (() => {
      try {
        return createRequire(join(ecosystem, 'package.json')).resolve('msw');
      } catch {
        return undefined;
      }
    })();
    if (leak)
      throw new Error(
        `${ecosystem} resolves msw at ${leak}: imports would reach packages a partner's install does not have`,
      );
    console.log(
      `package: ${givenTarball ? 'given' : fresh ? 'dist/ up to date, packed' : 'built and packed'}, ${tarball} installed (${seconds(since)})`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Starts the packed package's bin on a free loopback port, under Node.js 22.0.0 (the engines floor). */
async function startFake() {
  const manifest = JSON.parse(
    readFileSync(join(ecosystem, 'node_modules/restaurant-partner-sdk/package.json'), 'utf8'),
  );
  const bin = join(ecosystem, 'node_modules/restaurant-partner-sdk', manifest.bin['restaurant-partner-fake']);
  const args = [
    '--port',
    '0',
    '--seed',
    'demo',
    '--rate-limit',
    String(FAKE_REQUESTS_PER_SECOND),
    '--dialect',
    'pageLinks=relative',
  ];
  const child = spawn(nodeBinary('node-22'), [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => {
    log = (log + chunk).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const firstLine = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fake printed no start line within 30 s')), 30_000);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) =>
      reject(new Error(`the fake exited (${code}) before its start line: ${log}`)),
    );
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  const start = JSON.parse(firstLine);
  const restaurant =
    start.restaurants.find((candidate) => candidate.confirmation_mode === 'CONFIRMATION_MODE_SYNCHRONOUS') ??
    start.restaurants[0];
  const [partner] = start.partners;
  const config = {
    fakeUrl: start.url,
    partnerId: partner.partnerId,
    apiToken: partner.apiToken,
    restaurantId: restaurant.id,
    requestsPerSecond: FAKE_REQUESTS_PER_SECOND,
  };
  return { config, stop, log: () => log };
}

/** Runs a command to its end (bounded), answering its exit code, stdout and stderr. */
function runToEnd(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TARGET_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr, timedOut });
    });
  });
}

async function runTarget(target) {
  const since = performance.now();
  const failure = (check, detail) => ({
    target,
    runtime: target.name,
    results: [{ check, ok: false, detail }],
    time: seconds(since),
  });
  let command;
  let args;
  try {
    [command, args] = target.runtime();
  } catch (error) {
    return failure(
      'runtime installed',
      `${target.project}: cannot resolve its runtime package (${error.message}); delete ${join(ecosystem, 'node_modules')} to reinstall`,
    );
  }
  for (const [probeCommand, probeArgs] of [
    [command, ['--version']],
    ...(target.probe ? [target.probe()] : []),
  ]) {
    if (!existsSync(probeCommand))
      return failure(
        'runtime installed',
        `no binary at ${probeCommand}: its npm package did not install one (the platform package may be missing from the registry)`,
      );
    const probe = await runToEnd(probeCommand, probeArgs, ecosystem);
    if (probe.code !== 0)
      return failure(
        'runtime installed',
        `${probeCommand} --version failed (exit ${probe.code}): ${probe.stderr.trim().slice(-500)}`,
      );
    const pinned =
      target.pinnedNode &&
      `v${JSON.parse(readFileSync(join(ecosystem, target.project, 'package.json'), 'utf8')).devDependencies.node}`;
    if (probeCommand === command && pinned && probe.stdout.trim() !== pinned) {
      return failure('runtime installed', `${command} is ${probe.stdout.trim()}, the project pins ${pinned}`);
    }
  }
  let fake;
  try {
    fake = target.withoutFake ? undefined : await startFake();
    const outcome = await runToEnd(
      command,
      [...args, ...(fake ? [JSON.stringify(fake.config)] : [])],
      join(ecosystem, target.project),
    );
    const line = outcome.stdout.split('\n').find((candidate) => candidate.startsWith('ECOSYSTEM-RESULTS '));
    if (line && outcome.timedOut) {
      // Everything ran, but something the package started keeps the process alive.
      const report = JSON.parse(line.slice('ECOSYSTEM-RESULTS '.length));
      const hang = {
        check: 'exits when done',
        ok: false,
        detail: `still running ${TARGET_TIMEOUT_MS / 1000} s after printing its results (killed)`,
      };
      return {
        target,
        runtime: report.runtime,
        results: [...report.results, hang],
        bundles: report.bundles,
        time: seconds(since),
      };
    }
    if (outcome.code !== 0 || !line) {
      return failure(
        'runs',
        `exit ${outcome.code}, ${line ? 'results printed' : 'no results printed'}: ${`${outcome.stderr}\n${outcome.stdout}`.trim().slice(-1500)}`,
      );
    }
    const report = JSON.parse(line.slice('ECOSYSTEM-RESULTS '.length));
    return {
      target,
      runtime: report.runtime,
      results: report.results,
      bundles: report.bundles,
      time: seconds(since),
    };
  } catch (error) {
    return failure('runs', `${error.message}${fake ? `\nfake log: ${fake.log()}` : ''}`);
  } finally {
    await fake?.stop();
  }
}

const { values: options, positionals: wanted } = parseArgs({
  allowPositionals: true,
  options: { tarball: { type: 'string' } },
});
const unknown = wanted.filter((name) => !targets.some((target) => target.project === name));
if (unknown.length) {
  console.error(
    `unknown target ${unknown.join(', ')}; targets: ${targets.map((target) => target.project).join(', ')}`,
  );
  process.exit(2);
}
const chosen = targets.filter((target) => wanted.length === 0 || wanted.includes(target.project));

try {
  installRuntimes();
  installPackedPackage(options.tarball && resolve(options.tarball));
} catch (error) {
  console.error(`ecosystem tests could not be installed: ${error.stderr?.trim() || error.message}`);
  console.log(`0 passed, ${chosen.length} failed`);
  process.exit(1);
}

// Targets mostly wait (on the fake's rate limit, on Retry-After), so a few run side by side, each
// with its own fake; none of their checks depends on wall-clock timing.
const reports = new Array(chosen.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(TARGETS_AT_ONCE, chosen.length) }, async () => {
    while (next < chosen.length) {
      const index = next++;
      reports[index] = await runTarget(chosen[index]);
    }
  }),
);
for (const report of reports) {
  for (const result of report.results)
    console.log(`${result.ok ? 'ok  ' : 'FAIL'} ${report.target.name} | ${result.check} | ${result.detail}`);
}

const passed = reports.flatMap((report) => report.results).filter((result) => result.ok).length;
const failed = reports.flatMap((report) => report.results).length - passed;
console.log('\n| target | runtime | checks passed | wall time |\n|---|---|---|---|');
for (const report of reports) {
  const ok = report.results.filter((result) => result.ok).length;
  const verdict =
    ok === report.results.length
      ? `${ok}/${report.results.length}`
      : `**${ok}/${report.results.length} FAILED**`;
  console.log(`| ${report.target.name} | ${report.runtime} | ${verdict} | ${report.time} |`);
}
for (const bundle of reports.flatMap((report) => report.bundles ?? [])) {
  console.log(
    `bundle ${bundle.entry}: ${bundle.minifiedBytes} bytes minified, ${bundle.gzippedBytes} gzipped`,
  );
}
console.log(`ecosystem tests took ${seconds(started)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
