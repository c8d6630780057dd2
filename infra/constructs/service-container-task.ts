import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions } from 'esbuild';
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { Repository } from 'aws-cdk-lib/aws-ecr';
import { ContainerImage, CpuArchitecture, type ContainerDefinition, FargateTaskDefinition, LogDrivers, OperatingSystemFamily } from 'aws-cdk-lib/aws-ecs';
import { Grant, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { DISABLE_ASSET_STAGING_CONTEXT } from 'aws-cdk-lib/cx-api';
import { Construct, type IConstruct } from 'constructs';
import { containerNameOf, type ContainerTask } from '../../functions/workflows/registry.js';
import type { ContainerCluster } from './container-cluster.js';
import { grantBucketAccess, grantTableAccess } from './data-grants.js';
import { stageFfmpegBuild } from './ffmpeg-layer.js';
import { bundledFontsDir } from '../../functions/adapters/renders/caption-burn-in.js';
import { FONTS } from '../../functions/domain/renders/presets.js';
import { FACE_DETECTOR_FILES, resolveFaceDetectorFiles } from '../../functions/adapters/renders/face-detector.js';
import type { ServiceTable } from './service-table.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The Dockerfile of the image, and what the image asset is staged from when bundling is skipped. */
const imageDir = fileURLToPath(new URL('../../layers/ffmpeg/', import.meta.url));

/** The pinned ffmpeg build is x86-64 (ffmpegArchitecture): so are the image and the tasks. */
const imagePlatform = Platform.LINUX_AMD64;

/** CDK context: a prebuilt image for every container task (`cdk deploy -c containerImageUri=<uri>`), instead of building one. */
export const CONTAINER_IMAGE_URI_CONTEXT = 'containerImageUri';

/** `<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]/<repository>[:tag | @sha256:digest]` */
const ECR_IMAGE_URI = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/((?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*)(?::[\w][\w.-]{0,127}|@sha256:[a-f0-9]{64})?$/;

/** esbuild's settings for a Node 24 ESM bundle, as the Lambda bundles are built (service-function.ts). */
export const nodeEsmBundle = { bundle: true, platform: 'node', format: 'esm', target: 'node24', mainFields: ['module', 'main'] } as const satisfies BuildOptions;

/**
 * Writes the build context of a container task's image into `directory` (empty): the Dockerfile
 * of layers/ffmpeg, the entrypoint bundled into task.mjs (with its source map), and the pinned
 * ffmpeg build in bin/ with its manifest ffmpeg.json. No docker, no network: esbuild and the
 * binaries are the ones npm ci installed. The same inputs give the same bytes, wherever the
 * checkout is, so the image asset's hash (CDK's fingerprint of the directory) changes only with them.
 */
export function stageContainerImage(entrypoint: ContainerTask['entrypoint'], directory: string): void {
  // The Lambda bundles' settings (infra/constructs/service-function.ts): minified ESM for Node 24
  // with names and source maps kept, and a `require` for the CommonJS dependencies that call it at
  // run time. Everything is bundled, the AWS SDK included: a container has no runtime-provided SDK.
  const { outputFiles } = buildSync({
    entryPoints: [join(repoRoot, 'functions', `${entrypoint}.ts`)],
    absWorkingDir: repoRoot,
    // Never written (write: false): the source map's paths are relative to it, so they do not
    // depend on where the files are staged.
    outfile: join(repoRoot, 'task.mjs'),
    write: false,
    ...nodeEsmBundle,
    minify: true,
    keepNames: true,
    sourcemap: true,
    // __filename/__dirname too: the TensorFlow.js WASM loader (render framing) reads them in Node.
    banner: {
      js: "import { createRequire } from 'node:module'; import { fileURLToPath as __bannerPath } from 'node:url'; const require = createRequire(import.meta.url); const __filename = __bannerPath(import.meta.url); const __dirname = __bannerPath(new URL('.', import.meta.url));",
    },
    logLevel: 'warning',
  });
  for (const file of outputFiles) writeFileSync(join(directory, basename(file.path)), file.contents);
  stageFfmpegBuild(directory);
  stageCaptionFonts(join(directory, 'fonts'));
  stageFaceDetector(join(directory, 'detector'));
  copyFileSync(join(imageDir, 'Dockerfile'), join(directory, 'Dockerfile'));
}

/**
 * The caption fonts (presets.ts FONTS) and their licence, from the pinned npm package, into the
 * image's fonts/ (the Dockerfile copies them to /opt/fonts, CAPTION_FONTS_DIR): the bundled task
 * has no node_modules to find them in, and burn-in never looks up a font of the image.
 */
function stageCaptionFonts(directory: string): void {
  mkdirSync(directory, { recursive: true });
  const packageDir = join(bundledFontsDir(), '..');
  for (const font of FONTS) copyFileSync(join(packageDir, 'ttf', font.file), join(directory, font.file));
  copyFileSync(join(packageDir, 'LICENSE'), join(directory, 'LICENSE'));
}

/**
 * The render framing's face detector (adapters/renders/face-detector.ts): the BlazeFace graph
 * of @vladmandic/human and the TensorFlow.js WASM binaries, from the pinned npm
 * packages, into the image's detector/ (the Dockerfile copies it to /opt/detector,
 * FACE_MODEL_DIR and TFJS_WASM_DIR): the bundled task has no node_modules to find them in.
 */
function stageFaceDetector(directory: string): void {
  mkdirSync(directory, { recursive: true });
  const { modelDir, wasmDir } = resolveFaceDetectorFiles();
  for (const file of FACE_DETECTOR_FILES.model) copyFileSync(join(modelDir, file), join(directory, file));
  for (const file of FACE_DETECTOR_FILES.wasm) copyFileSync(join(wasmDir, file), join(directory, file));
}

/**
 * The image of a container task: the prebuilt one the context names (ECR: the execution role may
 * pull it), else an asset staged from a temporary directory (stageContainerImage) that CDK copies
 * into the cloud assembly and `cdk deploy` builds with docker. `dispose` removes that directory
 * once the container has bound the image, which is when CDK copies it.
 */
function containerImage(scope: Construct, task: ContainerTask): { image: ContainerImage; grantPull?: (grantee: IGrantable) => void; dispose: () => void } {
  const uri: unknown = scope.node.tryGetContext(CONTAINER_IMAGE_URI_CONTEXT);
  if (uri !== undefined) {
    if (typeof uri !== 'string' || !/^[^\s]+$/.test(uri)) throw new Error(`Invalid CDK context: ${CONTAINER_IMAGE_URI_CONTEXT} must be an image URI, got ${JSON.stringify(uri)}`);
    const ecr = ECR_IMAGE_URI.exec(uri);
    if (!ecr && uri.includes('.dkr.ecr.')) throw new Error(`Invalid CDK context: ${CONTAINER_IMAGE_URI_CONTEXT}=${uri} is not an ECR image URI (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag|@sha256:digest])`);
    const image = ContainerImage.fromRegistry(uri);
    if (!ecr) return { image, dispose: () => undefined };
    const [, account, region, repositoryName] = ecr as unknown as [string, string, string, string];
    const stack = Stack.of(scope);
    const repository = Repository.fromRepositoryAttributes(scope, 'ImageRepository', {
      repositoryName,
      repositoryArn: stack.formatArn({ service: 'ecr', account, region, resource: 'repository', resourceName: repositoryName }),
    });
    return { image, grantPull: (grantee) => repository.grantPull(grantee), dispose: () => undefined };
  }
  // `cdk synth` with bundling skipped for this stack (`cdk ls`, or a deploy of other stacks with
  // --exclusively): like CDK's own bundled assets, the source directory stands in, unbuilt.
  if (!Stack.of(scope).bundlingRequired) {
    return { image: ContainerImage.fromAsset(imageDir, { platform: imagePlatform, extraHash: task.entrypoint }), dispose: () => undefined };
  }
  const directory = mkdtempSync(join(tmpdir(), 'media-scanner-image-'));
  try {
    stageContainerImage(task.entrypoint, directory);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  // With asset staging disabled (SAM), the assembly points at the source directory: keep it.
  const disabled: unknown = scope.node.tryGetContext(DISABLE_ASSET_STAGING_CONTEXT);
  const keep = disabled === true || disabled === 'true';
  return {
    image: ContainerImage.fromAsset(directory, { platform: imagePlatform }),
    dispose: () => (keep ? undefined : rmSync(directory, { recursive: true, force: true })),
  };
}

export interface ServiceContainerTaskProps {
  /** The container task's entry in the workflow table. */
  readonly task: ContainerTask;
  readonly cluster: ContainerCluster;
  /** The configuration every function validates at start-up; the entrypoint reads it the same way. */
  readonly environment: Readonly<Record<string, string>>;
  readonly table: ServiceTable;
  readonly bucket: Bucket;
}

/**
 * One container task of the workflow table as a Fargate task definition: x86_64 (the pinned ffmpeg
 * build's architecture), the image of layers/ffmpeg/Dockerfile with the task's bundled entrypoint
 * and that ffmpeg (or the prebuilt image of `-c containerImageUri=...`), its own log group, and a
 * task role that holds the table and bucket access of its entry, as a task function's role does.
 */
export class ServiceContainerTask extends Construct {
  public readonly taskDefinition: FargateTaskDefinition;
  /** The task's one container (environment, as a function's, may be added to it). */
  public readonly container: ContainerDefinition;
  private readonly cluster: ContainerCluster;

  public constructor(scope: Construct, id: string, props: ServiceContainerTaskProps) {
    super(scope, id);
    const { task } = props;
    this.cluster = props.cluster;

    this.taskDefinition = new FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: task.cpu,
      memoryLimitMiB: task.memoryMb,
      ...(task.scratchGiB ? { ephemeralStorageGiB: task.scratchGiB } : {}),
      runtimePlatform: { cpuArchitecture: CpuArchitecture.X86_64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    const containerName = containerNameOf(task);
    const image = containerImage(this, task);
    this.container = this.taskDefinition.addContainer(containerName, {
      containerName,
      image: image.image,
      environment: {
        ...props.environment,
        // Lambda sets it for the functions; the SDK clients and config() read it.
        AWS_REGION: Stack.of(this).region,
        TABLE_NAME: props.table.tableName,
        MEDIA_BUCKET: props.bucket.bucketName,
      },
      logging: LogDrivers.awsLogs({ logGroup: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }), streamPrefix: containerName }),
      // Nothing writes to the image: ffmpeg streams through pipes, and a task that needs scratch
      // space (scratchGiB) gets a task-storage volume at /tmp.
      readonlyRootFilesystem: true,
    });
    if (task.scratchGiB) {
      this.taskDefinition.addVolume({ name: 'scratch' });
      this.container.addMountPoints({ containerPath: '/tmp', sourceVolume: 'scratch', readOnly: false });
    }
    // The container has bound the image: CDK has copied a staged build context into the assembly.
    image.dispose();
    image.grantPull?.(this.taskDefinition.obtainExecutionRole());

    const role = this.taskDefinition.taskRole;
    grantTableAccess(this, role, props.table, task.table);
    if (task.bucket) grantBucketAccess(this, role, props.bucket, task.bucket);

    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The same configuration the functions get: names, ARNs and limits; no secret is a value here.',
    });
    Validations.of(this.taskDefinition.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only ecr:GetAuthorizationToken, which ECS needs to pull the image and which supports no resource-level permissions.',
    });
  }

  /**
   * What a state machine needs to run this task with `ecs:runTask.sync` (Step Functions' IAM
   * policy for Amazon ECS, "Run a Job"): RunTask on this task definition, Stop/DescribeTasks on
   * the cluster's tasks, PassRole of the task and execution roles to ECS, and the managed
   * EventBridge rule through which Step Functions learns that the task stopped.
   */
  public grantRunSync(grantee: IGrantable & IConstruct): void {
    Grant.addToPrincipal({ grantee, actions: ['ecs:RunTask'], resourceArns: [this.taskDefinition.taskDefinitionArn] });
    Grant.addToPrincipal({ grantee, actions: ['ecs:StopTask', 'ecs:DescribeTasks'], resourceArns: [this.cluster.cluster.arnForTasks('*')] });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.taskDefinition.taskRole.roleArn, this.taskDefinition.obtainExecutionRole().roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
    Grant.addToPrincipal({
      grantee,
      actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
      resourceArns: [Stack.of(this).formatArn({ service: 'events', resource: 'rule', resourceName: 'StepFunctionsGetEventsForECSTaskRule' })],
    });
    const clusterId = Stack.of(this).getLogicalId(this.cluster.cluster.node.defaultChild as CfnElement);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/<${clusterId}>/*]`,
      reason: 'Task ids are known only once RunTask answers; the wildcard covers only the tasks of the service’s own cluster, where Step Functions stops and describes the tasks it started.',
    });
  }
}
