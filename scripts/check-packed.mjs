// Installs the packed tarball into a scratch project, as a partner would, then type-checks a small
// TypeScript program against it with moduleResolution node16 and bundler, and runs it on the fake.
// Then: a file with misspelt fields must fail to compile on exactly those lines (the types are
// exact); a CommonJS TypeScript project (`module: nodenext`) compiles and runs through `require`;
// a second project on msw 2 installs (the peer range) and runs `setupServer(...fake.handlers)`;
// and a third project without msw type-checks `/testing` (skipLibCheck off) and drives the bin's client.
// The installed `restaurant-partner doctor` runs against the installed fake, writes and compares its file.
// Started through `npm run check:packed`, so process.execPath is the project's pinned Node.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'restaurant-partner-sdk-packed-'));
const msw2Scratch = mkdtempSync(join(tmpdir(), 'restaurant-partner-sdk-msw2-'));
const noMswScratch = mkdtempSync(join(tmpdir(), 'restaurant-partner-sdk-no-msw-'));
const run = (command, args, cwd = scratch) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const [npmCommand, ...npmPrefix] = npm;
/** Installs `packages` into the project at `cwd`, quietly and from the cache where it can. */
const npmInstall = (packages, cwd = scratch) =>
  run(
    npmCommand,
    [...npmPrefix, 'install', '--silent', '--no-audit', '--no-fund', '--prefer-offline', ...packages],
    cwd,
  );

try {
  const tarball = run(npmCommand, [...npmPrefix, 'pack', '--silent', '--pack-destination', scratch], root)
    .trim()
    .split('\n')
    .pop();
  const files = JSON.parse(
    run(npmCommand, [...npmPrefix, 'pack', '--dry-run', '--json', '--silent'], root),
  )[0].files.map((file) => file.path);
  const unexpected = files.filter(
    (path) =>
      !/^(dist\/|docs\/[^/]+\.(?:md|png)$|examples\/|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(
        path,
      ),
  );
  if (unexpected.length)
    throw new Error(`the tarball holds files a user does not need: ${unexpected.join(', ')}`);
  console.log(
    `tarball ${tarball}: ${files.length} files, only dist/, docs/, examples/, README, CHANGELOG, LICENSE and package.json`,
  );

  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'partner-app', private: true, type: 'module' }),
  );
  const typescript = JSON.parse(
    run(process.execPath, ['-p', "JSON.stringify(require('typescript/package.json').version)"], root),
  );
  npmInstall([`./${tarball}`, 'msw@3', `typescript@${typescript}`, '@types/node@22']);
  cpSync(join(root, 'scripts/packed-project/main.ts'), join(scratch, 'main.ts'));

  const base = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    skipLibCheck: false,
    allowImportingTsExtensions: true,
  };
  /** @type {[string, { module: string; moduleResolution: string }][]} */
  const resolutions = [
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ];
  for (const [name, options] of resolutions) {
    writeFileSync(
      join(scratch, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions: { ...base, ...options }, files: ['main.ts'] }),
    );
    run(process.execPath, [join(scratch, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${name}.json`]);
    console.log(`type-checks with moduleResolution ${name}`);
  }
  // Node 24 runs TypeScript by stripping its types, as a partner's `node main.ts` would.
  process.stdout.write(run(process.execPath, ['main.ts']));
  // The bin from the tarball: each command once, against the standalone fake it starts.
  cpSync(join(root, 'scripts/packed-project/cli-session.mjs'), join(scratch, 'cli-session.mjs'));
  process.stdout.write(run(process.execPath, ['cli-session.mjs']));
  await checkDoctor(scratch);

  // The types are exact: each misspelt line fails, and nothing else does.
  cpSync(join(root, 'scripts/packed-project/misspelt.ts'), join(scratch, 'misspelt.ts'));
  writeFileSync(
    join(scratch, 'tsconfig.misspelt.json'),
    JSON.stringify({
      compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['misspelt.ts'],
    }),
  );
  const misspelt = spawnSync(
    process.execPath,
    [join(scratch, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.misspelt.json'],
    { cwd: scratch, encoding: 'utf8' },
  );
  const failedLines = [...misspelt.stdout.matchAll(/^misspelt\.ts\((\d+),\d+\): error (TS\d+)/gm)].map(
    ([, line]) => Number(line),
  );
  const expectedLines = [9, 10, 11, 12];
  const otherErrors = misspelt.stdout
    .split('\n')
    .filter((line) => /error TS/.test(line) && !/^misspelt\.ts\((9|10|11|12),/.test(line));
  if (
    misspelt.status === 0 ||
    JSON.stringify([...new Set(failedLines)]) !== JSON.stringify(expectedLines) ||
    otherErrors.length
  ) {
    throw new Error(
      `misspelt.ts must fail to compile on lines ${expectedLines.join(', ')} only; tsc said:\n${misspelt.stdout}${misspelt.stderr}`,
    );
  }
  console.log(
    `a misspelt field fails to compile (lines ${expectedLines.join(', ')}: output field, enum value, input key, event key)`,
  );

  // Editor hovers show the named interfaces, read through the packed types.
  for (const name of ['hovers.mjs', 'hover-sample.ts'])
    cpSync(join(root, 'scripts/packed-project', name), join(scratch, name));
  process.stdout.write(run(process.execPath, ['hovers.mjs']));

  // A CommonJS TypeScript project: tsc turns the imports into require(), which Node 22.12+ runs.
  const cjs = join(scratch, 'cjs');
  mkdirSync(cjs);
  writeFileSync(
    join(cjs, 'package.json'),
    JSON.stringify({ name: 'partner-app-cjs', private: true, type: 'commonjs' }),
  );
  cpSync(join(root, 'scripts/packed-project/cjs.ts'), join(cjs, 'main.ts'));
  writeFileSync(
    join(cjs, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
        skipLibCheck: false,
        outDir: 'out',
      },
      files: ['main.ts'],
    }),
  );
  run(process.execPath, [join(scratch, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], cjs);
  if (
    !/require\("restaurant-partner-sdk"\)/.test(
      run(
        process.execPath,
        ['-e', "process.stdout.write(require('fs').readFileSync('out/main.js', 'utf8'))"],
        cjs,
      ),
    )
  ) {
    throw new Error('the CommonJS project was not compiled to require()');
  }
  process.stdout.write(run(process.execPath, ['out/main.js'], cjs));

  // A project on msw 2: the peer range must let npm install it, and the handlers must work there.
  writeFileSync(
    join(msw2Scratch, 'package.json'),
    JSON.stringify({ name: 'partner-app-msw2', private: true, type: 'module' }),
  );
  cpSync(join(scratch, tarball), join(msw2Scratch, tarball));
  // Also the oldest TypeScript the README states (5.4) and the one before it, to prove that floor.
  npmInstall(
    [
      `./${tarball}`,
      'msw@2',
      `typescript@${typescript}`,
      '@types/node@22',
      'typescript-5.4@npm:typescript@5.4',
      'typescript-5.3@npm:typescript@5.3',
    ],
    msw2Scratch,
  );
  const msw = JSON.parse(
    run(process.execPath, ['-p', "JSON.stringify(require('msw/package.json').version)"], msw2Scratch),
  );
  if (!msw.startsWith('2.')) throw new Error(`expected msw 2 in the msw 2 project, got ${msw}`);
  cpSync(join(root, 'scripts/packed-project/msw2.ts'), join(msw2Scratch, 'main.ts'));
  writeFileSync(
    join(msw2Scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['main.ts'],
    }),
  );
  run(
    process.execPath,
    [join(msw2Scratch, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
    msw2Scratch,
  );
  process.stdout.write(
    run(process.execPath, ['main.ts'], msw2Scratch).replace('msw 2 project', `msw ${msw} project`),
  );
  // The core and webhooks entries (msw's own types need a newer TypeScript); ES2022, the newest
  // target TypeScript 5.3 and 5.4 know.
  cpSync(join(root, 'scripts/packed-project/hover-sample.ts'), join(msw2Scratch, 'floor.ts'));
  writeFileSync(
    join(msw2Scratch, 'tsconfig.floor.json'),
    JSON.stringify({
      compilerOptions: { ...base, target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['floor.ts'],
    }),
  );
  run(
    process.execPath,
    [join(msw2Scratch, 'node_modules/typescript-5.4/bin/tsc'), '-p', 'tsconfig.floor.json'],
    msw2Scratch,
  );
  const older = spawnSync(
    process.execPath,
    [join(msw2Scratch, 'node_modules/typescript-5.3/bin/tsc'), '-p', 'tsconfig.floor.json'],
    { cwd: msw2Scratch, encoding: 'utf8' },
  );
  if (older.status === 0 || !older.stdout.includes("Cannot find name 'NoInfer'")) {
    throw new Error(
      `the README states TypeScript 5.4 as the floor, but TypeScript 5.3 ${older.status === 0 ? 'compiles too' : `fails otherwise:\n${older.stdout}`}`,
    );
  }
  console.log(
    'TypeScript 5.4 type-checks the core and webhooks types (skipLibCheck off); 5.3 fails inside zod (NoInfer), as the README states',
  );

  // A project without msw: `/testing` promises to work without it, its types included.
  writeFileSync(
    join(noMswScratch, 'package.json'),
    JSON.stringify({ name: 'partner-app-no-msw', private: true, type: 'module' }),
  );
  cpSync(join(scratch, tarball), join(noMswScratch, tarball));
  npmInstall([`./${tarball}`, `typescript@${typescript}`, '@types/node@22'], noMswScratch);
  if (
    spawnSync(process.execPath, ['-e', "require.resolve('msw/package.json')"], { cwd: noMswScratch })
      .status === 0
  )
    throw new Error('msw got installed in the project meant to have none');
  cpSync(join(root, 'scripts/packed-project/no-msw.ts'), join(noMswScratch, 'main.ts'));
  writeFileSync(
    join(noMswScratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['main.ts'],
    }),
  );
  run(
    process.execPath,
    [join(noMswScratch, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
    noMswScratch,
  );
  process.stdout.write(run(process.execPath, ['main.ts'], noMswScratch));
} finally {
  rmSync(noMswScratch, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
  rmSync(msw2Scratch, { recursive: true, force: true });
}

/**
 * The installed bin as a partner runs it: `restaurant-partner fake` on a free port, then
 * `restaurant-partner doctor --probe-writes` against it (exit 0, a dialect file, the token nowhere),
 * then `doctor --compare` of that file (exit 0, no drift).
 */
async function checkDoctor(cwd) {
  const bin = join(cwd, 'node_modules/.bin/restaurant-partner');
  const fake = spawn(bin, ['fake', '--port', '0', '--seed', 'demo', '--rate-limit', 'off', '--quiet'], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = await once(createInterface({ input: fake.stdout }), 'line');
    const { url, partners } = JSON.parse(line);
    const env = {
      ...process.env,
      PARTNER_BASE_URL: url,
      PARTNER_ID: partners[0].partnerId,
      PARTNER_TOKEN: partners[0].apiToken,
    };
    const doctor = (args) =>
      spawnSync(bin, ['doctor', ...args], { cwd, env, encoding: 'utf8', timeout: 120_000 });
    const first = doctor([
      '--probe-writes',
      '--rate-limit',
      '20',
      '--out',
      'partner-dialect.json',
      '--record',
      'record.json',
    ]);
    const written = [
      first.stdout,
      first.stderr,
      readFileSync(join(cwd, 'partner-dialect.json'), 'utf8'),
      readFileSync(join(cwd, 'record.json'), 'utf8'),
    ];
    if (first.status !== 0) throw new Error(`doctor exited ${first.status}:\n${first.stdout}${first.stderr}`);
    if (written.some((text) => text.includes(partners[0].apiToken)))
      throw new Error('doctor printed or wrote the token');
    const points = Object.keys(JSON.parse(written[2]).points);
    if (points.length < 10) throw new Error(`doctor settled only ${points.join(', ')}`);
    const compared = doctor(['--compare', 'partner-dialect.json', '--json', '--rate-limit', '20']);
    if (compared.status !== 0 || JSON.parse(compared.stdout).drift.length !== 0)
      throw new Error(
        `doctor --compare of its own file: exit ${compared.status}\n${compared.stdout}${compared.stderr}`,
      );
    console.log(
      `the packed restaurant-partner doctor settled ${points.length} points against the packed fake, and finds no drift`,
    );
  } finally {
    fake.kill('SIGTERM');
  }
}
