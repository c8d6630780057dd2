/**
 * Reproducible assets: the ffmpeg layer and the container tasks' image are built from what `npm ci`
 * installed (one pinned ffmpeg build for the local host, the tests, Lambda and Fargate), `cdk
 * synth` downloads nothing, the image's build context is the same bytes for the same inputs, and
 * `-c containerImageUri=...` replaces it with a prebuilt image.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { workflows, type ContainerTask } from '../../functions/workflows/registry.js';
import { ContainerCluster } from '../../infra/constructs/container-cluster.js';
import { installedFfmpegBuild, pinnedFfmpegBuild } from '../../infra/constructs/ffmpeg-layer.js';
import { MediaBucket } from '../../infra/constructs/media-bucket.js';
import { CONTAINER_IMAGE_URI_CONTEXT, ServiceContainerTask, stageContainerImage } from '../../infra/constructs/service-container-task.js';
import { ServiceTable } from '../../infra/constructs/service-table.js';
import { offlineEnvironment } from './offline.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { TemplateQueries, type FnGetAtt, type Statement } from './template.js';

const repoRoot = new URL('../../', import.meta.url).pathname;
const signalsTask: ContainerTask = workflows.analysis.containerTasks.SignalsTaskDefinitionArn;

const temporaryDirectories: string[] = [];
const temporaryDirectory = (prefix: string): string => {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirectories.push(directory);
  return directory;
};
afterAll(() => {
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
});

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every file under a directory by its relative path, with its sha256. */
const contentsOf = (directory: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(directory, { recursive: true, encoding: 'utf8' })
      .map((path) => join(directory, path))
      .filter((path) => statSync(path).isFile())
      .map((path): [string, string] => [relative(directory, path), sha256(path)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

describe('the pinned ffmpeg build', () => {
  it('is the linux-x64 packages package-lock.json pins, installed, static x86-64 executables: the binaries the local host and the tests run', () => {
    const installed = installedFfmpegBuild();
    expect(installed.map(({ name, version }) => `${name}@${version}`)).toEqual(pinnedFfmpegBuild().map(({ name, version }) => `${name}@${version}`));
    expect(installed.map(({ name }) => name)).toEqual(['@ffmpeg-installer/linux-x64', '@ffprobe-installer/linux-x64']);
    // What functions/adapters/ffmpeg-binaries.ts resolves where FFMPEG_PATH and FFPROBE_PATH are unset.
    const require = createRequire(import.meta.url);
    const local = [require('@ffmpeg-installer/ffmpeg') as { path: string }, require('@ffprobe-installer/ffprobe') as { path: string }];
    expect(installed.map(({ path }) => realpathSync(path))).toEqual(local.map(({ path }) => realpathSync(path)));
  });

  /** A checkout with this lock file and, in node_modules, the wrappers and whichever platform packages `installed` lists. */
  function checkout(installed: Record<string, { version: string; binary: Buffer }>): string {
    const root = temporaryDirectory('media-scanner-checkout-');
    writeFileSync(join(root, 'package.json'), '{"private": true}');
    copyFileSync(join(repoRoot, 'package-lock.json'), join(root, 'package-lock.json'));
    const write = (path: string, content: string | Buffer) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    };
    for (const wrapper of ['@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe']) write(`node_modules/${wrapper}/package.json`, JSON.stringify({ name: wrapper }));
    for (const [name, { version, binary }] of Object.entries(installed)) {
      write(`node_modules/${name}/package.json`, JSON.stringify({ name, version }));
      write(`node_modules/${name}/${name.includes('ffprobe') ? 'ffprobe' : 'ffmpeg'}`, binary);
    }
    return root;
  }

  /** The first bytes of an ELF executable for `machine` (62 x86-64, 183 AArch64), with one program header of `programType` (3: an interpreter). */
  function elf(machine: number, programType = 1): Buffer {
    const file = Buffer.alloc(64 + 56);
    file.writeUInt32BE(0x7f454c46, 0);
    file[4] = 2;
    file[5] = 1;
    file.writeUInt16LE(machine, 18);
    file.writeBigUInt64LE(64n, 0x20);
    file.writeUInt16LE(56, 0x36);
    file.writeUInt16LE(1, 0x38);
    file.writeUInt32LE(programType, 64);
    return file;
  }

  const [ffmpegPin, ffprobePin] = pinnedFfmpegBuild() as [ReturnType<typeof pinnedFfmpegBuild>[number], ReturnType<typeof pinnedFfmpegBuild>[number]];

  it('fails, naming the packages and what to do, where npm did not install them (it does so on linux-x64 only)', () => {
    const root = checkout({});
    expect(() => installedFfmpegBuild(root)).toThrow(`${ffmpegPin.name}@${ffmpegPin.version} is not installed`);
    expect(() => installedFfmpegBuild(root)).toThrow(/npm ci` on linux-x64 only[\s\S]*npm install --no-save --force @ffmpeg-installer\/linux-x64@4\.1\.0 @ffprobe-installer\/linux-x64@5\.2\.0/);
  });

  it('refuses an installed version other than the lock’s, a binary of another architecture, and a dynamically linked one', () => {
    const good = { version: ffprobePin.version, binary: elf(62) };
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: '4.0.9', binary: elf(62) }, [ffprobePin.name]: good }))).toThrow(
      `${ffmpegPin.name} 4.0.9 is installed where package-lock.json pins ${ffmpegPin.version}: run \`npm ci\``,
    );
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(183) }, [ffprobePin.name]: good }))).toThrow(
      'is not a 64-bit x86-64 ELF executable',
    );
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(62, 3) }, [ffprobePin.name]: good }))).toThrow(
      'is dynamically linked',
    );
    expect(installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(62) }, [ffprobePin.name]: good }))).toHaveLength(2);
  });
});

describe('synthesis downloads nothing', () => {
  it('the shared synthesis, which built the layer and staged the image, ran with no network for it or any process it started', async () => {
    expect((await sharedAssembly()).offline).toBe(true);
  }, SHARED_ASSEMBLY_TIMEOUT_MS);

  it('and a download there fails: the `npm pack` of an ffmpeg package the layer build once ran', () => {
    const result = spawnSync('npm', ['pack', '@ffmpeg-installer/linux-arm64@4.1.4', '--dry-run', '--json'], {
      cwd: temporaryDirectory('media-scanner-pack-'),
      env: offlineEnvironment(process.env, temporaryDirectory('media-scanner-npm-cache-')),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('EOFFLINEGUARD');
  });
});

describe('the container image', () => {
  it('is staged as the same bytes from the same inputs, wherever it is staged: its asset hash changes only with the bundle and the binaries', async () => {
    const { assemblyDirectory, stackArtifactId } = await sharedAssembly();
    const manifest = JSON.parse(readFileSync(join(assemblyDirectory, `${stackArtifactId}.assets.json`), 'utf8')) as { dockerImages: Record<string, { source: { directory: string } }> };
    const [image] = Object.values(manifest.dockerImages);
    const again = temporaryDirectory('media-scanner-image-again-');
    stageContainerImage(signalsTask.entrypoint, again);
    const staged = contentsOf(join(assemblyDirectory, image!.source.directory));
    expect(Object.keys(staged)).toEqual(['Dockerfile', 'bin/ffmpeg', 'bin/ffprobe', 'ffmpeg.json', 'task.mjs', 'task.mjs.map']);
    // Byte for byte, binaries included: `again` has just copied them from node_modules, so the
    // image carries the very binaries of the local host (and of the layer, validation.test.ts).
    expect(contentsOf(again)).toEqual(staged);
  }, SHARED_ASSEMBLY_TIMEOUT_MS);

  /** A stack with just the signals container task, synthesized with `context` (bundling on). */
  function containerTaskStack(context: Record<string, unknown>) {
    const app = new App({ outdir: temporaryDirectory('media-scanner-cdk-'), context });
    const stack = new Stack(app, 'Test');
    const media = new MediaBucket(stack, 'Media');
    const cursorSecret = new Secret(stack, 'Secret');
    Validations.of(cursorSecret).acknowledge({ id: 'AwsSolutions-SMG4', reason: 'Stands in for the stack’s cursor key, acknowledged there.' });
    const { taskDefinition } = new ServiceContainerTask(stack, 'Signals', {
      task: signalsTask,
      cluster: new ContainerCluster(stack, 'Containers'),
      environment: {},
      table: new ServiceTable(stack, 'Table'),
      bucket: media.bucket,
      cursorSecret,
    });
    const assembly = app.synth();
    const q = new TemplateQueries(Template.fromStack(stack));
    const definition = q.resource(stack.getLogicalId(taskDefinition.node.defaultChild as CfnElement)).Properties as {
      ContainerDefinitions: { Image: unknown }[];
      ExecutionRoleArn: FnGetAtt;
    };
    const assets = JSON.parse(readFileSync(join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8')) as { dockerImages?: Record<string, unknown> };
    const nagErrors = new AwsSolutionsChecks().validateScope(app).violations.filter((v) => v.severity === 'error').map((v) => v.ruleName);
    return { image: definition.ContainerDefinitions[0]!.Image, executionRole: q.statementsOfRole(definition.ExecutionRoleArn['Fn::GetAtt'][0]), dockerImages: assets.dockerImages ?? {}, nagErrors };
  }

  const ecrPull = ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'];
  const actions = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

  it('is the prebuilt image of `-c containerImageUri=<ECR image>` instead, which the execution role may pull; nothing is staged or built', () => {
    const uri = '210987654321.dkr.ecr.us-east-1.amazonaws.com/media-scanner/signals@sha256:' + 'a'.repeat(64);
    const { image, executionRole, dockerImages, nagErrors } = containerTaskStack({ [CONTAINER_IMAGE_URI_CONTEXT]: uri });
    expect(image).toBe(uri);
    expect(dockerImages).toEqual({});
    const pull = executionRole.find((s) => ecrPull.every((action) => [s.Action].flat().includes(action)));
    expect(pull?.Resource).toEqual({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ecr:us-east-1:210987654321:repository/media-scanner/signals']] });
    expect(nagErrors).toEqual([]);
  });

  it('is the prebuilt image of `-c containerImageUri=<other registry>`, with no ECR repository access, and refuses a malformed ECR URI', () => {
    const { image, executionRole, dockerImages, nagErrors } = containerTaskStack({ [CONTAINER_IMAGE_URI_CONTEXT]: 'ghcr.io/example/media-scanner-signals:1.2.3' });
    expect(image).toBe('ghcr.io/example/media-scanner-signals:1.2.3');
    expect(dockerImages).toEqual({});
    expect(actions(executionRole).filter((action) => ecrPull.includes(action))).toEqual([]);
    expect(nagErrors).toEqual([]);
    expect(() => containerTaskStack({ [CONTAINER_IMAGE_URI_CONTEXT]: '1234.dkr.ecr.us-east-1.amazonaws.com/signals' })).toThrow('is not an ECR image URI');
  });
});
