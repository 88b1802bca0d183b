// Installs the packed tarball into a scratch project, as a partner would, then type-checks a small
// TypeScript program against it with moduleResolution node16 and bundler, and runs it on the fake.
// Started through `npm run check:packed`, so process.execPath is the project's pinned Node.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'restaurant-partner-sdk-packed-'));
const run = (command, args, cwd = scratch) => execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const [npmCommand, ...npmPrefix] = npm;

try {
  const tarball = run(npmCommand, [...npmPrefix, 'pack', '--silent', '--pack-destination', scratch], root).trim().split('\n').pop();
  const files = JSON.parse(run(npmCommand, [...npmPrefix, 'pack', '--dry-run', '--json', '--silent'], root))[0].files.map((file) => file.path);
  const unexpected = files.filter((path) => !/^(dist\/|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(path));
  if (unexpected.length) throw new Error(`the tarball holds files a user does not need: ${unexpected.join(', ')}`);
  console.log(`tarball ${tarball}: ${files.length} files, only dist/, README, CHANGELOG, LICENSE and package.json`);

  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  const typescript = JSON.parse(run(process.execPath, ['-p', "JSON.stringify(require('typescript/package.json').version)"], root));
  run(npmCommand, [...npmPrefix, 'install', '--silent', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`, 'msw@3', `typescript@${typescript}`, '@types/node@22']);
  cpSync(join(root, 'scripts/packed-project/main.ts'), join(scratch, 'main.ts'));

  const base = { strict: true, noEmit: true, target: 'ES2023', lib: ['ES2023', 'DOM'], types: ['node'], skipLibCheck: false, allowImportingTsExtensions: true };
  for (const [name, options] of [
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ]) {
    writeFileSync(join(scratch, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...base, ...options }, files: ['main.ts'] }));
    run(process.execPath, [join(scratch, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${name}.json`]);
    console.log(`type-checks with moduleResolution ${name}`);
  }
  // Node 24 runs TypeScript by stripping its types, as a partner's `node main.ts` would.
  process.stdout.write(run(process.execPath, ['main.ts']));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
