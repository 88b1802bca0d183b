// The inner loop (`npm run test:fast`): the typecheck and the `fast` vitest project at once, with
// property tests trying a fifth of their cases (FAST_LANE=1, see test/support/property-runs.ts).
// Many tests wait on real sockets and timers, so the typecheck fills the cores they leave idle (at
// its usual priority: a lower one made it the last to finish on a machine busy with other jobs). It
// keeps what it learnt in node_modules/.cache, so a second run checks again only what changed.
// Arguments go to vitest: `npm run test:fast -- test/client` runs one folder (still typechecking all).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();
const loadAtStart = loadavg()[0].toFixed(1);
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

/** Runs a package's script under this Node (the project's pinned one when started by npm); resolves to its exit. */
function run(script, args, options) {
  const path = fileURLToPath(new URL(`../node_modules/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { cwd: root, ...options });
  const exit = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  return { child, exit };
}

const typecheck = run(
  'typescript/bin/tsc',
  ['--noEmit', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/test-fast/typecheck.tsbuildinfo'],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
// The typecheck's report waits until vitest has finished, so the two never interleave.
let report = '';
typecheck.child.stdout.on('data', (chunk) => (report += chunk));
typecheck.child.stderr.on('data', (chunk) => (report += chunk));
const typecheckDone = typecheck.exit.then((exit) => ({ exit, at: seconds() }));

const vitest = run('vitest/vitest.mjs', ['run', '--project', 'fast', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, FAST_LANE: '1' },
});

/**
 * CPU seconds (user + system) of the typecheck and vitest with everything they started, read from
 * /proc once both have exited: on a shared machine the wall time follows the load, the CPU time
 * much less. Undefined where there is no /proc (macOS, Windows).
 */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // cutime and cstime (fields 16 and 17 of proc(5)), in clock ticks of 1/100 s on Linux.
    return ((Number(fields[13]) + Number(fields[14])) / 100).toFixed(1);
  } catch {
    return undefined;
  }
}

const [tests, checked] = await Promise.all([vitest.exit, typecheckDone]);
process.stdout.write(report);
const cpu = childrenCpuSeconds();
console.log(
  `test:fast: typecheck ${checked.exit === 0 ? 'passed' : 'FAILED'} (${checked.at} s), ` +
    `vitest ${tests === 0 ? 'passed' : 'FAILED'}; ${seconds()} s in all` +
    (cpu === undefined ? '' : `, ${cpu} s of CPU`) +
    ` (load average ${loadAtStart} at the start, ${loadavg()[0].toFixed(1)} at the end)`,
);
process.exit(tests === 0 && checked.exit === 0 ? 0 : 1);
