/**
 * The local host's AWS call recorder: while it is on (`AWS_CALL_LOG=<file>`, read by the local
 * host), every AWS call made on behalf of a deployed unit (a route's function, the authorizer, a
 * workflow task, a container task) is appended to `<file>` as one JSON line, once per distinct
 * {unit, action, resource, call}: the IAM action and the resource ARN (canonical, vocabulary.ts)
 * it needs on AWS. SDK calls are seen by a middleware on every client the service builds
 * (presigned URLs included: the presigner runs the client's middleware); the calls the local host
 * answers in-process (starting a workflow, waking a task token, publishing an event, reading the
 * cursor key) are reported by those stand-ins. What AWS services do with the roles they assume
 * (vocabulary.ts `principals`) is recorded where the local host does the same thing: the workflow
 * runner invoking a task or running a container task (a state machine's role; a task's execution
 * role), the delivery scheduler waking a delivery (EventBridge Scheduler's role). Each is described
 * as the SDK call AWS makes and goes through the same IAM mapping. test/helpers/iam-policy.ts
 * checks the file against the roles of the synthesized template.
 *
 * Which unit is calling is the unit context (../unit-context.ts): where the local host dispatches,
 * or, in a unit's child process, the unit it was started for. Lambda entry modules never import this module; they
 * reach it only through functions/adapters/aws-call-hooks.ts, which costs a property read when off.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { installAwsCallHooks, type StandInCall } from '../../adapters/aws-call-hooks.js';
import { awsDeliveryScheduler, type AwsSchedulerSettings } from '../../adapters/webhooks/aws-scheduler.js';
import { workflows } from '../../workflows/registry.js';
import { iamRequestsOf, TASK_TOKEN_STATE_MACHINE, UNMAPPED, type IamRequest, type SdkCall } from './iam-mapping.js';
import { arns, CONTAINER_CLUSTER, CONTAINER_IMAGE_REPOSITORY, principals, ResourceNames, symbol, unitSymbols } from './vocabulary.js';
import { containerContractOf, units } from '../../runtime/contracts.js';
import { currentUnit, inUnit, setProcessUnit } from '../unit-context.js';
import { bundleDir } from '../bundles.js';

/** One line of the recording. */
export interface RecordedCall {
  readonly unit: string;
  readonly action: string;
  readonly resource: string;
  /** The API call that needed it: `S3.ListParts`, `SecretsManager.GetSecretValue`. */
  readonly call: string;
  /** `sdk`: an SDK client call or presigned URL; `stand-in`: answered in-process by the local host. */
  readonly via: 'sdk' | 'stand-in';
  readonly context?: Readonly<Record<string, string>>;
}

interface Recording {
  readonly file: string;
  readonly names: ResourceNames;
  readonly seen: Set<string>;
}

let recording: Recording | undefined;

function write(request: IamRequest, call: string, via: RecordedCall['via']): void {
  if (!recording) return;
  const line: RecordedCall = {
    unit: currentUnit(),
    action: request.action,
    resource: request.resource,
    call,
    via,
    ...(request.context ? { context: request.context } : {}),
  };
  const key = JSON.stringify(line);
  if (recording.seen.has(key)) return;
  recording.seen.add(key);
  // Synchronous and append-only: lines of the host, its child hosts and container tasks never interleave.
  appendFileSync(recording.file, `${key}\n`);
}

const callName = (call: SdkCall): string => `${call.clientName.replace(/Client$/, '')}.${call.commandName.replace(/Command$/, '')}`;

function record(call: SdkCall, via: RecordedCall['via']): void {
  if (!recording) return;
  let requests: IamRequest[];
  try {
    requests = iamRequestsOf(call, recording.names);
  } catch (error) {
    requests = [{ action: callName(call), resource: `${UNMAPPED} (the mapping failed: ${(error as Error).message})` }];
  }
  for (const request of requests) write(request, callName(call), via);
}

/** A call the local host answers in-process, described as the SDK call AWS would get. */
const recordStandIn = (call: StandInCall): void => record(call, 'stand-in');

/**
 * The local workflow runner's stand-ins for Step Functions: starting an execution of `workflow`,
 * and waking a task of it (SendTaskSuccess is authorised on the state machine the token belongs to).
 */
export function recordWorkflowCall(operation: 'StartExecution' | 'SendTaskSuccess', workflow: string | undefined): void {
  if (!recording) return;
  const resource = workflow ? arns.stateMachine(symbol(workflow)) : TASK_TOKEN_STATE_MACHINE;
  write({ action: `states:${operation}`, resource }, `SFN.${operation}`, 'stand-in');
}

/** The cursor key the local host keeps in its data directory: on AWS, GetSecretValue on the cursor secret by the unit that reads it. */
export function recordCursorSecretRead(): void {
  if (!recording) return;
  write({ action: 'secretsmanager:GetSecretValue', resource: arns.secret(symbol('CursorSecret')) }, 'SecretsManager.GetSecretValue', 'stand-in');
}

/** Calls AWS makes as `principal`, the role a service assumes, each described as the SDK call it is. */
function recordAs(principal: string, calls: readonly StandInCall[]): void {
  if (recording) inUnit(principal, () => calls.forEach(recordStandIn));
}

/** A Task state's function, invoked as its state machine invokes it on AWS: with the state machine's role. */
export function invokedBy<A extends unknown[], R>(workflow: string, placeholder: string, handler: (...args: A) => R): (...args: A) => R {
  const invoke: StandInCall = {
    clientName: 'LambdaClient',
    commandName: 'InvokeCommand',
    input: { FunctionName: unitSymbols.runner(units.task(workflow, placeholder)) },
  };
  return (...args) => {
    recordAs(principals.stateMachine(workflow), [invoke]);
    return handler(...args);
  };
}

/** The rule Step Functions keeps, with the state machine's role, to learn that a `.sync` task stopped. */
const STEP_FUNCTIONS_ECS_RULE = 'StepFunctionsGetEventsForECSTaskRule';
/** ECS gives a task its id; one symbol stands for all the local host's. */
const ECS_TASK_ID = '<TaskId>';

/**
 * A container task, run as an `ecs:runTask.sync` state runs it on AWS: the state machine's role
 * runs the task definition's family, passes the task its two roles, and keeps the managed rule
 * through which it learns the task stopped; the task's execution role pulls the image and writes
 * the container's log stream (awslogs: `<prefix>/<container>/<task id>`); once the task stopped,
 * the state machine describes it.
 */
export function runBy<P, R>(workflow: string, containerUnit: string, run: (parameters: P) => Promise<R>): (parameters: P) => Promise<R> {
  const stateMachine = principals.stateMachine(workflow);
  const call = (clientName: string, commandName: string, input: Record<string, unknown>): StandInCall => ({ clientName, commandName, input });
  const family = unitSymbols.runner(containerUnit);
  return async (parameters) => {
    if (recording) {
      recordAs(stateMachine, [
        call('ECSClient', 'RunTaskCommand', { cluster: CONTAINER_CLUSTER, taskDefinition: family, launchType: 'FARGATE' }),
        call('EventBridgeClient', 'PutRuleCommand', { Name: STEP_FUNCTIONS_ECS_RULE }),
        call('EventBridgeClient', 'PutTargetsCommand', { Rule: STEP_FUNCTIONS_ECS_RULE }),
        call('EventBridgeClient', 'DescribeRuleCommand', { Name: STEP_FUNCTIONS_ECS_RULE }),
      ]);
      // RunTask passes the roles the task definition names, which its input does not show.
      inUnit(stateMachine, () => {
        for (const role of [unitSymbols.taskRole(containerUnit), unitSymbols.executionRole(containerUnit)]) {
          write(
            { action: 'iam:PassRole', resource: arns.role(role), context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
            'ECS.RunTask',
            'stand-in',
          );
        }
      });
      const { containerName } = containerContractOf(containerUnit);
      const logStream = { logGroupName: unitSymbols.logGroup(containerUnit), logStreamName: `${containerName}/${containerName}/${ECS_TASK_ID}` };
      recordAs(principals.ecsExecution(containerUnit), [
        call('ECRClient', 'GetAuthorizationTokenCommand', {}),
        call('ECRClient', 'BatchGetImageCommand', { repositoryName: CONTAINER_IMAGE_REPOSITORY }),
        call('ECRClient', 'GetDownloadUrlForLayerCommand', { repositoryName: CONTAINER_IMAGE_REPOSITORY }),
        call('CloudWatchLogsClient', 'CreateLogStreamCommand', logStream),
        call('CloudWatchLogsClient', 'PutLogEventsCommand', logStream),
      ]);
    }
    try {
      return await run(parameters);
    } finally {
      recordAs(stateMachine, [call('ECSClient', 'DescribeTasksCommand', { cluster: CONTAINER_CLUSTER, tasks: [ECS_TASK_ID] })]);
    }
  };
}

/** The delivery queue, scheduler role and schedule group, by the variables that name them on AWS (the local host sets none). */
const deliverySettings: AwsSchedulerSettings = {
  queueUrl: '${WEBHOOK_QUEUE_URL}',
  queueArn: '${WEBHOOK_QUEUE_ARN}',
  schedulerRoleArn: '${WEBHOOK_SCHEDULER_ROLE_ARN}',
  scheduleGroup: '${WEBHOOK_SCHEDULE_GROUP}',
};

/**
 * Arming a delivery's wake-up `delayMs` ahead (as AWS would wait: before the local host's
 * compression), as the calling unit: the AWS adapter itself (aws-scheduler.ts) asks clients that
 * only record what they are sent, an SQS message or an EventBridge Scheduler schedule. Resolves
 * to whether it made a schedule, whose wake-up Scheduler later sends (recordScheduledWakeUp).
 */
export async function recordDeliveryWakeUp(accountId: string, deliveryId: string, delayMs: number): Promise<boolean> {
  if (!recording) return false;
  let scheduled = false;
  const recordingClient = <T>(clientName: string): Promise<T> =>
    Promise.resolve({
      send: (command: { input: Record<string, unknown> }) => {
        scheduled ||= clientName === 'SchedulerClient';
        recordStandIn({ clientName, commandName: command.constructor.name, input: command.input });
        return Promise.resolve({});
      },
    } as unknown as T);
  const now = new Date();
  const scheduler = awsDeliveryScheduler(
    { sqs: () => recordingClient<SQSClient>('SQSClient'), scheduler: () => recordingClient<SchedulerClient>('SchedulerClient') },
    deliverySettings,
    () => now,
  );
  await scheduler.schedule(accountId, deliveryId, new Date(now.getTime() + delayMs));
  return scheduled;
}

/** A schedule's wake-up falling due: EventBridge Scheduler sends it to the delivery queue with its role. */
export function recordScheduledWakeUp(): void {
  recordAs(principals.scheduler, [{ clientName: 'SQSClient', commandName: 'SendMessageCommand', input: { QueueUrl: deliverySettings.queueUrl } }]);
}

/** The part of an SDK v3 client the middleware goes on. */
interface SdkClient {
  readonly middlewareStack: {
    add(
      middleware: (
        next: (args: { input: unknown }) => Promise<unknown>,
        context: { clientName?: string; commandName?: string },
      ) => (args: { input: unknown }) => Promise<unknown>,
      options: { step: 'initialize'; name: string },
    ): void;
  };
}

const instrumented = new WeakSet<object>();

function instrument(client: object): void {
  if (instrumented.has(client) || !('middlewareStack' in client)) return;
  instrumented.add(client);
  (client as SdkClient).middlewareStack.add(
    (next, context) => (args) => {
      record(
        {
          clientName: context.clientName ?? 'UnknownClient',
          commandName: context.commandName ?? 'UnknownCommand',
          input: (args.input ?? {}) as Record<string, unknown>,
        },
        'sdk',
      );
      return next(args);
    },
    { step: 'initialize', name: 'recordAwsCalls' },
  );
}

/**
 * Turns recording on for this process: calls go to `file` (nothing happens when it is undefined).
 * The service's resources are recognised by the configuration in `process.env` now, so call this
 * once the host has set it. `unit`: the unit of calls outside any dispatch context.
 */
export function startCallRecording(file: string | undefined, unit: string = units.host): void {
  if (!file || recording) return;
  mkdirSync(dirname(file), { recursive: true });
  setProcessUnit(unit);
  recording = { file, names: new ResourceNames(process.env, Object.keys(workflows)), seen: new Set() };
  installAwsCallHooks({ client: instrument, standIn: recordStandIn });
}

let preload: Promise<string> | undefined;

/**
 * child-preload.ts bundled once per host process (as container-tasks.ts bundles the entrypoints),
 * so that a container task's plain `node` child can `--import` it; removed when the process exits.
 */
function preloadBundle(): Promise<string> {
  preload ??= (async () => {
    // Loaded here only: the child processes that import this module never bundle.
    const { build } = await import('esbuild');
    const outfile = join(bundleDir, `aws-call-recorder-${process.pid}.mjs`);
    await build({
      entryPoints: [join(import.meta.dirname, 'child-preload.ts')],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node24',
      outfile,
      logLevel: 'silent',
    });
    process.once('exit', () => rmSync(outfile, { force: true }));
    return outfile;
  })();
  preload.catch(() => (preload = undefined));
  return preload;
}

/**
 * What a container task's child process needs to record its calls as `unit`: Node options and
 * environment to add. Nothing while this process is not recording.
 */
export async function childProcessRecording(unit: string): Promise<{ execArgv: string[]; env: Record<string, string> }> {
  if (!recording) return { execArgv: [], env: {} };
  const bundle = await preloadBundle();
  return { execArgv: ['--import', pathToFileURL(bundle).href], env: { AWS_CALL_LOG: recording.file, AWS_CALL_UNIT: unit } };
}
