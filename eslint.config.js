import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // web/dist is the built web app (npm run build:web); web/.dist-* the test harness's scratch builds.
  { ignores: ['dist/', 'node_modules/', 'data/', 'web/dist/', 'web/.dist-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Imports point down: a module never reaches itself again through what it imports (docs/architecture.md).
    // Type-only imports are left out: they vanish at run time and cannot order module loading.
    files: ['src/**/*.ts', 'web/src/**/*.{ts,tsx}', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mts,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json', 'web/tsconfig.json'], noWarnOnMultipleProjects: true })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The web app runs in the browser, not in Node.
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        localStorage: 'readonly',
        URLSearchParams: 'readonly',
        Intl: 'readonly',
        process: 'off',
      },
    },
  },
  {
    // The API reference's start-up script, a plain browser script beside Swagger UI's bundle.
    files: ['web/docs/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', SwaggerUIBundle: 'readonly', process: 'off' },
    },
  },
  {
    // The credential gateway holds provider secrets: it may import the wire
    // types and the egress module, never the service (docs/gateway.md).
    files: ['src/gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!shared/gateway-wire\\.js$|egress/[^/]+\\.js$)|^\\.\\./\\.\\./',
              message: 'src/gateway imports nothing from the service but ../shared/gateway-wire.js and ../egress/*.',
            },
          ],
        },
      ],
    },
  },
);
