import { launch } from '../child-process.js';
import { SignalExtractionError } from './errors.js';

interface RunOptions {
  /** The child is killed (SIGKILL) once this has passed. */
  timeoutMs: number;
  /** Cap on stdout + stderr text kept; a child that prints more is killed (a runaway log). */
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
  /**
   * Consumers of extra output pipes by file descriptor (3 and up; ffmpeg's `pipe:3`), fed as
   * the data arrives: nothing of it is buffered here.
   */
  pipes?: Readonly<Record<number, (chunk: Buffer) => void>> | undefined;
  /** Variables added to this process's environment for the child (e.g. FONTCONFIG_FILE of caption burn-in). */
  env?: Readonly<Record<string, string>> | undefined;
}

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs ffmpeg or ffprobe asynchronously: never execFileSync, which deadlocks against an
 * in-process s3rver serving the very URL the child reads (STACK.md). Resolves with the exit code
 * (a non-zero exit is the caller's to interpret); rejects on spawn failure, timeout, output
 * overflow or abort, always after the child has been killed.
 */
export function runTool(binary: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const { signal, pipes = {} } = options;
  signal?.throwIfAborted();
  const extraFds = Object.keys(pipes).map(Number);
  const extraSlots = Array.from({ length: Math.max(2, ...extraFds) - 2 }, (_, i) => (extraFds.includes(i + 3) ? 'pipe' : 'ignore'));
  return new Promise<RunResult>((resolve, reject) => {
    const child = launch(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe', ...extraSlots],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    const [, childStdout, childStderr] = child.stdio;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let failure: unknown = null;

    const fail = (error: unknown) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > options.maxOutputBytes) {
        fail(new SignalExtractionError(`${label(binary)} printed more than ${options.maxOutputBytes} bytes`));
        return;
      }
      into.push(chunk);
    };
    childStdout?.on('data', collect(stdout));
    childStderr?.on('data', collect(stderr));
    for (const fd of extraFds) {
      const consume = pipes[fd];
      child.stdio[fd]?.on('data', (chunk: Buffer) => {
        try {
          consume?.(chunk);
        } catch (error) {
          fail(error);
        }
      });
    }

    const timer = setTimeout(() => fail(new SignalExtractionError(`${label(binary)} did not finish within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => fail(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    let settled = false;
    const settle = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure !== null) reject(failure instanceof Error ? failure : new SignalExtractionError('aborted', { cause: failure }));
      else resolve({ exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    };
    child.once('error', (error) => {
      failure ??= new SignalExtractionError(`could not run ${label(binary)}: ${error.message}`, { cause: error });
      // A child that never started emits no `close`.
      if (child.pid === undefined) settle(null);
      else child.kill('SIGKILL');
    });
    // `close` (not `exit`) so every pipe has been drained before the result is read.
    child.once('close', settle);
  });
}

const label = (binary: string) => binary.split(/[\\/]/).at(-1) ?? binary;
