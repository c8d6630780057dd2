import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { CfnResource } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { installedFfmpegBuild, pinnedFfmpegBuild } from '../../infra/constructs/ffmpeg-layer.js';
import { analyzerTasks } from '../../infra/constructs/engine-access.js';
import { nodeEsmBundle } from '../../infra/constructs/service-container-task.js';
import { WORD_VECTOR_FILES } from '../../functions/adapters/meaning/word-vectors.js';
import { SAME_MEANING } from '../../functions/domain/engine/meaning.js';
import { LAMBDA_WORD_VECTORS_DIR } from '../../functions/runtime/contracts.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { awsSolutionsErrors, synthesize, violations, type SynthesizedAssembly } from './synth.js';
import { TemplateQueries } from './template.js';

// The one fully bundled synthesis of the infra tests (esbuild for every function, the ffmpeg layer
// from the installed binaries), as `cdk synth` does it, made once per run by the project's globalSetup
// (shared-assembly-setup.ts) and read by the describe blocks after the first. Both checks below run
// as policy validation plugins during synthesis: their findings land in the cloud assembly's
// validation report (and make `cdk synth` fail), not in construct annotations. The report lists
// only plugins with findings, so an empty one proves nothing by itself: the first block shows that
// each check does report.
let synthesized: SynthesizedAssembly;
let q: TemplateQueries;
const repoRoot = join(import.meta.dirname, '..', '..');

const readShared = async () => {
  synthesized = await sharedAssembly();
  q = new TemplateQueries(synthesized.template);
};

/** The staged directory of a function's or layer's asset: `asset.<hash>`, deployed as `<hash>.zip`. */
function assetDirectory(logicalId: string): string {
  const { Code, Content } = q.resource(logicalId).Properties as { Code?: { S3Key: string }; Content?: { S3Key: string } };
  const key = (Code ?? Content)!.S3Key;
  expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
  return join(synthesized.assemblyDirectory, `asset.${key.replace(/\.zip$/, '')}`);
}

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The first bytes of a (large) file. */
function head(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, 0);
    return buffer;
  } finally {
    closeSync(fd);
  }
}

// First, and on a synthesis of its own (unbundled): it runs while the shared one may still be bundling.
describe('the checks below can fail', () => {
  it('reports cdk-nag errors and CloudFormation schema errors of a broken stack', () => {
    const broken = synthesize({
      bundle: false,
      modify: ({ stack }) => {
        new Bucket(stack, 'Unlogged');
        // A property the AWS::SQS::Queue schema does not have.
        new CfnResource(stack, 'Misspelt', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeoutSecs: 30 } });
      },
    });
    try {
      const errors = awsSolutionsErrors(broken.validationReport);
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S1 at MediaScanner\/Unlogged\/Resource/));
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S10 at MediaScanner\/Unlogged\/Resource/));
      expect(violations(broken.validationReport, 'CloudFormation Validate', ['error', 'warning'])).toContainEqual(
        expect.stringMatching(/ at MediaScanner\/Misspelt: /),
      );
    } finally {
      broken.dispose();
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  beforeAll(readShared, SHARED_ASSEMBLY_TIMEOUT_MS);

  it('reports no unacknowledged errors for the stack', () => {
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual([]);
  });
});

describe('CloudFormation resource schemas', () => {
  beforeAll(readShared, SHARED_ASSEMBLY_TIMEOUT_MS);

  // Among others, this accepts the authorizer with no IdentitySource and a result TTL of 0.
  it('accept every resource of the template', () => {
    expect(violations(synthesized.validationReport, 'CloudFormation Validate', ['error', 'warning'])).toEqual([]);
  });
});

describe('bundled assets', () => {
  beforeAll(readShared, SHARED_ASSEMBLY_TIMEOUT_MS);

  it('bundles every Node function into an ESM entry point (the Python one ships its handler as it is)', () => {
    for (const functionId of q.nodeFunctionIds()) {
      expect(existsSync(join(assetDirectory(functionId), 'index.mjs')), functionId).toBe(true);
    }
    const python = q.functionIds().filter((id) => !q.nodeFunctionIds().includes(id));
    expect(python).toHaveLength(1);
    expect(existsSync(join(assetDirectory(python[0]!), 'handler.py'))).toBe(true);
  });

  it('puts the local analyzer’s word table in the bundles of the functions that run it, and only theirs: from it alone, a bundle of the analyzer’s reading finds meaning', () => {
    const carrying = q.nodeFunctionIds().filter((id) => existsSync(join(assetDirectory(id), basename(LAMBDA_WORD_VECTORS_DIR))));
    expect(carrying).toEqual(q.nodeFunctionIds().filter((id) => q.environmentOf(id).WORD_VECTORS_DIR === LAMBDA_WORD_VECTORS_DIR));
    expect(carrying).toHaveLength(analyzerTasks.length);
    const table = join(assetDirectory(carrying[0]!), basename(LAMBDA_WORD_VECTORS_DIR));
    expect(readdirSync(table).sort()).toEqual(Object.values(WORD_VECTOR_FILES).sort());
    for (const id of carrying) expect(spawnSync(process.execPath, ['--check', join(assetDirectory(id), 'index.mjs')]).status, id).toBe(0);
    // Bundled as the functions are (every package inside, minified ESM, the require banner) and run where no node_modules is in reach.
    const work = mkdtempSync(join(tmpdir(), 'media-scanner-meaning-'));
    try {
      const entry = [
        `import { loadWinkMeaning } from ${JSON.stringify(join(repoRoot, 'functions/adapters/meaning/wink-meaning.ts'))};`,
        'const meaning = await loadWinkMeaning(process.argv[2]);',
        'console.log(JSON.stringify({ cost: meaning.similarity("money", "cost"), negated: meaning.words("no music").map((w) => w.negated) }));',
      ].join('\n');
      const bundle = join(work, 'meaning.mjs');
      buildSync({
        stdin: { contents: entry, resolveDir: repoRoot, loader: 'ts' },
        outfile: bundle,
        ...nodeEsmBundle,
        minify: true,
        keepNames: true,
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
        logLevel: 'warning',
      });
      const run = spawnSync(process.execPath, [bundle, table], { cwd: work, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      const read = JSON.parse(run.stdout) as { cost: number; negated: boolean[] };
      expect(read.cost).toBeGreaterThanOrEqual(SAME_MEANING);
      // "music" in the scope of "no".
      expect(read.negated).toEqual([false, true]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('stages the ffmpeg layer with the pinned build npm ci installed: static x86-64 ffmpeg and ffprobe in bin/, and their manifest', () => {
    const [layerId] = Object.keys(q.find('AWS::Lambda::LayerVersion'));
    const directory = assetDirectory(layerId!);
    expect(readdirSync(directory).sort()).toEqual(['bin', 'ffmpeg.json']);
    const installed = installedFfmpegBuild();
    for (const { binary, path } of installed) {
      const staged = join(directory, 'bin', binary);
      expect(statSync(staged).mode & 0o777, binary).toBe(0o755);
      const header = head(staged, 20);
      // ELF magic, 64-bit, little-endian, e_machine 62 (x86-64).
      expect(header.readUInt32BE(0), binary).toBe(0x7f454c46);
      expect([header[4], header[5], header.readUInt16LE(18)], binary).toEqual([2, 1, 62]);
      expect(sha256(staged), binary).toBe(sha256(path));
    }
    const manifest = JSON.parse(readFileSync(join(directory, 'ffmpeg.json'), 'utf8')) as { path: string; name: string; version: string; integrity: string }[];
    expect(manifest.map(({ path, name, version, integrity }) => ({ path, name, version, integrity }))).toEqual(
      pinnedFfmpegBuild().map(({ binary, name, version, integrity }) => ({ path: `/opt/bin/${binary}`, name, version, integrity })),
    );
  });
});
