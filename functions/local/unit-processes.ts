import type { ChildProcess, StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { childProcessRecording } from './aws-calls/recorder.js';
import { LocalBundles } from './bundles.js';
import { spawnTied, type HostChildren } from './host-processes.js';
import type { Sandbox } from './sandbox/sandbox.js';

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Units the local host runs as processes of their own (`node <bundle>`): container tasks, and the
 * workflow tasks that run ffmpeg. With the host's environment, which holds its configuration
 * (table, bucket, loopback endpoints, credentials), plus the unit's; inside the unit's sandbox
 * when the host has one (sandbox/sandbox.ts), unconfined otherwise.
 */
export class UnitProcesses {
  private readonly children = new Set<ChildProcess>();
  readonly bundles = new LocalBundles();

  /** hostChildren: the host's record of its children (host-processes.ts), when run by a host. */
  constructor(
    private readonly sandbox?: Sandbox,
    private readonly hostChildren?: HostChildren,
  ) {}

  async start(unit: string, bundle: string, environment: Record<string, string>, stdio: StdioOptions): Promise<ChildProcess> {
    const recording = await childProcessRecording(unit);
    const args = [...recording.execArgv, bundle];
    const env = { ...process.env, ...environment, ...recording.env };
    const run = this.sandbox ? this.sandbox.unitProcess(unit, args, env) : { file: process.execPath, args, env };
    // Tied to the host's life; the environment carries the host's instance mark to the unit's own children.
    const child = spawnTied(run.file, run.args, { cwd: repoRoot, env: run.env, stdio });
    this.children.add(child);
    this.hostChildren?.track(child, unit);
    const forget = () => this.children.delete(child);
    child.once('error', forget).once('exit', forget);
    return child;
  }

  /** Stops every running unit (host shutdown), as ECS stops a task: SIGTERM; and removes the bundles. */
  stopAll(): void {
    for (const child of this.children) child.kill('SIGTERM');
    this.bundles.removeAll();
  }
}
