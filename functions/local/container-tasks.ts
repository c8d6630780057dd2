import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';
import { join } from 'node:path';
import type { ContainerTask } from '../workflows/registry.js';
import { containerNameOf } from '../runtime/contracts.js';
import { childProcessRecording } from './aws-calls/recorder.js';
import { spawnTied, type HostChildren } from './host-processes.js';

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

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Runs the workflow's container tasks as child processes of the local host: the entrypoint module
 * on this Node, with the host's environment, which holds its configuration (table, bucket,
 * loopback endpoints, credentials), plus the state's container overrides, as a Fargate task gets
 * its task definition's environment plus the overrides.
 */
export class LocalContainerTasks {
  private readonly children = new Set<ChildProcess>();
  private readonly bundles = new Map<string, Promise<string>>();

  /** hostChildren: the host's record of its children (host-processes.ts), when run by a host. */
  constructor(private readonly hostChildren?: HostChildren) {}

  /**
   * The entrypoint bundled once per host process, as the Dockerfile bundles it: a child then
   * starts in a fraction of the time tsx needs to compile the module graph again for every chunk.
   * It lands under node_modules/.cache so that its packages resolve from the repository.
   */
  private bundleOf(entrypoint: ContainerTask['entrypoint']): Promise<string> {
    let bundle = this.bundles.get(entrypoint);
    if (!bundle) {
      const outfile = join(repoRoot, 'node_modules', '.cache', 'media-scanner', `${entrypoint}-${process.pid}.mjs`);
      bundle = build({
        entryPoints: [join(repoRoot, 'functions', `${entrypoint}.ts`)],
        bundle: true,
        packages: 'external',
        platform: 'node',
        format: 'esm',
        target: 'node24',
        outfile,
        logLevel: 'silent',
      }).then(() => outfile);
      bundle.catch(() => this.bundles.delete(entrypoint));
      this.bundles.set(entrypoint, bundle);
    }
    return bundle;
  }

  /** The local handler of an ecs:runTask.sync state: resolves when the task exits 0, rejects otherwise (Retry and Catch apply). */
  handler(task: ContainerTask, unit: string): (parameters: unknown) => Promise<Record<string, never>> {
    const container = containerNameOf(task);
    return async (parameters) => {
      const override = (parameters as RunTaskParameters).Overrides?.ContainerOverrides?.find((o) => o.Name === container);
      if (!override) throw new Error(`${RUN_CONTAINER_TASK}: no container override for ${container}`);
      await this.run(task.entrypoint, Object.fromEntries((override.Environment ?? []).map((v) => [v.Name, v.Value])), unit);
      // ECS answers with the stopped task's description, which the state machine discards.
      return {};
    };
  }

  private async run(entrypoint: ContainerTask['entrypoint'], environment: Record<string, string>, unit: string): Promise<void> {
    const bundle = await this.bundleOf(entrypoint);
    const recording = await childProcessRecording(unit);
    return new Promise((resolve, reject) => {
      // Tied to the host's life; the environment carries the host's instance mark to the task's own children.
      const child = spawnTied(process.execPath, [...recording.execArgv, bundle], {
        cwd: repoRoot,
        env: { ...process.env, ...environment, ...recording.env },
        // Its log lines join the host's, as the in-process task handlers' do.
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      this.children.add(child);
      this.hostChildren?.track(child, `container task ${entrypoint}`);
      child.once('error', (error) => {
        this.children.delete(child);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        this.children.delete(child);
        if (code === 0) resolve();
        else reject(new ContainerTaskFailed(`${entrypoint} exited with ${code === null ? `signal ${signal}` : `status ${code}`}`));
      });
    });
  }

  /** Stops every running task (host shutdown), as ECS stops a task: SIGTERM; and removes the bundles. */
  stopAll(): void {
    for (const child of this.children) child.kill('SIGTERM');
    for (const bundle of this.bundles.values()) void bundle.then((file) => rm(file, { force: true })).catch(() => undefined);
  }
}
