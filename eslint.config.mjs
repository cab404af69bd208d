import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '**/*.cjs', '**/*.mjs', 'test/client/.work-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // One rule for SQL: statements live in `<module>/*.queries.ts`. Exempt: migrations, the database
    // infrastructure, the outbox and job runner, and statements sent to a connector's own database
    // (a user's data source, not ours).
    files: ['src/**/*.ts'],
    ignores: [
      'src/**/*.queries.ts',
      'src/**/*.spec.ts',
      'src/database/**',
      'src/platform/outbox/**',
      'src/platform/jobs/**',
      'src/modules/connectors/user-database.client.ts',
      'src/modules/connectors/source-harvest.ts',
      'src/modules/connectors/source-catalog.service.ts',
      'src/modules/quality/check-evaluators.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='query']",
          message: 'SQL lives in a *.queries.ts file of the module (see README, "Map of the code").',
        },
      ],
    },
  },
  {
    // A module embeds another module's SQL only through that module's declared contract (a port, or
    // `<module>.contract.ts`; see README, "Map of the code"), never from its `*.queries.ts`.
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*/*.queries', '../../*/*.queries'],
              message:
                "Another module's SQL comes from its contract file or exported services, not its *.queries.ts.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
