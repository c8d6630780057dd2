import { existsSync, realpathSync } from 'node:fs';
import { reportStandInCall } from '../aws-call-hooks.js';
import { logger } from '../../shared/logger.js';
import { answerOf, type ProviderResolverInvoker } from './provider-resolution.js';
import { runYtDlp } from './yt-dlp-process.js';

interface ProcessProviderResolverOptions {
  /** functions/provider-resolver/handler.py: the file the function runs on AWS. */
  handlerPath: string;
  /** The function's timeout (its run-time contract): the handler stops yt-dlp before it, as on Lambda. */
  timeoutSeconds: number;
  /** YT_DLP_PATH, handed to the handler (the tests' stand-in); absent: the handler finds yt-dlp itself. */
  ytDlpPath?: string | undefined;
  /** The interpreter (localPython()). */
  python: string;
  /** Runs the handler's process as the function's own unit (the local host's sandbox); the invoke itself is the caller's call. */
  asResolverUnit?: (<T>(run: () => Promise<T>) => Promise<T>) | undefined;
}

/**
 * The Python that plays the function's runtime: Debian's, whose dist-packages hold Debian's yt_dlp
 * package as the layer's /opt/python holds it on AWS; else whichever python3 is on PATH.
 */
export const localPython = (): string => (existsSync(DEBIAN_PYTHON) ? realpathSync(DEBIAN_PYTHON) : 'python3');
const DEBIAN_PYTHON = '/usr/bin/python3';

/** Past the timeout, as Lambda ends a function that overruns it. */
const KILL_MARGIN_MS = 2_000;

/**
 * The local host's way to run the provider-resolver function: its own handler as a child process,
 * with the same event and deadline, so local preflights resolve pages through the code that
 * resolves them on AWS. Reported to the AWS call recorder as the lambda:InvokeFunction it is there.
 */
export function processProviderResolver(options: ProcessProviderResolverOptions): ProviderResolverInvoker {
  return async (event) => {
    reportStandInCall(() => ({ clientName: 'LambdaClient', commandName: 'InvokeCommand', input: { FunctionName: '${PROVIDER_RESOLVER_FUNCTION}' } }));
    const asUnit = options.asResolverUnit ?? ((run) => run());
    const run = await asUnit(() =>
      runYtDlp(options.python, [options.handlerPath, '--timeout-seconds', String(options.timeoutSeconds), event.url], {
        timeoutMs: options.timeoutSeconds * 1000 + KILL_MARGIN_MS,
        env: options.ytDlpPath ? { YT_DLP_PATH: options.ytDlpPath } : {},
      }),
    );
    if (run.timedOut || run.exitCode !== 0) {
      // Its stderr is a Python traceback, which may quote the URL: the exit alone.
      logger.warn('The provider resolver failed', { exitCode: run.exitCode, timedOut: run.timedOut });
      return undefined;
    }
    return answerOf(run.stdout);
  };
}
