/**
 * No mutable state at module level or on `globalThis` in src/, except the places CONTRIBUTING
 * names under "Process-wide state" (caches of lazily imported modules, and what a documented
 * promise needs, such as one limiter per partner per process). A simple static scan: a top-level
 * `let`, a top-level `Map`/`Set`/`WeakMap`/`WeakSet` or array the file changes (`.set(`, `.add(`,
 * `.push(`, ...) or hands to a function, and a holder on `globalThis` keyed by a symbol. Each finding is `file: name`;
 * one not in the list fails, and so does a listed place that is gone (the list stays true).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The CONTRIBUTING list, as `file: name` (one line there per entry here). */
const ALLOWED = new Set([
  // Caches of lazily imported modules and lazily built objects.
  'src/internal/schema-messages.ts: englishMessages',
  'src/internal/zone-time.ts: formatters',
  'src/transport/retry.ts: pRetryModule',
  'src/transport/http.ts: kyModule',
  'src/transport/http.ts: kyLoaded',
  'src/transport/pacer.ts: firstRequestPrepared',
  'src/transport/pacer.ts: firstRequestReady',
  'src/transport/pacer.ts: pacer',
  'src/transport/pacer.ts: pacerLoading',
  'src/transport/diagnostics.ts: published',
  'src/testing/ui/serve.ts: loading',
  // Documented promises.
  'src/transport/shared-limiters.ts: limiters',
  'src/transport/shared-limiters.ts: sweepAt',
  'src/lib/booking-ledger.ts: globalThis',
  'src/transport/followed-services.ts: globalThis',
  'src/transport/secrets.ts: webhookTokens',
  'src/transport/secrets.ts: webhookTokensVersion',
  'src/webhooks/redaction.ts: redaction',
  'src/transport/call.ts: processPrefix',
  'src/transport/call.ts: callCount',
  // The simulator page's script: one page per browser document, not part of the package's code.
  'src/testing/ui/page/dom.ts: counter',
  'src/testing/ui/page/api.ts: tag',
  'src/testing/ui/page/act.ts: refreshNow',
  'src/testing/ui/page/clock-view.ts: reported',
  'src/testing/ui/page/main.ts: timer',
  'src/testing/ui/page/main.ts: running',
  'src/testing/ui/page/main.ts: connectionLost',
]);

function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const COLLECTION =
  /^(?:export )?const ([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:new (?:Map|Set|WeakMap|WeakSet)\b|\[)/;
const MUTATORS = ['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort'];

/** Module-level mutable state in one file's text, by name. */
export function moduleState(text: string): string[] {
  const found: string[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    const variable = /^(?:export )?let ([A-Za-z_$][\w$]*)/.exec(line);
    if (variable) found.push(variable[1]!);
    const collection = COLLECTION.exec(line);
    // A collection typed readonly (`ReadonlySet`, `readonly string[]`) is a constant table.
    // So is an array literal `as const` (its statement ends `] as const;`).
    const asConst = line.trimEnd().endsWith('[') && /^[^;]*\]\s*as const;/.test(text.slice(start));
    if (collection && !asConst && !/:\s*(?:readonly |Readonly)/.test(line)) {
      const name = collection[1]!;
      // Changed in place, or handed to a function that may change it.
      const changed = new RegExp(`\\b${name}\\.(?:${MUTATORS.join('|')})\\(|[(,]\\s*${name}\\s*[,)]`);
      if (changed.test(text)) found.push(name);
    }
  }
  // A holder on globalThis under a symbol key: state shared by every copy of the package.
  if (/globalThis as \{ \[/.test(text)) found.push('globalThis');
  return [...new Set(found)];
}

describe('module-level state', () => {
  it('the scan finds what it looks for', () => {
    const sample = [
      'let count = 0;',
      'export let cached: string | undefined;',
      'const cache = new Map<string, number>();',
      'const FIXED = new Set([1, 2]);',
      'const NAMES = [',
      "  'a',",
      '] as const;',
      'names(NAMES);',
      'const queue: number[] = [];',
      'const handed = new Map<string, number>();',
      'function f() { let local = 1; cache.set("a", local); queue.push(1); remember(handed, "a", 1); }',
      'const holder = globalThis as { [KEY]?: number };',
    ].join('\n');
    expect(moduleState(sample)).toEqual(['count', 'cached', 'cache', 'queue', 'handed', 'globalThis']);
  });

  it('src/ holds none beyond the places CONTRIBUTING names', () => {
    const found = files(join(root, 'src')).flatMap((path) =>
      moduleState(readFileSync(path, 'utf8')).map((name) => `${relative(root, path)}: ${name}`),
    );
    expect(found.filter((place) => !ALLOWED.has(place))).toEqual([]);
    expect([...ALLOWED].filter((place) => !found.includes(place))).toEqual([]);
  });

  it('CONTRIBUTING names every allowed place', () => {
    const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const start = contributing.indexOf('## Process-wide state');
    const end = contributing.indexOf('\n## ', start + 1);
    const section = contributing.slice(start, end < 0 ? undefined : end);
    for (const place of ALLOWED) {
      const [file, name] = place.split(': ') as [string, string];
      expect(section, place).toContain(`\`${file}\``);
      expect(section, place).toContain(`\`${name}\``);
    }
  });
});
