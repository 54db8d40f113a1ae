import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TOOLING_IMPORT = {
  group: ['**/tooling/*'],
  message: 'tooling/ is for dev, tests, fuzzing and benches; production code must not import it.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.tools/**', 'eslint.config.mjs'] },
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
    files: ['api/**/*.ts', 'domain/**/*.ts', 'worker/**/*.ts', 'activities/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [TOOLING_IMPORT] }] },
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
            TOOLING_IMPORT,
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
