import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * Tests that need programs besides Node: a real redis-server (test/redis) or headless Chromium
 * (test/ui, the browser's view of the control API). `npm test` runs every project and installs
 * those programs first (a test that cannot start one fails, never skips); `npm run test:fast` runs
 * the `fast` project alone, for the inner loop on a machine without them.
 */
export const NEEDS_SYSTEM_PROGRAMS = [
  'test/redis/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'test/ui/simulator-page.test.ts',
  'test/testing/browser-origin.test.ts',
];

/**
 * Proofs that measure a real-time budget with several real processes (429s, gaps, waits against a
 * strict 1 request/second server), or receivers' answer times while Redis stalls (within 1 s):
 * `npm test` runs them after everything else, one file at a time, so that no other test loads the
 * machine while they measure. They need redis-server too.
 */
export const REAL_TIME_PROOFS = [
  'test/redis/processes.test.ts',
  'test/redis/faults.test.ts',
  'test/redis/fairness.test.ts',
  'test/redis/priority.test.ts',
  'test/redis/duplicate-store-stalls.test.ts',
  'test/redis/crash-recovery.test.ts',
  'test/redis/doctor-budget.test.ts',
  'test/postgres/ledger-crash.test.ts',
  'test/postgres/ledger-crash-keys.test.ts',
];

/**
 * Tests that need nothing but Node yet are too heavy for the inner loop: `npm test` runs them in
 * the `slow` project, `npm run test:fast` leaves them out. Each says why. A test that starts a
 * process (a file importing node:child_process) is never a fast test: test/house/lanes.test.ts
 * keeps every such file here or in a system lane.
 */
export const FULL_LANE_ONLY: Record<string, string> = {
  'test/proofs/faults.test.ts':
    'two runs of 240 bookings and their cancellations under every fault: 25-30 s of CPU, the heaviest file by far',
  'test/transport/nothing-outlives.test.ts':
    'spawns Node processes and measures how soon they exit; 13 s, and a loaded machine makes the 1 s exit bound miss',
  'test/testing/bin.test.ts':
    'spawns the bin through tsx (and curl) once per case: 10 s, and startup time on a busy machine trips it',
  'test/testing/delivery-limits.test.ts':
    'spawns Node with --expose-gc to collect garbage mid-delivery and waits out real time limits: 9 s',
  'test/transport/deep-json.test.ts':
    'spawns a Node process per case to measure its peak memory while a 9 MiB answer is read: 2-3 s each, and a loaded machine adds to the peak',
  'test/cli/trigger-resend.test.ts':
    'runs the bin through tsx as a child process per command against a standalone fake: about 40 s',
  'test/cli/listen.test.ts':
    'runs listen and two standalone fakes as child processes, and polls on a real 1 s interval: about 45 s',
  'test/cli/tail.test.ts': 'runs tail and a standalone fake as child processes through tsx: about 12 s',
  'test/cli/certify.test.ts':
    'runs certify through tsx per receiver, and one planted fault answers slowly in real time: about 20 s',
  'test/cli/help.test.ts': "runs each command's --help through tsx as a child process: about 20 s",
  'test/cli/fake-lifetime.test.ts':
    'starts the fake under parents it then kills, and waits in real time for it to stop: about 12 s',
  'test/house/public-surface.test.ts':
    "builds every entry's .d.ts with tsup (declarations only) to count its exports: about 70 s on a loaded 2-core machine",
  'test/resources/exact-types.test.ts':
    "builds a TypeScript program over the sources for the editor-hover check: 3 s of CPU beside `tsc --noEmit`'s own pass",
  'test/doctor/bin.test.ts':
    'spawns the doctor and the fake through tsx per case, one run at the real 1 request/second: about 70 s',
  'test/doctor/round-trip.test.ts':
    'two doctor runs with --probe-writes per dialect value (30 cases), three waiting out a real Retry-After: 25 s',
  'test/house/nothing-at-import.test.ts':
    'imports every entry in a fresh Node process through tsx, which transforms the sources again: 5 s of CPU',
  'test/resources/messages-without-locale.test.ts':
    "runs the SDK alone in a child process through tsx (zod's full form must not be loaded): 3 s of CPU",
  'test/transport/diagnostics-without-channel.test.ts':
    'books in a child process through tsx whose node:diagnostics_channel was removed: 3 s of CPU',
  'test/testing/testing-import.test.ts':
    'imports the /testing entry in a fresh child process through tsx to see what it loads: 3 s of CPU',
  'test/testing/remote-fake.test.ts':
    'starts the standalone fake bin through tsx as a child process and drives it over HTTP',
};

/**
 * The fast project shares worker threads and their imported modules across files (`isolate:
 * false`): importing zod, msw and the sources again for every file cost about a third of the run.
 * So a file must close what it opens (servers, msw, fake timers) and must not count on a fresh
 * process; `npm test` runs this project the same way, so a file that leaks into the next fails in
 * both lanes. Three workers on two cores: many tests wait on real sockets and short real timers,
 * and a third worker fills that idle time.
 */
const sharedWorkers = { pool: 'threads', isolate: false, maxWorkers: 3 } as const;

export default defineConfig({
  resolve: {
    // Tests import the package by its public name, as partners do, but from source.
    alias: [
      { find: /^restaurant-partner-sdk$/, replacement: source('index.ts') },
      { find: /^restaurant-partner-sdk\/testing\/node$/, replacement: source('testing/node.ts') },
      {
        find: /^restaurant-partner-sdk\/(webhooks|testing|redis|sync|postgres|otel)$/,
        replacement: source('$1/index.ts'),
      },
    ],
  },
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...NEEDS_SYSTEM_PROGRAMS, ...Object.keys(FULL_LANE_ONLY)],
          ...sharedWorkers,
        },
      },
      { extends: true, test: { name: 'slow', include: Object.keys(FULL_LANE_ONLY) } },
      {
        extends: true,
        test: { name: 'system', include: NEEDS_SYSTEM_PROGRAMS, exclude: REAL_TIME_PROOFS },
      },
      {
        extends: true,
        test: { name: 'real-time', include: REAL_TIME_PROOFS, fileParallelism: false },
      },
    ],
  },
});
