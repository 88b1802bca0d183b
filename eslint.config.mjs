// @ts-check
/**
 * `npm run lint`. Three kinds of rules, nothing about style (Prettier owns that, `npm run format:check`):
 *
 * - Correctness: typescript-eslint's `recommendedTypeChecked` (type-aware: floating promises, unsafe
 *   `any`, unbound methods, ...) plus `no-floating-promises`, `no-misused-promises` and
 *   `switch-exhaustiveness-check`, all errors. A rule is off or relaxed only below, with its reason
 *   on the line before it; a single disable comment says why on its own line.
 * - The layering. The core (src/*.ts, src/transport, src/resources, src/lib) is what every partner
 *   loads: it never imports the fake (src/testing), the webhook receiver, sync, the Redis entry or
 *   the bin, so none of them, nor their optional peers (msw, ioredis, redis), reach a partner who
 *   did not ask for them. Each entry imports only the floors beneath it. Source never imports
 *   tests, the bench or the package by its own name; tests never import the bench.
 * - Size. Thresholds sit above today's norm, counted on the tree as Prettier formats it (most
 *   files under 350 lines of code, most functions under 90 lines and complexity 20), so new code
 *   that grows past them says why. The few past them today are listed at the end, each with its
 *   reason and a ceiling near its size, so they do not grow unnoticed either.
 */
import tseslint from 'typescript-eslint';

const FILES = ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.js', '**/*.mjs', '**/*.cjs'];
/** The no-unsafe-* family, turned off together where the reason is the same (see its uses). */
const UNSAFE_ANY_OFF = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};
/** Where the type-checked rules run. */
const TYPED = FILES;

/** An import of `folder` inside src/, from anywhere in src/ (`../testing/x.js`, `./webhooks/index.js`). */
const srcFolder = (folder, why) => ({ regex: `(^|/)${folder}/`, message: why });

const NEVER_FROM_SRC = [
  {
    regex: '(^|/)(test|bench|examples|scripts)/',
    message: 'Source never imports tests, the bench, examples or scripts.',
  },
  {
    regex: '^restaurant-partner-sdk(/|$)',
    message: 'Use a relative import: source never imports the package by its own name.',
  },
];
const FAKE = srcFolder(
  'testing',
  'Only the bin imports the fake (src/testing): it would load the fake (and msw) for every partner.',
);
const RECEIVER = srcFolder(
  'webhooks',
  'The core never imports the webhook receiver: partners who only call the API do not load it.',
);
const SYNC = srcFolder(
  'sync',
  'Only the Redis entry imports sync (for its store): the core and the fake never load it.',
);
const REDIS = srcFolder(
  'redis',
  'Nothing imports the Redis entry: it is loaded by partners who ask for it (and brings ioredis or redis).',
);
const BIN = srcFolder('bin', 'Nothing imports the bin.');
const CLI = srcFolder('cli', 'Only the bin imports the command line (src/cli).');
const POSTGRES = srcFolder(
  'postgres',
  'Nothing imports the Postgres entry: it is loaded by partners who ask for it (and brings their driver).',
);
const OTEL = srcFolder(
  'otel',
  'Nothing imports the OpenTelemetry entry: the SDK publishes diagnostics channels; /otel subscribes to them.',
);
const ENTRIES = [BIN, CLI, POSTGRES, OTEL];

/** `no-restricted-imports` for the files of one layer: the common patterns plus the layer's own. */
const layer = (files, patterns, ignores = []) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...NEVER_FROM_SRC, ...patterns] }],
  },
});

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'docs/api/',
      'coverage/',
      '**/node_modules/',
      '.readme-examples-*/',
      '**/*.d.ts',
      '**/*.d.mts',
    ],
  },
  {
    files: FILES,
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      'max-lines': ['error', { max: 450, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 25],
      'max-depth': ['error', 4],
    },
  },

  // ---- Correctness: typescript-eslint's recommendedTypeChecked, every rule on unless said below ----
  {
    files: TYPED,
    extends: [tseslint.configs.recommendedTypeChecked],
    // A disable comment that no longer silences anything is stale: it goes.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      // One program for every linted file, the plain JS scripts included (tsconfig.eslint.json).
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A `default:` does not count as covering a union: a new member (an event, a change kind)
      // must be placed in every switch over it.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false },
      ],
      // Passing on a rejection the code did not make (a caught error, an AbortSignal's reason, as
      // fetch does) keeps the caller's value; a literal or a made-up non-Error is still refused.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // `const { dropped: _dropped, ...kept } = value` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },

  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    // Plain JavaScript (the bench, scripts, the ecosystem runs, test helpers run as processes) has no
    // annotations: every JSON.parse, every import of the built dist/ and every callback parameter is
    // `any`, so the no-unsafe-* family would flag nearly every line. The other typed rules stay on.
    rules: UNSAFE_ANY_OFF,
  },
  {
    files: ['test/**', '**/*.test.ts'],
    // Tests read the wire on purpose (the fake driver's raw bodies, JSON.parse of what a server
    // sent, malformed answers included) and vitest types its asymmetric matchers (expect.any,
    // expect.stringMatching, expect.objectContaining) as `any`: the no-unsafe-* family flags the
    // assertions themselves. A test that reads a wrong field fails; that is its check.
    rules: {
      ...UNSAFE_ANY_OFF,
      // A test double of an async interface (a token provider, a store, a fetch, a limiter) is
      // written `async () => value`, answering a promise as the real one does; no await is missing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['scripts/packed-project/misspelt.ts'],
    // Fails to compile by design (check-packed.mjs asserts its exact failing lines): its values are
    // the compiler's error type, and a comment added here would move those lines.
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: [
      'scripts/postgres-server.mjs',
      'scripts/redis-server.mjs',
      'test/redis/support/budget-run.mjs',
      'test/sync/support/follower-clock.mjs',
      'test/support/reservation-wire.mjs',
      'test/postgres/support/cutting.mjs',
    ],
    // The program reads the .d.mts beside each of these rather than the script itself, so no type
    // information reaches its code; the .d.mts is what its (typed) callers are checked against.
    extends: [tseslint.configs.disableTypeChecked],
  },

  // ---- Layers ----
  layer(
    ['src/**'],
    [FAKE, RECEIVER, SYNC, REDIS, ...ENTRIES],
    [
      'src/testing/**',
      'src/webhooks/**',
      'src/sync/**',
      'src/redis/**',
      'src/bin/**',
      'src/cli/**',
      'src/postgres/**',
      'src/otel/**',
    ],
  ),
  layer(['src/webhooks/**'], [FAKE, SYNC, REDIS, ...ENTRIES]),
  layer(['src/sync/**'], [FAKE, REDIS, ...ENTRIES]),
  layer(['src/redis/**'], [FAKE, ...ENTRIES]),
  layer(['src/postgres/**'], [FAKE, REDIS, ...ENTRIES]),
  layer(['src/otel/**'], [FAKE, SYNC, REDIS, BIN, CLI, POSTGRES]),
  layer(['src/testing/**'], [SYNC, REDIS, ...ENTRIES]),
  layer(['src/cli/**'], [BIN]),
  layer(['src/bin/**'], [SYNC, REDIS, POSTGRES, OTEL]),
  // src/internal is private and beneath every other folder (see its README): it imports the
  // errors, external packages and itself, never a layer that could import it back.
  layer(
    ['src/internal/**'],
    [
      FAKE,
      RECEIVER,
      SYNC,
      REDIS,
      ...ENTRIES,
      ...['transport', 'resources', 'lib', 'dialect'].map((folder) =>
        srcFolder(
          folder,
          'src/internal sits beneath the transport, resources, lib and dialect: it never imports them.',
        ),
      ),
    ],
  ),
  {
    files: ['test/**', 'examples/**', 'scripts/**', 'ecosystem-tests/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)bench/',
              message:
                'Tests never import the bench: what both need lives in test/ (the bench may import it).',
            },
          ],
        },
      ],
    },
  },

  // ---- Size of tests: a describe() block is one long function by design; a file still has a limit ----
  {
    files: ['test/**', 'examples/**/*.test.ts', 'ecosystem-tests/**'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': 'off',
    },
  },

  // ---- Past the limits today, each with its reason and a ceiling near its size ----
  {
    // The receiver and its dispatcher are each one closure over their state (options, handlers,
    // duplicate store, deliveries in flight), split so that each step is its own function.
    files: ['src/webhooks/receiver.ts', 'src/webhooks/dispatch.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 190, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The sync is one closure over its store, client, timers and lease holder, as the receiver:
    // its functions (lease, read, chain, run) share that state. Its contract is in options.ts and
    // one reservation's announcement in announce.ts, each with only what it needs passed in.
    files: ['src/sync/reservation-sync.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 260, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Both limiters are factories whose methods share one closure (queue, timers, the shared
    // grant, the fallback to the in-process limiter): the function is the object.
    files: ['src/redis/rate-limiter.ts', 'src/transport/throttle.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 160, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The fake's entry points read as the ordered checks the live service makes (route, auth,
    // rate limit, fault, operation), and parseFault and addRestaurant check each field of their
    // input in turn: one branch per rule, each a line.
    files: [
      'src/testing/fake-handle.ts',
      'src/testing/api/router.ts',
      'src/testing/backend/faults.ts',
      'src/testing/backend/restaurants.ts',
    ],
    rules: { complexity: ['error', 38] },
  },
  {
    // The bench's one script, each figure in order.
    files: ['bench/run.mjs'],
    rules: { 'max-lines': ['error', { max: 640, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Contract suites: every rule of one resource, or every client method under generated input,
    // in one file so a reader checks the spec against one list.
    files: [
      'test/resources/reservations.test.ts',
      'test/proofs/client.property.test.ts',
      'test/client/knobs.test.ts',
    ],
    rules: { 'max-lines': ['error', { max: 750, skipBlankLines: true, skipComments: true }] },
  },
);
