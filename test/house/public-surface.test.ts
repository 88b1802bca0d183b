/**
 * The public surface a partner reads in one sitting: each entry's exports, counted as a partner's
 * editor sees them, from the `.d.ts` the build publishes (tsup with this repository's config,
 * declarations only, into a scratch folder), within a ceiling per entry; every entry lists its
 * exports by hand, and none of the SDK's internals is among them. And every type those `.d.ts`
 * put in a partner's code has a public name: a partner's own declarations (`declaration: true`)
 * can write down what they infer from the package (no TS2742 "cannot be named").
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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

/** A partner's project: the package as installed (its package.json and the built .d.ts), and its own code. */
let project: string;
let outDir: string;
const exported = new Map<string, string[]>();

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'sdk-public-surface-'));
  outDir = join(project, 'node_modules/restaurant-partner-sdk/dist');
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
  if (project) await rm(project, { recursive: true, force: true });
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

/**
 * What a partner's module may export without writing a type: each value's type is inferred from
 * the package, so emitting the partner's declarations has to name it. The rate limiter's types,
 * which the bundler once left without a public name (`AcquireOptions`, `PacedRateLimiter`,
 * `RateLimitSlot`, and what `createRateLimiter` and `createClockRateLimiter` return); every
 * method of the client with what it takes and returns (`ListPromise`, `Page`, `WithResponse`,
 * the create's and the rebook's options: named under `PartnerClient`); what the fake hands back
 * (named under `FakeService`); and every export of every entry at once.
 */
const PARTNER_MODULE = `
import { PartnerClient, createRateLimiter, createMemoryBookingLedger } from 'restaurant-partner-sdk';
import { FakeClock, createClockRateLimiter, createFakeService } from 'restaurant-partner-sdk/testing';
import * as Core from 'restaurant-partner-sdk';
import * as Webhooks from 'restaurant-partner-sdk/webhooks';
import * as Testing from 'restaurant-partner-sdk/testing';
import * as TestingNode from 'restaurant-partner-sdk/testing/node';
import * as Redis from 'restaurant-partner-sdk/redis';
import * as Sync from 'restaurant-partner-sdk/sync';
import * as Postgres from 'restaurant-partner-sdk/postgres';
import * as Otel from 'restaurant-partner-sdk/otel';

const client = new PartnerClient({ baseUrl: 'https://api.example.com', partnerId: 'b1c2d3e4-0000-4000-8000-000000000001', apiToken: 'token' });
export const limiter = createRateLimiter({ requestsPerSecond: 1 });
export const acquire = limiter.acquire.bind(limiter);
export const slot = await limiter.acquire({ priority: 'background' });
export const acquireShared = () => client.rateLimiter?.acquire({ maxWaitMs: 1000 });
export const sharedLimiter = client.rateLimiter;
export const background = client.withOptions({ priority: 'background' });
export const ledger = createMemoryBookingLedger();
export const clockLimiter = createClockRateLimiter({ requestsPerSecond: 1, clock: new FakeClock() });

export const listing = client.reservations.list(1);
export const listingWithResponse = () => client.reservations.list(1).withResponse();
export const firstPage = async () => await client.reservations.list(1);
export const resources = { profile: client.profile, restaurants: client.restaurants, reservations: client.reservations, webhooks: client.webhooks };
export const methods = {
  profileRetrieve: client.profile.retrieve, profileUpdate: client.profile.update,
  restaurantsList: client.restaurants.list,
  list: client.reservations.list, create: client.reservations.create, rebook: client.reservations.rebook,
  onCreated: client.reservations.onCreated, find: client.reservations.findByIdempotencyKey,
  retrieve: client.reservations.retrieve, cancel: client.reservations.cancel,
  markArrived: client.reservations.markArrived, markNoShow: client.reservations.markNoShow,
  waitForConfirmation: client.reservations.waitForConfirmation,
  webhooksCreate: client.webhooks.create, webhooksList: client.webhooks.list,
  webhooksRetrieve: client.webhooks.retrieve, webhooksUpdate: client.webhooks.update,
  webhooksDelete: client.webhooks.delete, regenerateToken: client.webhooks.regenerateToken,
  test: client.webhooks.test,
  request: client.request, withOptions: client.withOptions,
};

export const claimed = await ledger.claim('slot', { token: 't', fingerprint: 'f', leaseMs: 1000, now: 0, holdMs: 1000 });
export const settle = ledger.settle;
export const requestError = new Core.ConnectionError('reset', { method: 'GET', attempts: 1 });
export const apiError = new Core.PartnerApiError('no', { status: 500 });

const fake = createFakeService();
export const fakeValues = {
  fault: fake.injectFault({ operation: 'reservations.create', status: 500 }),
  faults: fake.faults, chaos: fake.deliveryChaos, rateLimit: fake.rateLimit, seed: fake.describeSeed(),
  asRestaurant: fake.asRestaurant, asCustomer: fake.asCustomer, dialect: fake.dialect,
  clientOptions: fake.clientOptions(fake.addPartner()), handle: fake.handle.bind(fake),
};
export const everyExport = { ...Core, ...Webhooks, ...Testing, ...TestingNode, ...Redis, ...Sync, ...Postgres, ...Otel };
`;

describe("a partner's own declarations", () => {
  it("name every type they infer through the entries' names (no TS2742)", async () => {
    // The package as npm installs it: its package.json (the exports map) beside the built .d.ts,
    // and the dependencies those .d.ts import.
    const installed = join(project, 'node_modules');
    await writeFile(
      join(installed, 'restaurant-partner-sdk/package.json'),
      await readFile(join(root, 'package.json'), 'utf8'),
    );
    await mkdir(join(installed, '@types'), { recursive: true });
    for (const dependency of ['zod', 'luxon', '@types/luxon', '@types/node'])
      await symlink(join(root, 'node_modules', dependency), join(installed, dependency), 'dir');
    await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    const file = join(project, 'partner.ts');
    await writeFile(file, PARTNER_MODULE);
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      declaration: true,
      emitDeclarationOnly: true,
      outDir: join(project, 'out'),
      skipLibCheck: true,
      types: [],
    });
    const emitted = program.emit();
    const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map(
      (diagnostic) => `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    );
    expect([...new Set(problems)]).toEqual([]);
    const declarations = await readFile(join(project, 'out/partner.d.ts'), 'utf8');
    // Written through the entry's names, never a path inside the package.
    expect(declarations).toContain('RateLimiter.Local');
    expect(declarations).toContain('RateLimiter.Slot');
    expect(declarations).toContain('ClockRateLimiter');
    for (const name of ['ListPromise', 'Page', 'WithResponse', 'RebookOptions', 'Reservations'])
      expect(declarations).toContain(`PartnerClient.${name}`);
    expect(declarations).toContain('FakeService.ActiveFault');
    expect(declarations).toContain('BookingLedger.Claimed');
    expect(declarations).not.toMatch(/restaurant-partner-sdk\/dist|\.\/node_modules/);
  });
});
