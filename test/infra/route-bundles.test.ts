/**
 * What each route's bundle carries follows what the route may touch: a route with no media bucket
 * access in the route table (so no S3 grant: infra/constructs) imports no S3 client either. Each
 * S3 client loaded without need costs its cold start 50-100 ms of import (docs/deploying.md, "What
 * each function carries"); preflight, quote and one-off submission once carried one through the source
 * gateway's media store, which only the AcquireSource step uses. And no route imports node:http
 * as an ES module, whose namespace alone costs about 50 ms (shared/node-http.ts). The Lambda client,
 * with which three routes invoke the provider resolver, is loaded only when one does.
 */
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routes, type RouteDefinition } from '../../functions/routes.js';
import { nodeEsmBundle } from '../../infra/constructs/service-container-task.js';

const repoRoot = new URL('../../', import.meta.url).pathname;

/**
 * What each route entry imports from outside its bundle: the runtime's AWS SDK and Node's built-in
 * modules; with `atStart`, only what it loads at import (a dynamic import is loaded at its first call).
 */
function externalImportsByRoute(atStart = false): Map<string, Set<string>> {
  const { metafile } = buildSync({
    entryPoints: Object.fromEntries(routes.map((route) => [route.handler, `functions/${route.handler}.ts`])),
    absWorkingDir: repoRoot,
    outdir: 'out',
    write: false,
    ...nodeEsmBundle,
    external: ['@aws-sdk/*'],
    metafile: true,
    logLevel: 'error',
  });
  const byRoute = new Map<string, Set<string>>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!output.entryPoint) continue;
    const handler = file.replace(/^out\//, '').replace(/\.js$/, '');
    byRoute.set(handler, new Set(output.imports.filter((i) => i.external && (!atStart || i.kind !== 'dynamic-import')).map((i) => i.path)));
  }
  return byRoute;
}

describe('route bundles', () => {
  const imports = externalImportsByRoute();

  it('are built for every route', () => {
    expect(imports.size).toBe(routes.length);
  });

  it.each((routes as readonly RouteDefinition[]).filter((route) => !route.bucket).map((route) => [`${route.method} ${route.path}`, route.handler] as const))(
    '%s has no bucket access and carries no S3 client',
    (_name, handler) => {
      const sdk = [...(imports.get(handler) ?? [])];
      expect(sdk.filter((path) => path.startsWith('@aws-sdk/') && path.includes('s3'))).toEqual([]);
    },
  );

  it('load the Lambda client (which only invokes the provider resolver) at their first such call, never at cold start', () => {
    const loading = [...externalImportsByRoute(true)].filter(([, paths]) => paths.has('@aws-sdk/client-lambda')).map(([handler]) => handler);
    expect(loading).toEqual([]);
  });

  it('never import node:http as an ES module (its namespace loads undici: ~50 ms of a cold start; see shared/node-http.ts)', () => {
    const importing = [...imports].filter(([, paths]) => paths.has('node:http') || paths.has('http')).map(([handler]) => handler);
    expect(importing).toEqual([]);
  });
});
