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
/** Where the type-checked rules run. */
const TYPED = ['src/**/*.ts'];

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
    // its functions (hand over, lease, announce, run) share that state.
    files: ['src/sync/reservation-sync.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 320, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Both limiters are factories whose methods share one closure (queue, timers, the shared
    // grant, the fallback to the in-process limiter): the function is the object.
    files: ['src/redis/rate-limiter.ts', 'src/transport/throttle.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 160, skipBlankLines: true, skipComments: true }] },
  },
  {
    // One attempt loop holds every step of a call in order (throttle, send, classify, retry,
    // deadline), so each step's reader sees what came before it; the client's constructor checks
    // every option in one place before anything is built.
    files: ['src/transport/transport.ts', 'src/client.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 170, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 36],
    },
  },
  {
    // The fake's entry points read as the ordered checks the live service makes (route, auth,
    // rate limit, fault, operation), and parseFault and addRestaurant check each field of their
    // input in turn: one branch per rule, each a line.
    files: [
      'src/testing/fake-service.ts',
      'src/testing/api/router.ts',
      'src/testing/backend/faults.ts',
      'src/testing/backend/restaurants.ts',
    ],
    rules: { complexity: ['error', 38] },
  },
  {
    // The idempotent create, one workflow read top to bottom (own key, send, settle, look up, the
    // ledger), as the guide asks of workflows; and the bench's one script, each figure in order.
    files: ['src/lib/idempotent-create.ts', 'bench/run.mjs'],
    rules: { 'max-lines': ['error', { max: 640, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The control API's route table: one row per route with the handler beside it, so the table
    // the docs print and the code that serves it cannot drift apart.
    files: ['src/testing/control/routes.ts'],
    rules: { 'max-lines': ['error', { max: 540, skipBlankLines: true, skipComments: true }] },
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
