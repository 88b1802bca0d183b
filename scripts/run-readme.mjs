// Runs the code of README.md and docs/*.md as written. Each fenced block preceded by a line
// `<!-- readme-example: name.ts -->` (invisible once rendered) is written to `name.ts` in a scratch
// folder (blocks with the same name in the same file are joined in order; a docs file's names are
// prefixed with its own, so docs/sync.md's `sync.ts` becomes `sync--sync.ts`), type-checked with the project's
// tsconfig, and run with tsx. `scripts/readme-setup.ts` is loaded first: it plays the live service
// with the fake through MSW (a partner and restaurant 12, credentials in PARTNER_ID and
// PARTNER_TOKEN), so the quick start's `https://partner-api.example.com` is answered by the fake.
// Started through `npm run readme`, so `npx` runs under the project's pinned Node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
/** name -> code, in document order; `prefix` keeps the names of one document apart from another's. */
function extractExamples(markdown, examples, prefix = '') {
  const pattern = /^<!-- readme-example: ([\w.-]+\.ts) -->\n```ts\n([\s\S]*?)^```$/gm;
  for (const [, name, code] of markdown.matchAll(pattern))
    examples.set(`${prefix}${name}`, `${examples.get(`${prefix}${name}`) ?? ''}${code}`);
  return examples;
}

const examples = extractExamples(readFileSync(join(root, 'README.md'), 'utf8'), new Map());
for (const file of readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()) {
  extractExamples(readFileSync(join(root, 'docs', file), 'utf8'), examples, `${file.replace(/\.md$/, '')}--`);
}
// The sections that must run as written: a README edit that drops a tag must not skip one silently.
const required = ['quick-start.ts', 'testing.ts', 'receiver.ts'];
const missing = required.filter((name) => !examples.has(name));
if (missing.length) {
  console.error(`README blocks not found (tag them <!-- readme-example: NAME -->): ${missing.join(', ')}`);
  process.exit(1);
}

// Inside the repository, so `restaurant-partner-sdk` resolves through the tsconfig paths to src/.
const scratch = mkdtempSync(join(root, '.readme-examples-'));
let failed = 0;
try {
  for (const [name, code] of examples) writeFileSync(join(scratch, name), code);
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({ extends: '../tsconfig.json', include: ['*.ts', '../scripts/readme-setup.ts'] }),
  );
  const typecheck = spawnSync('npx', ['tsc', '--noEmit', '-p', join(scratch, 'tsconfig.json')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (typecheck.status !== 0) {
    console.log(`FAIL type check of the README blocks\n${typecheck.stdout}${typecheck.stderr}`);
    failed += 1;
  } else {
    console.log(`ok   README blocks type-check (${[...examples.keys()].join(', ')})`);
  }
  for (const name of examples.keys()) {
    const started = performance.now();
    const env = {
      ...process.env,
      PARTNER_BASE_URL: '',
      PARTNER_ID: '',
      PARTNER_TOKEN: '',
      WEBHOOK_TOKEN: '',
    };
    const result = spawnSync(
      'npx',
      ['tsx', '--import', join(root, 'scripts/readme-setup.ts'), join(scratch, name)],
      {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (result.status === 0) {
      console.log(`ok   README ${name} (${seconds}s)`);
    } else {
      failed += 1;
      console.log(
        `FAIL README ${name} (${seconds}s, exit ${result.status ?? result.signal})\n${result.stdout}${result.stderr}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
