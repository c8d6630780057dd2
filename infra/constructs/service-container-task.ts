import { fileURLToPath } from 'node:url';
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { ContainerImage, CpuArchitecture, type ContainerDefinition, FargateTaskDefinition, LogDrivers, OperatingSystemFamily } from 'aws-cdk-lib/aws-ecs';
import { Grant, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { containerNameOf, type ContainerTask } from '../../functions/workflows/registry.js';
import type { ContainerCluster } from './container-cluster.js';
import { grantBucketAccess, grantTableAccess } from './data-grants.js';
import type { ServiceTable } from './service-table.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

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
 * One container task of the workflow table as a Fargate task definition: arm64, the image of
 * layers/ffmpeg/Dockerfile with the task's entrypoint bundled in (built from the repository root,
 * which .dockerignore narrows to what the image needs), its own log group, and a task role that
 * holds the table and bucket access of its entry, as a task function's role does.
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
      runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    const containerName = containerNameOf(task);
    this.container = this.taskDefinition.addContainer(containerName, {
      containerName,
      image: ContainerImage.fromAsset(repoRoot, {
        file: 'layers/ffmpeg/Dockerfile',
        platform: Platform.LINUX_ARM64,
        buildArgs: { ENTRYPOINT: task.entrypoint },
      }),
      environment: {
        ...props.environment,
        // Lambda sets it for the functions; the SDK clients and config() read it.
        AWS_REGION: Stack.of(this).region,
        TABLE_NAME: props.table.tableName,
        MEDIA_BUCKET: props.bucket.bucketName,
      },
      logging: LogDrivers.awsLogs({ logGroup: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }), streamPrefix: containerName }),
      // The task writes nothing to disk: ffmpeg streams the source and its outputs through pipes.
      readonlyRootFilesystem: true,
    });

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
