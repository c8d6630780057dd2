import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import type { SharedAssemblyPaths } from './shared-assembly-setup.js';
import { readAssembly, type SynthesizedAssembly } from './synth.js';

/**
 * How long a file may wait for the shared synthesis (bundling ~35 functions on a loaded machine
 * has taken minutes): for the `beforeAll` that calls sharedAssembly.
 */
export const SHARED_ASSEMBLY_TIMEOUT_MS = 900_000;

/** The last lines of a (log) file. */
const tail = (path: string, lines: number): string => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n') : '(no output)');

export interface SharedAssembly extends SynthesizedAssembly {
  /** Synthesized with no network for it or any process it started (test/infra/offline.ts). */
  readonly offline: boolean;
}

/**
 * The app as `cdk synth` builds it (cdk.json's context, every function bundled), synthesized once
 * per run by the infra project's globalSetup (shared-assembly-setup.ts): waits until it is complete.
 */
export async function sharedAssembly(): Promise<SharedAssembly> {
  const paths = inject('infraAssembly') as SharedAssemblyPaths | undefined;
  if (!paths)
    throw new Error('No shared assembly: run the infra tests with their vitest project (`npx vitest run --project infra`), whose globalSetup synthesizes it');
  while (!existsSync(paths.statusFile)) await sleep(250);
  const status = JSON.parse(readFileSync(paths.statusFile, 'utf8')) as { ok: boolean; offline?: boolean; error?: string };
  if (!status.ok) throw new Error(`The shared synthesis failed: ${status.error}\n--- last lines of ${paths.logFile}:\n${tail(paths.logFile, 40)}`);
  return { ...readAssembly(paths.directory), offline: status.offline === true };
}
