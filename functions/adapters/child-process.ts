import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Starts a child process (ffmpeg, ffprobe, yt-dlp, a transcriber) as node's spawn does. */
export type Launch = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

let installed: Launch | undefined;

/** The host's launcher (Host.launch), installed with the host (composition/host.ts installHost). */
export function installLauncher(hostLaunch: Launch): void {
  installed = hostLaunch;
}

/**
 * Starts a child process with the launcher of this process's host. Without an installed host it is
 * the AWS host's launcher, node's spawn, taken without reading the configuration the rest of the
 * AWS host needs (adapters' own tests run with none).
 */
export const launch: Launch = (command, args, options) => (installed ?? spawn)(command, args, options);
