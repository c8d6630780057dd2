import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Size, Stack, Validations } from 'aws-cdk-lib';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing, type FunctionOptions, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { DataAccess } from '../../functions/routes.js';
import { grantBucketAccess, grantTableAccess } from './data-grants.js';
import { FfmpegLayer } from './ffmpeg-layer.js';
import { YtDlpLayer } from './yt-dlp-layer.js';
import { LAMBDA_DEFAULT_TMP_MIB, LAMBDA_WORD_VECTORS_DIR, type LambdaContract } from '../../functions/runtime/contracts.js';
import { tableDir, WORD_VECTOR_FILES } from '../../functions/adapters/meaning/word-vectors.js';
import { markUnit } from './unit-metadata.js';
import { reservedConcurrencyContext } from '../deployment-context.js';
import type { ServiceTable } from './service-table.js';

const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The local analyzer's word table (functions/adapters/meaning/word-vectors.ts) copied into the
 * bundle of a function that runs it, at LAMBDA_WORD_VECTORS_DIR, since a bundle has no
 * node_modules: built first, once per machine, from the installed package (offline; the
 * `build:word-vectors` script), when the function is bundled.
 */
function wordTableHooks(): ICommandHooks {
  const folder = basename(LAMBDA_WORD_VECTORS_DIR);
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_input, output) => [
      `cd "${repoRoot}"`,
      `"${process.execPath}" --import tsx functions/adapters/meaning/build-word-vectors.ts`,
      `mkdir -p "${join(output, folder)}"`,
      ...Object.values(WORD_VECTOR_FILES).map((file) => `cp "${join(tableDir(), file)}" "${join(output, folder, file)}"`),
    ],
  };
}

interface ServiceFunctionProps {
  /**
   * The unit's run-time contract (functions/runtime/contracts.ts): its runtime and entry module
   * (which exports or defines `handler`), memory, timeout, /tmp size, concurrency reserve (sized by
   * context) and its layers (with ffmpeg's it runs on x86_64, the pinned build's architecture, with
   * FFMPEG_PATH and FFPROBE_PATH pointing at it).
   */
  readonly contract: LambdaContract;
  readonly description?: string;
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The role to run with, when functions with identical grants share one (RouteRoles). Its grants
   * are then every sharer's, so share it only among functions bound to the same things. @default a role of its own
   */
  readonly role?: Role;
}

/**
 * The one log group every function of the stack logs to. Lambda names each stream after its
 * function (`YYYY/MM/DD/<function>[<version>]<instance>`) and Powertools puts `function_name` on
 * every line, so one group loses nothing, and saves a resource per function under CloudFormation's
 * 500-resource limit of a stack.
 */
export function functionLogs(scope: Construct): LogGroup {
  const stack = Stack.of(scope);
  return (stack.node.tryFindChild('FunctionLogs') as LogGroup | undefined) ?? new LogGroup(stack, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
}

/**
 * A Lambda function with the service's defaults: the stack's function log group and a role (its own,
 * or one shared with functions of identical grants) that holds nothing but what the bind methods grant. Node functions run nodejs24.x on arm64 (x86_64 when
 * they carry the ffmpeg layer) from an ESM bundle built by the locally installed esbuild; the one
 * Python function (the provider resolver) runs its handler's directory as it is, with the yt-dlp layer.
 */
export class ServiceFunction extends Construct {
  public readonly fn: LambdaFunction;
  /** Where the grants land, and so where cdk-nag's acknowledgements of them go. */
  public readonly role: Role;

  public constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    const logGroup = functionLogs(this);

    // Our own role instead of the default one, whose AWSLambdaBasicExecutionRole managed policy
    // may write to any log group in the account (cdk-nag IAM4): this one writes only to the service's.
    const role = props.role ?? new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.role = role;
    logGroup.grantWrite(role);

    const { contract } = props;
    const scratch = contract.writable.find((path) => path.path === '/tmp');
    const layers = [...(contract.ffmpegLayer ? [FfmpegLayer.of(this).layer] : []), ...(contract.ytDlpLayer ? [YtDlpLayer.of(this).layer] : [])];
    const options: FunctionOptions = {
      description: props.description ?? contract.module,
      architecture: contract.architecture === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64,
      ...(layers.length ? { layers } : {}),
      memorySize: contract.memoryMb,
      timeout: Duration.seconds(contract.timeoutSeconds),
      ...(scratch && scratch.sizeMiB !== LAMBDA_DEFAULT_TMP_MIB ? { ephemeralStorageSize: Size.mebibytes(scratch.sizeMiB) } : {}),
      ...(contract.concurrencyReserve ? { reservedConcurrentExecutions: reservedConcurrencyContext(this.node, contract.concurrencyReserve) } : {}),
      role,
      logGroup,
      // Active X-Ray tracing (Powertools Tracer); CDK grants the role xray:PutTraceSegments/PutTelemetryRecords.
      tracing: Tracing.ACTIVE,
      environment: { ...props.environment, ...contract.environment },
    };
    this.fn = contract.runtime === 'python3.12' ? pythonFunction(this, contract, options) : this.nodeFunction(contract, options);
    markUnit(this.fn, contract);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only the X-Ray actions active tracing adds (PutTraceSegments, PutTelemetryRecords), which support no resource-level permissions.',
    });
  }

  private nodeFunction(contract: LambdaContract, options: FunctionOptions): NodejsFunction {
    return new NodejsFunction(this, 'Function', {
      ...options,
      entry: `${functionsDir}${contract.module}.ts`,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
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
        ...(contract.wordVectors ? { commandHooks: wordTableHooks() } : {}),
      },
    });
  }

  /** Grants the table access a route needs and tells the function the table's name. */
  public bindTable(table: ServiceTable, access: DataAccess): void {
    grantTableAccess(this.role, this.fn, table, access);
    this.fn.addEnvironment('TABLE_NAME', table.tableName);
  }

  /** Grants object access in the media bucket (see grantBucketAccess) and tells the function the bucket's name. */
  public bindBucket(bucket: Bucket, access: DataAccess): void {
    grantBucketAccess(this.role, this.fn, bucket, access);
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

  /**
   * Grants lambda:InvokeFunction on the provider-resolver function and tells the function its name.
   * On the function's own ARN only (grantInvoke adds `:*`, every version and alias): it is invoked unqualified.
   */
  public bindProviderResolver(resolver: IFunction): void {
    Grant.addToPrincipal({ grantee: this.fn, actions: ['lambda:InvokeFunction'], resourceArns: [resolver.functionArn] });
    this.fn.addEnvironment('PROVIDER_RESOLVER_FUNCTION', resolver.functionName);
  }

  /** Grants read access to the cursor HMAC key and tells the function where to find it. */
  public bindCursorSecret(secret: ISecret): void {
    secret.grantRead(this.fn);
    this.fn.addEnvironment('CURSOR_SECRET_ARN', secret.secretArn);
  }
}

/**
 * A Python function: its handler's directory as the code (no build step), `<file>.handler` as the
 * handler. Python 3.12, the version the pinned yt-dlp (2023.03.04) was run with here; later
 * runtimes drop standard modules that yt-dlp release predates.
 */
function pythonFunction(scope: Construct, contract: LambdaContract, options: FunctionOptions): LambdaFunction {
  const fn = new LambdaFunction(scope, 'Function', {
    ...options,
    runtime: Runtime.PYTHON_3_12,
    code: Code.fromAsset(dirname(`${functionsDir}${contract.module}.py`), { exclude: ['__pycache__'] }),
    handler: `${basename(contract.module)}.handler`,
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Python 3.12 on purpose: the layer pins Debian bookworm yt-dlp 2023.03.04, which was run on 3.12; later runtimes remove standard modules that release predates.',
  });
  return fn;
}
