// The layers of functions/ and who may import whom (issue 27), checked by `npm run lint`.
// dependency-cruiser rather than ESLint import rules: it resolves every import through
// tsconfig once for the whole tree, so one rule states a layer's boundary by folder, and it
// finds import cycles across the tree in a second (eslint-plugin-import's no-cycle re-walks the
// graph per file and takes minutes here).
//
// Floors, from the ground up (no exceptions are recorded: a violation fails the lint):
//   shared/      logger, metrics, tracer, zod: importable by every layer, imports none of them
//   domain/      the model and the use cases: imports shared/ only (and no AWS SDK, no Lambda types)
//   resources/   request/response schemas and presenters: adapt the domain's vocabulary
//   adapters/    the domain's ports over AWS, ffmpeg, models: no http/, composition/, local/
//   composition/ builds use cases from adapters for one host
//   entry files  api/, workflows/, containers/, events/, webhooks/, authorizer/: never local/
//   local/       the embedded local host; infra/ (CDK) never imports it
//   console/src/ the browser console: nothing of functions/ or infra/
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-import-cycles',
      comment: 'An import cycle makes load order matter and hides which module owns a concept.',
      severity: 'error',
      from: { path: '^(functions|infra|packages|console)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'domain-imports-only-shared',
      comment: 'The domain owns its vocabulary; resources, adapters, http, composition and hosts adapt to it.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^(functions/(?!domain/|shared/)|infra/|packages/)' },
    },
    {
      name: 'domain-imports-no-aws',
      comment: 'Domain code imports no AWS SDK, no Lambda types and no middleware: adapters do.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '(^|node_modules/)(@aws-sdk|@aws-lambda-powertools|@middy|@types/aws-lambda)/' },
    },
    {
      name: 'shared-is-the-ground-floor',
      comment: 'shared/ is imported by every layer, so it imports none of them.',
      severity: 'error',
      from: { path: '^functions/shared/' },
      to: { path: '^(functions/(?!shared/)|infra/|packages/)' },
    },
    {
      name: 'adapters-below-hosts',
      comment: 'Adapters take their clients as arguments; they know no route, host or composition.',
      severity: 'error',
      from: { path: '^functions/adapters/' },
      to: { path: '^functions/(http|api|composition|local|workflows|containers)/' },
    },
    {
      name: 'entry-files-run-on-aws',
      comment: 'Lambda and container entry files are what AWS runs: the local host wraps them, never the reverse.',
      severity: 'error',
      from: { path: '^functions/(api|workflows|containers|events|webhooks|authorizer|http|composition|adapters|runtime)/' },
      to: { path: '^functions/local/' },
    },
    {
      name: 'console-is-browser-code',
      comment:
        "The console (issue 28) runs in the browser and reaches the server only over HTTP: no functions/ code, no infra; types of packages/client, the CLI's pure helpers and the domain's vocabulary (its model files, which import nothing that runs) are fine.",
      severity: 'error',
      from: { path: '^console/src/' },
      to: { path: '^(functions|infra)/', pathNot: '^functions/domain/[^/]+/model[.]ts$' },
    },
    {
      name: 'infra-never-imports-the-local-host',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^functions/local/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
