import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';
import type { WorkflowStarter } from '../domain/runs/ports.js';
import { workflows, type WorkflowName } from '../workflows/registry.js';

type TaskHandler = (input: unknown) => Promise<unknown>;
type JsonValue = Parameters<StateMachine['run']>[0];
interface AslState {
  Type: string;
  Resource?: string;
  ItemProcessor?: { States: Record<string, AslState> };
  Iterator?: { States: Record<string, AslState> };
  Branches?: { States: Record<string, AslState> }[];
}

const repoRoot = join(import.meta.dirname, '..', '..');
const functionsDir = join(repoRoot, 'functions');

/** Every Task state, nested ones included, with the placeholder its (substituted) Resource names. */
function taskStates(states: Record<string, AslState>): [stateName: string, placeholder: string][] {
  return Object.entries(states).flatMap(([name, state]) => {
    const nested = [state.ItemProcessor?.States, state.Iterator?.States, ...(state.Branches ?? []).map((b) => b.States)]
      .filter((s) => s !== undefined)
      .flatMap(taskStates);
    const placeholder = state.Type === 'Task' ? /^arn:aws:lambda:[^:]+:\d+:function:(\w+)$/.exec(state.Resource ?? '')?.[1] : undefined;
    return placeholder ? [[name, placeholder] as [string, string], ...nested] : nested;
  });
}

/**
 * Runs the same ASL files as Step Functions, in-process with aws-local-stepfunctions: each Task
 * state is bound to the handler the workflow table names for its placeholder, the very module
 * CDK deploys as that task's Lambda.
 */
export class LocalWorkflows implements WorkflowStarter {
  private readonly running = new Set<{ abort: () => void; done: Promise<unknown> }>();
  private readonly machines = new Map<WorkflowName, Promise<{ machine: StateMachine; handlers: Record<string, TaskHandler> }>>();

  private load(name: WorkflowName) {
    let loaded = this.machines.get(name);
    if (!loaded) {
      loaded = (async () => {
        const workflow = workflows[name];
        // As CDK's DefinitionSubstitutions do on AWS: every ${Placeholder} becomes a function ARN
        // (here a local one; the task overrides below run the handler instead of calling it).
        const asl = (await readFile(join(repoRoot, workflow.definitionFile), 'utf8')).replace(
          /\$\{(\w+)\}/g,
          (_, placeholder: string) => `arn:aws:lambda:us-east-1:000000000000:function:${placeholder}`,
        );
        const definition = JSON.parse(asl) as { States: Record<string, AslState> };
        const tasks: Record<string, { handler: string }> = workflow.tasks;
        const handlers: Record<string, TaskHandler> = {};
        for (const [stateName, placeholder] of taskStates(definition.States)) {
          const task = tasks[placeholder];
          if (!task) throw new Error(`${workflow.definitionFile}: no task in the workflow table for \${${placeholder}}`);
          const module = (await import(pathToFileURL(join(functionsDir, `${task.handler}.ts`)).href)) as { handler: TaskHandler };
          handlers[stateName] = module.handler;
        }
        // Built once, run many times (construction is the slow part).
        const machine = new StateMachine(definition as ConstructorParameters<typeof StateMachine>[0]);
        return { machine, handlers };
      })();
      this.machines.set(name, loaded);
    }
    return loaded;
  }

  /** Starts an execution in the background; its outcome is recorded by its own states. */
  async start(name: WorkflowName, input: JsonValue): Promise<void> {
    const { machine, handlers } = await this.load(name);
    const execution = machine.run(input, { overrides: { taskResourceLocalHandlers: handlers as Record<string, (input: JsonValue) => Promise<JsonValue>> }, noThrowOnAbort: true });
    const entry = { abort: execution.abort, done: execution.result.catch(() => undefined) };
    this.running.add(entry);
    void entry.done.finally(() => this.running.delete(entry));
  }

  startAnalysis(ref: { accountId: string; runId: string; analysisId: string }): Promise<void> {
    return this.start('analysis', { ...ref });
  }

  /** Waits for running executions (tests), or aborts them (shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.running].map((r) => r.done));
  }

  abortAll(): void {
    for (const execution of this.running) execution.abort();
  }
}
