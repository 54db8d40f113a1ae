import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.tools/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
      // Activities and handlers are async by contract even when they do not await.
      '@typescript-eslint/require-await': 'off',
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
