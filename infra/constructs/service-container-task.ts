import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions } from 'esbuild';
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { Repository } from 'aws-cdk-lib/aws-ecr';
import { ContainerImage, CpuArchitecture, type ContainerDefinition, FargateTaskDefinition, LogDrivers, OperatingSystemFamily } from 'aws-cdk-lib/aws-ecs';
import { Grant, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { DISABLE_ASSET_STAGING_CONTEXT } from 'aws-cdk-lib/cx-api';
import { Construct, type IConstruct } from 'constructs';
import { imageTaskPath, runtimeContracts, type ContainerContract } from '../../functions/runtime/contracts.js';
import type { ContainerCluster } from './container-cluster.js';
import { grantBucketAccess, grantTableAccess } from './data-grants.js';
import { stageFfmpegBuild } from './ffmpeg-layer.js';
import { shippedFiles } from '../../functions/runtime/shipped-files.js';
import { deploymentContextKeys } from '../deployment-context.js';
import { markUnit } from './unit-metadata.js';
import type { ServiceTable } from './service-table.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The Dockerfile of the image, and what the image asset is staged from when bundling is skipped. */
const imageDir = fileURLToPath(new URL('../../layers/ffmpeg/', import.meta.url));

/** The pinned ffmpeg build is x86-64 (ffmpegArchitecture): so are the image and the tasks. */
const imagePlatform = Platform.LINUX_AMD64;

/** CDK context: a prebuilt image for every container task (`cdk deploy -c containerImageUri=<uri>`), instead of building one. */
const CONTAINER_IMAGE_URI_CONTEXT = deploymentContextKeys.containerImageUri;

/** `<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]/<repository>[:tag | @sha256:digest]` */
const ECR_IMAGE_URI =
  /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/((?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*)(?::[\w][\w.-]{0,127}|@sha256:[a-f0-9]{64})?$/;

/** esbuild's settings for a Node 24 ESM bundle, as the Lambda bundles are built (service-function.ts). */
export const nodeEsmBundle = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
} as const satisfies BuildOptions;

/**
 * How a container task's entrypoint is bundled: the Lambda bundles' settings
 * (infra/constructs/service-function.ts), minified ESM for Node 24 with names kept, and a `require`
 * for the CommonJS dependencies that call it at run time. Everything is bundled, the AWS SDK
 * included: a container has no runtime-provided SDK.
 */
export const containerTaskBundle = {
  ...nodeEsmBundle,
  minify: true,
  keepNames: true,
  // __filename/__dirname too: the TensorFlow.js WASM loader (render framing) reads them in Node.
  banner: {
    js: "import { createRequire } from 'node:module'; import { fileURLToPath as __bannerPath } from 'node:url'; const require = createRequire(import.meta.url); const __filename = __bannerPath(import.meta.url); const __dirname = __bannerPath(new URL('.', import.meta.url));",
  },
} as const satisfies BuildOptions;

/**
 * Writes the build context of the container tasks' one image into `directory` (empty): the
 * Dockerfile of layers/ffmpeg, every container task's entrypoint bundled into `<name>.mjs` (with its
 * source map; a task definition chooses its program by command), the pinned ffmpeg build in
 * bin/ with its manifest ffmpeg.json, and the data directories (fonts/, detector/, speech/:
 * functions/runtime/shipped-files.ts). No docker, no network: esbuild and the binaries are the ones
 * npm ci installed. The same inputs give the same bytes, wherever the checkout is, so the image
 * asset's hash (CDK's fingerprint of the directory) changes only with them.
 */
export function stageContainerImage(directory: string, tasks: readonly ContainerContract[] = allContainerContracts()): void {
  const taskDir = join(directory, 'task');
  mkdirSync(taskDir, { recursive: true });
  for (const task of tasks) {
    const { outputFiles } = buildSync({
      entryPoints: [join(repoRoot, 'functions', `${task.entrypoint}.ts`)],
      absWorkingDir: repoRoot,
      // Never written (write: false): the source map's paths are relative to it, so they do not
      // depend on where the files are staged.
      outfile: join(repoRoot, basename(imageTaskPath(task))),
      write: false,
      ...containerTaskBundle,
      sourcemap: true,
      logLevel: 'warning',
    });
    for (const file of outputFiles) writeFileSync(join(taskDir, basename(file.path)), file.contents);
  }
  stageFfmpegBuild(directory);
  for (const [kind, files] of Object.entries(shippedFiles)) {
    for (const { name, source } of files()) {
      mkdirSync(dirname(join(directory, kind, name)), { recursive: true });
      copyFileSync(source, join(directory, kind, name));
    }
  }
  copyFileSync(join(imageDir, 'Dockerfile'), join(directory, 'Dockerfile'));
}

/** Every container task of the workflow table, each by its contract. */
const allContainerContracts = (): ContainerContract[] =>
  [...runtimeContracts().values()].filter((contract): contract is ContainerContract => contract.kind === 'container');

interface StackImage {
  readonly image: ContainerImage;
  readonly grantPull?: (grantee: IGrantable) => void;
}

/**
 * The container tasks' one image, made once per stack: the prebuilt one the context names (ECR: the
 * execution roles may pull it), else an asset staged from a temporary directory
 * (stageContainerImage) that CDK copies into the cloud assembly and `cdk deploy` builds with docker.
 */
function stackImage(scope: Construct): StackImage {
  const stack = Stack.of(scope);
  const existing = imagesByStack.get(stack);
  if (existing) return existing;
  const made = makeImage(stack);
  imagesByStack.set(stack, made);
  return made;
}
const imagesByStack = new WeakMap<Stack, StackImage>();

function makeImage(stack: Stack): StackImage {
  const uri: unknown = stack.node.tryGetContext(CONTAINER_IMAGE_URI_CONTEXT);
  if (uri !== undefined) {
    if (typeof uri !== 'string' || !/^[^\s]+$/.test(uri))
      throw new Error(`Invalid CDK context: ${CONTAINER_IMAGE_URI_CONTEXT} must be an image URI, got ${JSON.stringify(uri)}`);
    const ecr = ECR_IMAGE_URI.exec(uri);
    if (!ecr && uri.includes('.dkr.ecr.'))
      throw new Error(
        `Invalid CDK context: ${CONTAINER_IMAGE_URI_CONTEXT}=${uri} is not an ECR image URI (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag|@sha256:digest])`,
      );
    const image = ContainerImage.fromRegistry(uri);
    if (!ecr) return { image };
    const [, account, region, repositoryName] = ecr as unknown as [string, string, string, string];
    const repository = Repository.fromRepositoryAttributes(stack, 'ContainerImageRepository', {
      repositoryName,
      repositoryArn: stack.formatArn({ service: 'ecr', account, region, resource: 'repository', resourceName: repositoryName }),
    });
    return { image, grantPull: (grantee) => repository.grantPull(grantee) };
  }
  // `cdk synth` with bundling skipped for this stack (`cdk ls`, or a deploy of other stacks with
  // --exclusively): like CDK's own bundled assets, the source directory stands in, unbuilt.
  if (!stack.bundlingRequired) return { image: imageAsset(stack, imageDir) };
  const directory = mkdtempSync(join(tmpdir(), 'media-scanner-image-'));
  try {
    stageContainerImage(directory);
    // The asset copies the context into the assembly as it is made (asset staging); with staging
    // disabled (SAM) the assembly points at the source directory, which must then stay.
    const image = imageAsset(stack, directory);
    const disabled: unknown = stack.node.tryGetContext(DISABLE_ASSET_STAGING_CONTEXT);
    if (disabled !== true && disabled !== 'true') rmSync(directory, { recursive: true, force: true });
    return { image };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/** One image asset for the stack (every task definition binds the same one). */
const imageAsset = (stack: Stack, directory: string): ContainerImage =>
  ContainerImage.fromDockerImageAsset(new DockerImageAsset(stack, 'ContainerImage', { directory, platform: imagePlatform }));

interface ServiceContainerTaskProps {
  /** The container task's run-time contract (its entry in the workflow table, and what the image gives it). */
  readonly contract: ContainerContract;
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
    const { contract } = props;
    this.cluster = props.cluster;

    this.taskDefinition = new FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: contract.cpu,
      memoryLimitMiB: contract.memoryMb,
      // 20 GiB come with every task; only more is asked for (and paid).
      ...(contract.scratchGiB ? { ephemeralStorageGiB: contract.ephemeralStorageGiB } : {}),
      runtimePlatform: { cpuArchitecture: CpuArchitecture.X86_64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    const image = stackImage(this);
    this.container = this.taskDefinition.addContainer(contract.containerName, {
      containerName: contract.containerName,
      image: image.image,
      // One image for every container task: the task's program is its command (ENTRYPOINT is node).
      command: [...contract.command],
      environment: {
        ...props.environment,
        // Lambda sets it for the functions; the SDK clients and config() read it.
        AWS_REGION: Stack.of(this).region,
        TABLE_NAME: props.table.tableName,
        MEDIA_BUCKET: props.bucket.bucketName,
      },
      logging: LogDrivers.awsLogs({ logGroup: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }), streamPrefix: contract.containerName }),
      // Nothing writes to the image; the contract's writable paths are bind mounts of task storage.
      readonlyRootFilesystem: true,
    });
    contract.writable.forEach((path, index) => {
      const sourceVolume = `scratch${index}`;
      this.taskDefinition.addVolume({ name: sourceVolume });
      this.container.addMountPoints({ containerPath: path.path, sourceVolume, readOnly: false });
    });
    image.grantPull?.(this.taskDefinition.obtainExecutionRole());
    markUnit(this.taskDefinition, contract);

    const role = this.taskDefinition.taskRole;
    grantTableAccess(this, role, props.table, contract.table);
    if (contract.bucket) grantBucketAccess(this, role, props.bucket, contract.bucket);

    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason: 'The same configuration the functions get: names, ARNs and limits; no secret is a value here.',
    });
    Validations.of(this.taskDefinition.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only ecr:GetAuthorizationToken, which ECS needs to pull the image and which supports no resource-level permissions.',
    });
  }

  /**
   * What a state machine's RunTask names: the task definition's family, never a revision, so that a
   * deploy that registers a new revision (and deregisters the old) breaks no execution in flight.
   */
  public get taskDefinitionFamily(): string {
    return this.taskDefinition.family;
  }

  /**
   * What a state machine needs to run this task with `ecs:runTask.sync` (Step Functions' IAM
   * policy for Amazon ECS, "Run a Job"): RunTask on this task definition, Stop/DescribeTasks on
   * the cluster's tasks, PassRole of the task and execution roles to ECS, and the managed
   * EventBridge rule through which Step Functions learns that the task stopped.
   */
  public grantRunSync(grantee: IGrantable & IConstruct): void {
    // Every revision of the family: the state machine names the family (taskDefinitionFamily), so an
    // execution that began before a deploy runs its next task on the revision that deploy registered.
    const family = Stack.of(this).formatArn({ service: 'ecs', resource: 'task-definition', resourceName: `${this.taskDefinition.family}:*` });
    Grant.addToPrincipal({ grantee, actions: ['ecs:RunTask'], resourceArns: [family] });
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task-definition/${this.taskDefinition.family}:*]`,
      reason:
        'Every revision of this one task definition family: executions started before a deploy run their next task on the revision the deploy registered.',
    });
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
      reason:
        'Task ids are known only once RunTask answers; the wildcard covers only the tasks of the service’s own cluster, where Step Functions stops and describes the tasks it started.',
    });
  }
}
