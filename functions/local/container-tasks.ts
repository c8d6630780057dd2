import { join } from 'node:path';
import type { ContainerTask } from '../workflows/registry.js';
import type { UnitProcesses } from './unit-processes.js';

/** The Resource of a Task state that runs a container task and waits until it stops. */
export const RUN_CONTAINER_TASK = 'arn:aws:states:::ecs:runTask.sync';

/** The part of an ecs:runTask.sync state's Parameters (paths resolved) a local run honours. */
interface RunTaskParameters {
  Overrides?: { ContainerOverrides?: { Name: string; Environment?: { Name: string; Value: string }[] }[] };
}

/** What Step Functions reports for a container task that stopped with a non-zero exit status. */
class ContainerTaskFailed extends Error {
  override readonly name = 'States.TaskFailed';
}

const functionsDir = join(import.meta.dirname, '..');

/**
 * Runs the workflow's container tasks as processes of the local host (unit-processes.ts): the
 * entrypoint module, bundled as the Dockerfile bundles it, with the state's container overrides
 * added to the environment, as a Fargate task gets its task definition's environment plus the
 * overrides.
 */
export class LocalContainerTasks {
  constructor(private readonly processes: UnitProcesses) {}

  /** The local handler of an ecs:runTask.sync state: resolves when the task exits 0, rejects otherwise (Retry and Catch apply). */
  handler(task: ContainerTask, unit: string): (parameters: unknown) => Promise<Record<string, never>> {
    const container = task.containerName;
    return async (parameters) => {
      const override = (parameters as RunTaskParameters).Overrides?.ContainerOverrides?.find((o) => o.Name === container);
      if (!override) throw new Error(`${RUN_CONTAINER_TASK}: no container override for ${container}`);
      await this.run(task.entrypoint, Object.fromEntries((override.Environment ?? []).map((v) => [v.Name, v.Value])), unit);
      // ECS answers with the stopped task's description, which the state machine discards.
      return {};
    };
  }

  private async run(entrypoint: ContainerTask['entrypoint'], environment: Record<string, string>, unit: string): Promise<void> {
    const bundle = await this.processes.bundles.of(entrypoint.replaceAll('/', '-'), { entry: join(functionsDir, `${entrypoint}.ts`) });
    // Its log lines join the host's, as the in-process task handlers' do.
    const child = await this.processes.start(unit, bundle, environment, ['ignore', 'inherit', 'inherit']);
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        if (code === 0) resolve();
        else reject(new ContainerTaskFailed(`${entrypoint} exited with ${code === null ? `signal ${signal}` : `status ${code}`}`));
      });
    });
  }
}
