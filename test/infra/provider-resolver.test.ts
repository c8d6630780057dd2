/**
 * The provider-resolver function (DESIGN §10): the Python function that describes provider pages
 * with yt-dlp from its layer, invoked by exactly the routes the route table says resolve them,
 * each told its name, and the staged layer's yt-dlp run by the staged handler.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContractOf, units } from '../../functions/runtime/contracts.js';
import { routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { debianYtDlp, stageYtDlp } from '../../infra/constructs/yt-dlp-layer.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly, type SharedAssembly } from './shared-assembly.js';
import { TemplateQueries, type FnGetAtt } from './template.js';

const contract = lambdaContractOf(units.providerResolver);
let assembly: SharedAssembly;
let q: TemplateQueries;
let resolverId: string;
const scratch = mkdtempSync(join(tmpdir(), 'yt-dlp-layer-'));

beforeAll(async () => {
  assembly = await sharedAssembly();
  q = new TemplateQueries(assembly.template);
  const preflight = q.functionBehindRoute('POST /v1/sources/preflight');
  resolverId = (q.environmentOf(preflight).PROVIDER_RESOLVER_FUNCTION as { Ref: string }).Ref;
}, SHARED_ASSEMBLY_TIMEOUT_MS);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The cloud assembly directory a function's or layer's asset was staged into (by its S3 key, the asset hash). */
function assetOf(logicalId: string): string {
  const { Code, Content } = q.resource(logicalId).Properties as { Code?: { S3Key: string }; Content?: { S3Key: string } };
  return join(assembly.assemblyDirectory, `asset.${(Code ?? Content)!.S3Key.replace(/\.zip$/, '')}`);
}

describe('the provider-resolver function', () => {
  it('is the Python function of its run-time contract, with the yt-dlp layer', () => {
    const fn = q.resource(resolverId);
    expect(fn.Properties).toMatchObject({
      Runtime: 'python3.12',
      Handler: 'handler.handler',
      Architectures: ['arm64'],
      MemorySize: contract.memoryMb,
      Timeout: contract.timeoutSeconds,
    });
    const layers = fn.Properties.Layers as { Ref: string }[];
    expect(layers).toHaveLength(1);
    expect(q.resource(layers[0]!.Ref).Properties).toMatchObject({ CompatibleRuntimes: ['python3.12'], LicenseInfo: 'Unlicense' });
    // Fails before the API's integration limit, so a route still answers in time.
    expect(contract.timeoutSeconds).toBeLessThan(29);
  });

  it('may be invoked by exactly the routes that resolve provider pages, each told its name', () => {
    const resolverArn: FnGetAtt = { 'Fn::GetAtt': [resolverId, 'Arn'] };
    const granted = q
      .functionIds()
      .filter((id) => JSON.stringify(q.resourcesGranted(q.statementsOf(id), 'lambda:InvokeFunction')).includes(JSON.stringify(resolverArn)));
    const resolving = (routes as readonly RouteDefinition[])
      .filter((route) => route.resolvesProviderPages)
      .map((route) => q.functionBehindRoute(routeKey(route)));
    expect(resolving.map((id) => q.descriptionOf(id)).sort()).toEqual(['POST /v1/analyses', 'POST /v1/analyses/quote', 'POST /v1/sources/preflight']);
    expect(granted.sort()).toEqual([...resolving].sort());
    for (const id of q.functionIds()) {
      const named = q.environmentOf(id).PROVIDER_RESOLVER_FUNCTION;
      expect(named, String(q.descriptionOf(id))).toEqual(resolving.includes(id) ? { Ref: resolverId } : undefined);
    }
  });

  it("runs the staged layer's yt-dlp from the staged handler, with no other yt-dlp in reach", () => {
    const layer = join(assetOf((q.resource(resolverId).Properties.Layers as { Ref: string }[])[0]!.Ref), 'python');
    expect(existsSync(join(layer, 'yt_dlp', 'version.py'))).toBe(true);
    expect(readdirSync(layer, { recursive: true, encoding: 'utf8' }).filter((path) => path.includes('__pycache__'))).toEqual([]);
    const handler = join(assetOf(resolverId), 'handler.py');
    // The runtime's version where this machine has it, else any python3 (the handler is the same).
    const python = spawnSync('python3.12', ['--version']).status === 0 ? 'python3.12' : 'python3';
    const run = spawnSync(python, [handler, '--timeout-seconds', '20', 'https://www.youtube.com/watch?v=clip'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: layer, PYTHONNOUSERSITE: '1' },
    });
    // No internet here: the layer's yt-dlp ran its YouTube extractor and refused the truncated id.
    expect(JSON.parse(run.stdout), run.stderr).toMatchObject({ error: 'failed', message: expect.stringMatching(/^ERROR: \[youtube/) as string });
  });
});

describe('staging the yt-dlp layer', () => {
  it('names the package to install when Debian yt-dlp is missing', () => {
    expect(() => stageYtDlp(join(scratch, 'out'), join(scratch, 'no-such-yt_dlp'))).toThrow('sudo apt-get install -y yt-dlp');
  });

  it('refuses another version than the pinned one', () => {
    const other = join(scratch, 'other', 'yt_dlp');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'version.py'), "__version__ = '2099.01.01'\n");
    expect(() => stageYtDlp(join(scratch, 'out'), other)).toThrow(`yt-dlp 2099.01.01 is installed at ${other} where the layer pins ${debianYtDlp.version}`);
  });
});
