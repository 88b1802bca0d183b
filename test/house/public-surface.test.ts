/**
 * The public surface a partner reads in one sitting: each entry's exports, counted as a partner's
 * editor sees them, from the `.d.ts` the build publishes (tsup with this repository's config,
 * declarations only, into a scratch folder), within a ceiling per entry; every entry lists its
 * exports by hand, and none of the SDK's internals is among them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../../tsup.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The library's entries (the bins are programs, not a surface), as tsup.config.ts names them. */
const ENTRIES = Object.fromEntries(
  Object.entries((config as { entry: Record<string, string> }).entry).filter(
    ([name]) => !name.startsWith('bin/'),
  ),
);

/** At most this many names per entry: the core, the receiver and the fake each read in one sitting. */
const CEILINGS: Record<string, number> = { index: 60, 'webhooks/index': 30, 'testing/index': 35 };

/** Names that once leaked through `export *`: helpers, wire bodies, the fake's tables. */
const INTERNALS = [
  'strongerSent',
  'pageEnvelope',
  'redactUrl',
  'ReservationCreateBody',
  'SlotOutcome',
  'TRANSITIONS',
  'OPERATIONS',
  'CONTROL_ROUTES',
  'nameErrorClass',
  'lazySchema',
  'realSchema',
];

let outDir: string;
const exported = new Map<string, string[]>();

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'sdk-public-surface-'));
  await build({
    ...(config as object),
    entry: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(root, file)])),
    outDir,
    dts: { only: true },
    sourcemap: false,
    clean: false,
    silent: true,
    config: false,
    onSuccess: undefined,
  });
  const files = Object.keys(ENTRIES).map((name) => join(outDir, `${name}.d.ts`));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  for (const [name, file] of Object.keys(ENTRIES).map(
    (name) => [name, join(outDir, `${name}.d.ts`)] as const,
  )) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`no module in ${file}`);
    // One name per exported symbol: a class or a schema is one name, whether used as value or type.
    exported.set(
      name,
      checker
        .getExportsOfModule(symbol)
        .map((each) => each.name)
        .sort(),
    );
  }
}, 240_000);

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('the published .d.ts of each entry', () => {
  for (const [entry, ceiling] of Object.entries(CEILINGS)) {
    it(`${entry} exports at most ${ceiling} names`, () => {
      const names = exported.get(entry) ?? [];
      expect(names.length, `${entry}: ${names.join(', ')}`).toBeGreaterThan(0);
      expect(names.length, `${entry} exports ${names.length}: ${names.join(', ')}`).toBeLessThanOrEqual(
        ceiling,
      );
    });
  }

  it('leaks none of the internals, from any entry', () => {
    for (const [entry, names] of exported)
      expect(
        names.filter((name) => INTERNALS.includes(name)),
        entry,
      ).toEqual([]);
  });

  it('keeps the names partners are promised', () => {
    expect(exported.get('index')).toEqual(
      expect.arrayContaining([
        'PartnerClient',
        'createMemoryBookingLedger',
        'IdempotencyKeyReuseError',
        'isIdempotencyKeyReuseError',
        'DialectDriftError',
        'isDialectDriftError',
        'AmbiguousCreateError',
        'isPartnerSdkError',
        'Reservation',
      ]),
    );
    expect(exported.get('testing/index')).toEqual(
      expect.arrayContaining(['createFakeService', 'connectFake', 'createSandbox', 'createClockRateLimiter']),
    );
    expect(exported.get('webhooks/index')).toEqual(expect.arrayContaining(['createWebhookReceiver']));
  });
});

describe('the entries in src/', () => {
  it('list their exports by hand: no `export *`', async () => {
    for (const file of Object.values(ENTRIES)) {
      const text = await readFile(join(root, file), 'utf8');
      expect(text, file).not.toMatch(/^\s*export\s+(type\s+)?\*/m);
    }
  });
});
