import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TOOLING_IMPORT = {
  group: ['**/tooling/*'],
  message: 'tooling/ is for dev, tests, fuzzing and benches; production code must not import it.',
};

/**
 * Layers point one way: doors (api/, admin/) → domain/ (kernel ← areas) ← activities/ ← worker/;
 * workflows/ take activity types, their contracts and pure rule data only; infra/ is runtime plumbing,
 * and infra/temporal/ implements the domain's ports to its durable jobs with the Temporal client.
 */
const layer = (folders, message) => ({
  // A scoped package (`@opentelemetry/api`) is never one of our folders, whatever its last segment.
  group: [...folders.flatMap((f) => [`**/${f}/*`, `**/${f}`]), '!@*/**'],
  message,
});
const DOORS = layer(['api', 'admin'], 'The doors call the domain; nothing below them imports a door.');
const RUNTIME = layer(
  ['worker', 'workflows'],
  "worker/ and workflows/ are the worker's runtime: only infra/temporal/ (which starts workflows by " +
    'function) and the worker import them.',
);
const TEMPORAL_SDK = {
  group: ['@temporalio/*'],
  message:
    'The domain states what it needs of durable jobs as ports (StartJob, Gate, BookingDesk... in ' +
    'domain/kernel/); infra/temporal/ implements them with Temporal.',
};
/**
 * The domain files workflow code may import: the contracts it shares with its starters, and rule data
 * that is pure (no I/O, no imports of its own) and so safe in the workflow sandbox.
 */
const WORKFLOW_DOMAIN_IMPORTS = [
  '**/domain/*/workflow-contract',
  '**/domain/webhooks/delivery-rules',
  '**/domain/conversations/sending',
  '**/domain/kernel/search-attributes',
  '**/domain/kernel/errors',
];
/** What the domain (the core) never imports. */
const CORE = [
  TEMPORAL_SDK,
  TOOLING_IMPORT,
  DOORS,
  RUNTIME,
  layer(['activities'], 'Activities call the domain, not the other way.'),
  layer(['infra'], 'The domain takes what it needs as services; infra/ is runtime plumbing.'),
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      '.tools/**',
      'eslint.config.mjs',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test registers these synchronously; their returned promises are the runner's to await.
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
      // Activities and handlers are async by contract even when they do not await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Plain JavaScript helper scripts: no type information to lint with.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly' },
    },
  },
  {
    // Tests read untyped HTTP bodies (supertest's `any`) and assert on their shape.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // What production runs never loads dev and test tooling (embedded PostgreSQL is a devDependency).
    files: ['api/**/*.ts', 'admin/**/*.ts', 'infra/**/*.ts', 'worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [TOOLING_IMPORT] }] },
  },
  {
    // The domain is the core: no door, no runtime, no activity, no infra.
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: CORE,
        },
      ],
    },
  },
  {
    // The kernel knows no area: areas plug into it (the gate, channel providers, the registry).
    files: ['domain/kernel/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...CORE,
            {
              group: ['../*', '!../kernel'],
              message: 'The kernel imports no area (nor the registry); an area plugs into the kernel.',
            },
          ],
        },
      ],
    },
  },
  {
    // Activities are the workflows' I/O, built from the domain; the worker runs them.
    files: ['activities/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [TOOLING_IMPORT, DOORS, RUNTIME] }] },
  },
  {
    // Infra is runtime plumbing: it imports no workflow, worker, door or area logic.
    files: ['infra/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            TOOLING_IMPORT,
            DOORS,
            RUNTIME,
            layer(['activities'], 'Infra is runtime plumbing; it runs no activity.'),
            {
              group: ['**/domain/*', '!**/domain/kernel', '**/domain/*/**', '!**/domain/kernel/**'],
              message: 'Infra is runtime plumbing; it may name kernel types, never area logic.',
            },
          ],
        },
      ],
    },
  },
  {
    // infra/temporal/ is the Temporal adapter: it implements the domain's ports (reading the area types,
    // workflow ids and records they name) and starts workflows by function, with their messages.
    files: ['infra/temporal/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            TOOLING_IMPORT,
            DOORS,
            layer(['worker'], 'infra/temporal/ implements ports; the worker wires it, not the other way.'),
            layer(['activities'], 'Infra is runtime plumbing; it runs no activity.'),
          ],
        },
      ],
    },
  },
  {
    // The doors reach the domain (and infra); never the worker's runtime or dev tooling.
    files: ['api/**/*.ts', 'admin/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            TOOLING_IMPORT,
            RUNTIME,
            layer(['activities'], 'A door calls operations, not activities.'),
          ],
        },
      ],
    },
  },
  {
    // Workflows are replayed deterministically in a sandbox: no I/O, no Node built-ins.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Workflows must not use Node built-ins; do I/O in activities.' },
            {
              group: ['@temporalio/*', '!@temporalio/workflow'],
              message: 'Workflows use @temporalio/workflow only: they are replayed in the sandbox.',
            },
            {
              // Re-including a file needs its folder re-included first (gitignore's rule): `!**/domain/*/`.
              group: ['**/domain/**', '!**/domain/*/', ...WORKFLOW_DOMAIN_IMPORTS.map((p) => `!${p}`)],
              message:
                'Workflows import only their contracts (domain/<area>/workflow-contract.ts) and the pure ' +
                'rule data listed in WORKFLOW_DOMAIN_IMPORTS (eslint.config.mjs).',
            },
            TOOLING_IMPORT,
            DOORS,
            layer(['worker', 'infra'], 'Workflows take activity types and pure rule data only.'),
          ],
          paths: [
            'assert',
            'buffer',
            'child_process',
            'crypto',
            'dgram',
            'dns',
            'events',
            'fs',
            'fs/promises',
            'http',
            'https',
            'net',
            'os',
            'path',
            'process',
            'stream',
            'timers',
            'tls',
            'url',
            'util',
            'worker_threads',
            'zlib',
            'pg',
            'typeorm',
          ],
        },
      ],
    },
  },
);
