import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import type { TaskTokenCallbacks, WorkflowStarter } from '../domain/runs/ports.js';
import type { RenderWorkflowStarter } from '../domain/renders/model.js';
import { workflows, type WorkflowDefinition, type WorkflowName } from '../workflows/registry.js';
import { LocalContainerTasks, RUN_CONTAINER_TASK } from './container-tasks.js';
import type { HostChildren } from './host-processes.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { taskInChild } from './task-children.js';
import { UnitProcesses } from './unit-processes.js';
import { invokedBy, recordWorkflowCall, runBy } from './aws-calls/recorder.js';
import { asUnit } from './unit-context.js';
import { units } from '../runtime/contracts.js';

type TaskHandler = (input: unknown) => Promise<unknown>;
/** Runs a task state's work (`run`); it may do something before or after it (a test hook). */
export type TaskWrapper = (workflow: WorkflowName, stateName: string, run: () => Promise<unknown>) => Promise<unknown>;
type JsonValue = Parameters<StateMachine['run']>[0];
type ExecutionEvents = ReturnType<StateMachine['run']>['eventLogs'];
interface AslState {
  Type: string;
  Resource?: string;
  Parameters?: { FunctionName?: string; TaskDefinition?: string };
  ItemProcessor?: { States: Record<string, AslState> };
  Iterator?: { States: Record<string, AslState> };
  Branches?: { States: Record<string, AslState> }[];
}

const repoRoot = join(import.meta.dirname, '..', '..');
const functionsDir = join(repoRoot, 'functions');

const WAIT_FOR_TASK_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

interface BoundTask {
  stateName: string;
  placeholder: string;
  /** `.waitForTaskToken`: the handler gets Parameters.Payload and the state waits for its token. */
  waitsForToken: boolean;
  /** `ecs:runTask.sync`: the placeholder is its TaskDefinition, a container task run as a child process. */
  runsContainer: boolean;
}

/** Every Task state, nested ones included, with the placeholder of the function it invokes. */
function taskStates(states: Record<string, AslState>): BoundTask[] {
  return Object.entries(states).flatMap(([stateName, state]) => {
    const nested = [state.ItemProcessor?.States, state.Iterator?.States, ...(state.Branches ?? []).map((b) => b.States)]
      .filter((s) => s !== undefined)
      .flatMap(taskStates);
    const waitsForToken = state.Resource === WAIT_FOR_TASK_TOKEN;
    const runsContainer = state.Resource === RUN_CONTAINER_TASK;
    const boundArn = waitsForToken ? state.Parameters?.FunctionName : runsContainer ? state.Parameters?.TaskDefinition : state.Resource;
    const placeholder = state.Type === 'Task' ? /^arn:aws:lambda:[^:]+:\d+:function:(\w+)$/.exec(boundArn ?? '')?.[1] : undefined;
    return placeholder ? [{ stateName, placeholder, waitsForToken, runsContainer }, ...nested] : nested;
  });
}

/**
 * Runs the same ASL files as Step Functions, in-process with aws-local-stepfunctions: each Task
 * state is bound to the handler the workflow table names for its placeholder, the very module
 * CDK deploys as that task's Lambda (in-process, or in a sandboxed process of its own when it
 * starts binaries), and each container task state to the same entrypoint the Fargate image runs,
 * as a child process.
 */
export class LocalWorkflows implements WorkflowStarter, RenderWorkflowStarter, TaskTokenCallbacks {
  private readonly running = new Map<string, { abort: () => void; done: Promise<unknown> }>();
  private readonly waiting = new Map<string, (output: unknown) => void>();
  private readonly processes: UnitProcesses;
  private readonly containers: LocalContainerTasks;
  private readonly machines = new Map<WorkflowName, Promise<{ machine: StateMachine; handlers: Record<string, TaskHandler> }>>();
  /** Billable state transitions per execution name (see countTransitions). */
  private readonly transitions = new Map<string, number>();
  /** Seconds spent in each state (from entered to exited or failed, over every Map iteration) per execution name. */
  private readonly stateSeconds = new Map<string, Map<string, number>>();

  /**
   * hostChildren: where the host records the container tasks it runs as child processes.
   * aroundTask: runs around every task state (the local host's crash hooks, crash-hooks.ts).
   * sandbox: where container tasks, and the tasks whose contract ships binaries, run (unconfined without one).
   */
  constructor(
    hostChildren?: HostChildren,
    private readonly aroundTask?: TaskWrapper,
    private readonly sandbox?: Sandbox,
  ) {
    this.processes = new UnitProcesses(sandbox, hostChildren);
    this.containers = new LocalContainerTasks(this.processes);
  }

  private load(name: WorkflowName) {
    let loaded = this.machines.get(name);
    if (!loaded) {
      loaded = (async () => {
        const workflow = workflows[name];
        // As CDK's DefinitionSubstitutions do on AWS: every ${Placeholder} becomes an ARN (here a
        // local function ARN, also for container tasks and their network; the task overrides below
        // run the handlers and child processes instead of calling AWS).
        const asl = (await readFile(join(repoRoot, workflow.definitionFile), 'utf8')).replace(
          /\$\{(\w+)\}/g,
          (_, placeholder: string) => `arn:aws:lambda:us-east-1:000000000000:function:${placeholder}`,
        );
        const definition = JSON.parse(asl) as { States: Record<string, AslState> };
        const tasks: Record<string, { handler: string }> = workflow.tasks;
        const { containerTasks = {} }: WorkflowDefinition = workflow;
        const handlers: Record<string, TaskHandler> = {};
        for (const { stateName, placeholder, waitsForToken, runsContainer } of taskStates(definition.States)) {
          if (runsContainer) {
            const containerTask = containerTasks[placeholder];
            if (!containerTask) throw new Error(`${workflow.definitionFile}: no container task in the workflow table for \${${placeholder}}`);
            const unit = units.container(name, placeholder);
            handlers[stateName] = runBy(name, unit, this.containers.handler(containerTask, unit));
            continue;
          }
          const task = tasks[placeholder];
          if (!task) throw new Error(`${workflow.definitionFile}: no task in the workflow table for \${${placeholder}}`);
          const unit = units.task(name, placeholder);
          // A task that starts binaries (its contract ships them) runs in its own sandboxed process.
          const handler = invokedBy(
            name,
            placeholder,
            this.sandbox && Object.keys(this.sandbox.contractOf(unit).binaries).length
              ? taskInChild(this.processes, unit, task.handler)
              : asUnit(unit, ((await import(pathToFileURL(join(functionsDir, `${task.handler}.ts`)).href)) as { handler: TaskHandler }).handler),
          );
          handlers[stateName] = waitsForToken ? this.waitingForToken(name, handler) : handler;
        }
        const around = this.aroundTask;
        if (around) for (const [stateName, handler] of Object.entries(handlers)) handlers[stateName] = (input) => around(name, stateName, () => handler(input));
        // Built once, run many times (construction is the slow part).
        const machine = new StateMachine(definition as ConstructorParameters<typeof StateMachine>[0]);
        return { machine, handlers };
      })();
      this.machines.set(name, loaded);
    }
    return loaded;
  }

  /**
   * There is no SendTaskSuccess here: a waiting state is a promise, registered under a token of
   * its own (the interpreter's `$$.Task.Token` is one per execution, and Map iterations wait side
   * by side) before the handler runs, since the handler may wake it at once; `succeed` resolves it.
   */
  private waitingForToken(workflow: WorkflowName, handler: TaskHandler): TaskHandler {
    return async (input) => {
      const { Payload } = input as { Payload: Record<string, unknown> };
      // It names its workflow: SendTaskSuccess is authorised on the state machine (recordWorkflowCall).
      const taskToken = `local-task-token-${workflow}-${randomUUID()}`;
      const woken = new Promise((resolve) => this.waiting.set(taskToken, resolve));
      await handler({ ...Payload, taskToken });
      return woken;
    };
  }

  succeed(taskToken: string, output: Record<string, unknown>): Promise<void> {
    recordWorkflowCall('SendTaskSuccess', /^local-task-token-(\w+)-/.exec(taskToken)?.[1]);
    // A token of an execution that has ended (or of a previous process) wakes nothing, as on AWS.
    this.waiting.get(taskToken)?.(output);
    this.waiting.delete(taskToken);
    return Promise.resolve();
  }

  /**
   * Starts an execution in the background; its outcome is recorded by its own states. As on Step
   * Functions, executions are named and a name already running is not started twice.
   */
  async start(name: WorkflowName, executionName: string, input: JsonValue): Promise<void> {
    recordWorkflowCall('StartExecution', name);
    if (this.running.has(executionName)) return;
    const { machine, handlers } = await this.load(name);
    if (this.running.has(executionName)) return;
    const execution = machine.run(input, {
      overrides: { taskResourceLocalHandlers: handlers as Record<string, (input: JsonValue) => Promise<JsonValue>> },
      noThrowOnAbort: true,
      // Read by waiting states' Parameters; each wait gets a token of its own (waitingForToken).
      context: { Task: { Token: 'local-task-token' } },
    });
    // Settled once its last event is counted too, so counts read after settle() are final.
    const counted = this.countTransitions(executionName, execution.eventLogs);
    const entry = { abort: execution.abort, done: Promise.all([execution.result.catch(() => undefined), counted]) };
    this.running.set(executionName, entry);
    void entry.done.finally(() => this.running.delete(executionName));
  }

  /**
   * Step Functions bills a Standard workflow per state transition: each state entered, in Map
   * iterations too, and each retry of a state. So the count is the interpreter's StateEntered
   * events plus its StateRetried events (the execution's start and end, and Map iterations as
   * such, are not counted; Catch goes on to a state that is). Reading the log also lets the
   * interpreter drop the events it queues for a reader.
   */
  private async countTransitions(executionName: string, events: ExecutionEvents): Promise<void> {
    const entered = new Map<string, number>();
    const seconds = new Map<string, number>();
    this.stateSeconds.set(executionName, seconds);
    for await (const event of events) {
      if (event.type === 'StateEntered' || event.type === 'StateRetried') {
        this.transitions.set(executionName, (this.transitions.get(executionName) ?? 0) + 1);
      }
      if (!('state' in event)) continue;
      // A state runs once at a time per Map iteration (index) or outside any.
      const key = `${event.state.name}#${event.index ?? ''}`;
      if (event.type === 'StateEntered') entered.set(key, event.timestamp);
      if (event.type === 'StateExited' || event.type === 'StateFailed') {
        const since = entered.get(key);
        if (since !== undefined) seconds.set(event.state.name, (seconds.get(event.state.name) ?? 0) + (event.timestamp - since) / 1000);
        entered.delete(key);
      }
    }
  }

  /** Seconds the execution named so spent in each of its states, by state name (what the cost bench prices compute by). */
  stateSecondsOf(executionName: string): ReadonlyMap<string, number> {
    return this.stateSeconds.get(executionName) ?? new Map();
  }

  /** The billable state transitions of the executions named so in this process so far (0 if none ran). */
  stateTransitionsOf(executionName: string): number {
    return this.transitions.get(executionName) ?? 0;
  }

  startAnalysis(ref: { accountId: string; runId: string; analysisId: string }): Promise<void> {
    return this.start('analysis', ref.analysisId, { ...ref });
  }

  startBatch(ref: { accountId: string; batchId: string }): Promise<void> {
    return this.start('batch', ref.batchId, { ...ref });
  }

  startRender(ref: { accountId: string; renderId: string; momentIds: string[] }): Promise<void> {
    return this.start('render', ref.renderId, { ...ref });
  }

  /** Waits for running executions (tests), or aborts them (shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  abortAll(): void {
    for (const execution of this.running.values()) execution.abort();
    this.processes.stopAll();
  }
}
