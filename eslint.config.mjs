// Lint: typed rules for the whole project, and the sandbox rule for workflows/.
import tseslint from 'typescript-eslint';

/**
 * Every workflow evaluates the modules it imports afresh: the schema modules' values (zod schemas,
 * built at load) are reached through src/shared/schemas-on-demand.ts instead, built when first used.
 */
const SCHEMA_MODULES = [
  'src/shared/a2a-types.ts',
  'src/shared/data-use-types.ts',
  'src/shared/delegation-types.ts',
  'src/shared/graph-types.ts',
  'src/shared/served-task-types.ts',
];
const schemasOnDemand = (prefix) => ({
  regex: `^${prefix}(a2a|data-use|delegation|graph|served-task)-types$`,
  allowTypeImports: true,
  message:
    'workflow code reaches schemas through schemas-on-demand (delegationSchemas(), graphSchemas(), servedTaskSchemas(), dataUseSchemas()): importing them builds every schema for every workflow.',
});

export default tseslint.config(
  { ignores: ['lib/**', 'node_modules/**', '.baton/**', 'examples/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A forgotten await on an activity or a client call is a real bug.
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A function that does one job fits on a screen or two: the code and the benchmarks stay readable.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  {
    // workflows/ runs in Temporal's deterministic sandbox: values come only from the workflow SDK,
    // @temporalio/common, zod, sibling workflow files and src/shared. Type-only imports are free.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|@temporalio/common$|zod$|nexus-rpc$|\\./|\\.\\./src/shared/).*',
              allowTypeImports: true,
              message:
                'workflows/ may import values only from src/shared, sibling workflow files, @temporalio/workflow, @temporalio/common, nexus-rpc (the service definition callers import) and zod.',
            },
            schemasOnDemand('\\.\\./src/shared/'),
          ],
        },
      ],
    },
  },
  {
    // After the rule for workflows/, which it relaxes: the traced bundle's interceptors build on
    // OpenTelemetry's own (workflows/tracing-interceptors.ts).
    files: ['workflows/tracing-interceptors.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // Test workflows run in the same sandbox and use Baton the way a user's workflow would (zod to
    // check what an MCP tool returned, as callMcpTool's `output` asks).
    files: ['test/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|zod$|\\.\\./\\.\\./workflows/api$).*',
              allowTypeImports: true,
              message:
                'test workflows may import values only from @temporalio/workflow, zod and workflows/api (what baton/workflow exports).',
            },
          ],
        },
      ],
    },
  },
  ...[false, true].map((definesSchemas) => ({
    // src/shared/ is imported by workflows: pure code only, no Node modules; schemas on demand, except
    // in the modules that define them.
    files: definesSchemas ? SCHEMA_MODULES : ['src/shared/**/*.ts'],
    ...(definesSchemas ? {} : { ignores: SCHEMA_MODULES }),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/common$|zod$|\\./).*',
              allowTypeImports: true,
              message: 'src/shared/ is workflow-safe: import values only from sibling shared files, @temporalio/common and zod.',
            },
            ...(definesSchemas ? [] : [schemasOnDemand('\\./')]),
          ],
        },
      ],
    },
  })),
  {
    // ui/ is browser ES modules with no build step: every name is imported or a browser global.
    files: ['ui/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        ['AbortController', 'Node', 'TextDecoderStream', 'URL', 'clearInterval', 'console', 'document', 'fetch', 'history', 'location']
          .concat(['sessionStorage', 'setInterval', 'setTimeout', 'window'])
          .map((name) => [name, 'readonly']),
      ),
    },
    rules: { 'no-undef': 'error' },
  },
);
