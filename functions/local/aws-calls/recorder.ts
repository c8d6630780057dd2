/**
 * The local host's AWS call recorder: while it is on (`AWS_CALL_LOG=<file>`, read by the local
 * host), every AWS call made on behalf of a deployed unit (a route's function, the authorizer, a
 * workflow task, a container task) is appended to `<file>` as one JSON line, once per distinct
 * {unit, action, resource, call}: the IAM action and the resource ARN (canonical, vocabulary.ts)
 * it needs on AWS. SDK calls are seen by a middleware on every client the service builds
 * (presigned URLs included: the presigner runs the client's middleware); the calls the local host
 * answers in-process (starting a workflow, waking a task token, publishing an event, reading the
 * cursor key) are reported by those stand-ins. test/helpers/iam-policy.ts checks the file against
 * the roles of the synthesized template.
 *
 * Which unit is calling is the unit context (../unit-context.ts): where the local host dispatches,
 * or, in a unit's child process, the unit it was started for. Lambda entry modules never import this module; they
 * reach it only through functions/adapters/aws-call-hooks.ts, which costs a property read when off.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installAwsCallHooks, type StandInCall } from '../../adapters/aws-call-hooks.js';
import { workflows } from '../../workflows/registry.js';
import { iamRequestsOf, TASK_TOKEN_STATE_MACHINE, type IamRequest, type SdkCall } from './iam-mapping.js';
import { arns, ResourceNames, symbol } from './vocabulary.js';
import { units } from '../../runtime/contracts.js';
import { currentUnit, setProcessUnit } from '../unit-context.js';
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
  const line: RecordedCall = { unit: currentUnit(), action: request.action, resource: request.resource, call, via, ...(request.context ? { context: request.context } : {}) };
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
    requests = [{ action: callName(call), resource: `<mapping failed: ${(error as Error).message}>` }];
  }
  for (const request of requests) write(request, callName(call), via);
}

/** A call the local host answers in-process, described as the SDK call AWS would get. */
export const recordStandIn = (call: StandInCall): void => record(call, 'stand-in');

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

/** The part of an SDK v3 client the middleware goes on. */
interface SdkClient {
  readonly middlewareStack: {
    add(
      middleware: (next: (args: { input: unknown }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => (args: { input: unknown }) => Promise<unknown>,
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
      record({ clientName: context.clientName ?? 'UnknownClient', commandName: context.commandName ?? 'UnknownCommand', input: (args.input ?? {}) as Record<string, unknown> }, 'sdk');
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
    await build({ entryPoints: [join(import.meta.dirname, 'child-preload.ts')], bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node24', outfile, logLevel: 'silent' });
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
