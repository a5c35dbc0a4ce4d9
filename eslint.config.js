import js from '@eslint/js';
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
