/**
 * Where the permission check (test/permissions) finds its inputs and writes its reports. The
 * integration project's globalSetup records the AWS calls of the local host it starts (and of the
 * hosts tests start, which inherit AWS_CALL_LOG) into `awsCallLogFile`, and provides the path as
 * `awsCallLog` to every project of the run; the permissions project runs after it.
 */
import { join } from 'node:path';
import { repoRoot } from './processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The AWS call recording of this run's integration project (functions/local/aws-calls/recorder.ts). */
    awsCallLog: string;
  }
}

/** Test output of the permission check: the recording and the reports. */
export const permissionsOutputDir = join(repoRoot, 'test-results', 'permissions');
export const awsCallLogFile = join(permissionsOutputDir, 'aws-calls.ndjson');
