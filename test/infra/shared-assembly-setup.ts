/**
 * vitest globalSetup of the `infra` project: ONE fully bundled synthesis of the app (esbuild for
 * every function, the ffmpeg layer, the container image's build context, cdk-nag and the
 * CloudFormation schema checks), shared by every infra file that reads the default stack
 * (test/infra/shared-assembly.ts). It runs in a child process, so files that synthesize variants of
 * their own, or none, run while it bundles; the files that need it wait for its status file. That
 * process and every process it starts have no network (test/infra/offline.ts): `cdk synth` must
 * not download anything beyond what `npm ci` installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { offlineEnvironment } from './offline.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the shared synthesis writes: the cloud assembly, its status once done, and its output. */
    infraAssembly: SharedAssemblyPaths;
  }
}

export interface SharedAssemblyPaths {
  /** The cloud assembly directory; complete once `statusFile` exists and says `ok`. */
  readonly directory: string;
  /** `{ ok: true, offline }` or `{ ok: false, error }`, written when synthesis is over. */
  readonly statusFile: string;
  /** The synthesis' stdout and stderr (esbuild's reports among them). */
  readonly logFile: string;
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('./shared-assembly-synth.ts', import.meta.url));

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * CDK bundles each function with `npx --no-install esbuild ...` (npm projects), and starting npm
 * costs about as much as the bundling itself. A `npx` first on the synthesis' PATH that runs the
 * project's esbuild (the binary npx would run, with the same arguments: the bundles are byte for
 * byte the same) for exactly that command, and hands anything else to the real npx. Returns the
 * PATH to use; unchanged where the shim cannot be made.
 */
function pathWithEsbuildShim(binDirectory: string, path: string): string {
  const esbuild = join(repoRoot, 'node_modules', '.bin', 'esbuild');
  const npx = path
    .split(delimiter)
    .map((directory) => join(directory, 'npx'))
    .find(isExecutable);
  if (process.platform === 'win32' || !npx || !isExecutable(esbuild)) return path;
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  mkdirSync(binDirectory);
  const shim = join(binDirectory, 'npx');
  writeFileSync(
    shim,
    [
      '#!/bin/sh',
      '# test/infra/shared-assembly-setup.ts: `npx --no-install esbuild` without starting npm.',
      `if [ "$1" = "--no-install" ] && [ "$2" = "esbuild" ]; then shift 2; exec ${quote(esbuild)} "$@"; fi`,
      `exec ${quote(npx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
  return `${binDirectory}${delimiter}${path}`;
}

interface Synthesis extends SharedAssemblyPaths {
  readonly base: string;
  readonly child: ChildProcess;
  readonly ended: Promise<void>;
}

function start(): Synthesis {
  const base = mkdtempSync(join(tmpdir(), 'media-scanner-infra-'));
  const directory = join(base, 'assembly');
  mkdirSync(directory);
  const statusFile = join(base, 'status.json');
  const logFile = join(base, 'synth.log');
  const fail = (error: string) => {
    if (!existsSync(statusFile)) writeFileSync(statusFile, JSON.stringify({ ok: false, error }));
  };
  // The app with cdk.json's context and nothing else, whatever the shell exports; offline.
  const env = offlineEnvironment({ ...process.env, PATH: pathWithEsbuildShim(join(base, 'bin'), process.env.PATH ?? '') }, join(base, 'npm-cache'));
  delete env.CDK_CONTEXT_JSON;
  const log = openSync(logFile, 'w');
  // Its own process group, so that teardown can stop it together with the esbuild it runs.
  const child = spawn(process.execPath, ['--import', 'tsx', script, directory, statusFile], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const ended = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      fail(`could not start the synthesis: ${error.message}`);
      resolve();
    });
    child.once('exit', (code, signal) => {
      fail(`the synthesis exited (${signal ?? `code ${String(code)}`}) without a result`);
      resolve();
    });
  });
  return { base, directory, statusFile, logFile, child, ended };
}

async function stop(synthesis: Synthesis): Promise<void> {
  const { child } = synthesis;
  // Still running when every test is done: no file needed it (or one was filtered out).
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Ended meanwhile.
    }
  }
  await synthesis.ended;
  rmSync(synthesis.base, { recursive: true, force: true });
}

const pathsOf = ({ directory, statusFile, logFile }: Synthesis): SharedAssemblyPaths => ({ directory, statusFile, logFile });

export default function setup(project: TestProject): () => Promise<void> {
  let current = start();
  // Provided to every project of the run: the permission check (test/permissions) reads it too.
  project.vitest.provide('infraAssembly', pathsOf(current));
  // Watch mode: infra or functions changed, so synthesize again for the rerun.
  project.onTestsRerun(async () => {
    await stop(current);
    current = start();
    project.vitest.provide('infraAssembly', pathsOf(current));
  });
  return () => stop(current);
}
