import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { DataAccess } from '../../functions/routes.js';
import { grantBucketAccess, grantTableAccess } from './data-grants.js';
import { ffmpegArchitecture, ffmpegPaths, FfmpegLayer } from './ffmpeg-layer.js';
import type { ServiceTable } from './service-table.js';

const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));

export interface ServiceFunctionProps {
  /** Entry module under functions/ without extension, e.g. `api/scanners/create`; it exports `handler`. */
  readonly handler: string;
  readonly description?: string;
  /** @default 29 seconds: just under the HTTP API integration limit of 30 seconds. */
  readonly timeout?: Duration;
  /** @default 512 MiB */
  readonly memorySize?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The function runs ffmpeg or ffprobe: it carries the stack's ffmpeg layer (layers/ffmpeg), with
   * FFMPEG_PATH and FFPROBE_PATH pointing at its binaries, and runs on x86_64, the pinned build's
   * architecture. @default false: no layer, arm64
   */
  readonly ffmpeg?: boolean;
  /**
   * Concurrency kept for this function alone, out of the AWS account's regional pool: others can
   * neither take it nor be throttled by its floods beyond it. @default none: the shared pool
   */
  readonly reservedConcurrency?: number;
}

/**
 * The one log group every function of the stack logs to. Lambda names each stream after its
 * function (`YYYY/MM/DD/<function>[<version>]<instance>`) and Powertools puts `function_name` on
 * every line, so one group loses nothing, and saves a resource per function under CloudFormation's
 * 500-resource limit of a stack.
 */
function functionLogs(scope: Construct): LogGroup {
  const stack = Stack.of(scope);
  return (stack.node.tryFindChild('FunctionLogs') as LogGroup | undefined) ?? new LogGroup(stack, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
}

/**
 * A Node.js Lambda function with the service's defaults: nodejs24.x on arm64 (x86_64 when it carries
 * the ffmpeg layer), an ESM bundle built by the locally installed esbuild, the stack's function log group and a
 * role that holds nothing but what the bind methods grant.
 */
export class ServiceFunction extends Construct {
  public readonly fn: NodejsFunction;

  public constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    const logGroup = functionLogs(this);

    // Our own role instead of the default one, whose AWSLambdaBasicExecutionRole managed policy
    // may write to any log group in the account (cdk-nag IAM4): this one writes only to the service's.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    this.fn = new NodejsFunction(this, 'Function', {
      entry: `${functionsDir}${props.handler}.ts`,
      handler: 'handler',
      description: props.description ?? props.handler,
      runtime: Runtime.NODEJS_24_X,
      architecture: props.ffmpeg ? ffmpegArchitecture : Architecture.ARM_64,
      ...(props.ffmpeg ? { layers: [FfmpegLayer.of(this).layer] } : {}),
      memorySize: props.memorySize ?? 512,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      timeout: props.timeout ?? Duration.seconds(29),
      role,
      logGroup,
      // Active X-Ray tracing (Powertools Tracer); CDK grants the role xray:PutTraceSegments/PutTelemetryRecords.
      tracing: Tracing.ACTIVE,
      environment: { ...props.environment, ...(props.ffmpeg ? ffmpegPaths : {}) },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        // No source maps: loading one costs every cold start (--enable-source-maps), and kept
        // names already make stack traces readable.
        sourceMap: false,
        // Minified class names would garble the error names we log and map to responses.
        keepNames: true,
        mainFields: ['module', 'main'],
        // The runtime's own AWS SDK v3 (nodejs24.x ships it): bundling it would put ~300 KB of
        // SDK into every function. Entry modules import SDK clients only where they call them.
        bundleAwsSDK: false,
        // Some CommonJS dependencies call require() at run time, which ESM does not define.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only the X-Ray actions active tracing adds (PutTraceSegments, PutTelemetryRecords), which support no resource-level permissions.',
    });
  }

  /** Grants the table access a route needs and tells the function the table's name. */
  public bindTable(table: ServiceTable, access: DataAccess): void {
    grantTableAccess(this, this.fn, table, access);
    this.fn.addEnvironment('TABLE_NAME', table.tableName);
  }

  /** Grants object access in the media bucket (see grantBucketAccess) and tells the function the bucket's name. */
  public bindBucket(bucket: Bucket, access: DataAccess): void {
    grantBucketAccess(this, this.fn, bucket, access);
    this.fn.addEnvironment('MEDIA_BUCKET', bucket.bucketName);
  }

  /** Grants events:PutEvents on the service's event bus (and no other) and tells the function its name. */
  public bindEventBus(bus: IEventBus): void {
    bus.grantPutEventsTo(this.fn);
    this.fn.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
  }

  /** Grants states:StartExecution on one state machine and passes its ARN in `environmentVariable`. */
  public bindStateMachine(stateMachine: IStateMachine, environmentVariable: string): void {
    stateMachine.grantStartExecution(this.fn);
    this.fn.addEnvironment(environmentVariable, stateMachine.stateMachineArn);
  }

  /** Lets the function wake executions of these state machines that wait on a task token. */
  public bindTaskCallbacks(stateMachineArns: string[]): void {
    Grant.addToPrincipal({ grantee: this.fn, actions: ['states:SendTaskSuccess'], resourceArns: stateMachineArns });
  }

  /** Grants read access to the cursor HMAC key and tells the function where to find it. */
  public bindCursorSecret(secret: ISecret): void {
    secret.grantRead(this.fn);
    this.fn.addEnvironment('CURSOR_SECRET_ARN', secret.secretArn);
  }
}
