// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.local/', 'coverage/', 'test-results/', 'packages/*/dist/', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // One zod: Zod Mini with English messages. Classic zod would add ~70 KB and ~20 ms of cold
      // start to every Lambda bundle, and Mini imported directly could run before its locale loads.
      'no-restricted-imports': [
        'error',
        {
          paths: ['zod', 'zod/mini'].map((name) => ({ name, message: 'Import functions/shared/zod.ts (Zod Mini with English messages).' })),
          patterns: [{ group: ['zod/*'], message: 'Import functions/shared/zod.ts (Zod Mini with English messages).' }],
        },
      ],
    },
  },
  { files: ['functions/shared/zod.ts'], rules: { 'no-restricted-imports': 'off' } },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
);
