/**
 * vitest globalSetup of the reliability suite (test/reliability/vitest.config.ts): ONE local host
 * in a child process (`npm start`'s own entry, as test/helpers/host-process.ts starts it) on a
 * fresh data directory, shared by the files that probe it over HTTP (cross-account access,
 * fuzzing, races, malformed media). It provides what the integration project provides
 * (`baseUrl`, `apiKey`, `accountId`, `dataDir`), so the helpers of test/helpers work unchanged, and
 * the host's pid and output log, so a file can check the host is still the same healthy process.
 * The crash tests start hosts of their own.
 */
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { fakeYtDlpPath } from '../helpers/processes.js';
import { dynamoDbJvmsOn, hostsOnOwnData } from '../helpers/host-process.js';
import { allowTestPace, repoRoot } from '../helpers/processes.js';

/** Where the shared host's output is kept after the suite (test-results/ is not committed). */
export const keptLog = join(repoRoot, 'test-results', 'reliability', 'host-output.log');

declare module 'vitest' {
  export interface ProvidedContext {
    /** pid of the shared reliability host (a child process of the vitest main process). */
    hostPid: number;
    /** Everything the shared reliability host printed (stdout and stderr), appended as it runs. */
    hostLog: string;
  }
}

/** The shared host's settings: loopback sources and webhook receivers allowed, no internet needed. */
export const reliabilityHostEnv: Record<string, string> = {
  // One-off analyses read sources from loopback media servers; webhook endpoints point at loopback receivers (DESIGN §9).
  LOCAL_ALLOW_LOOPBACK_TARGETS: '1',
  // No internet here: built-in providers' page URLs resolve through the stand-in the integration tests use.
  YT_DLP_PATH: fakeYtDlpPath,
  // Chunk signals in-process: the files here test the API's behaviour, not the container path.
  SIGNALS_RUNNER: 'lambda',
  // The API's behaviour, not the run-time contracts (the parity suite's): no sandbox.
  LOCAL_SANDBOX: 'off',
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const hosts = hostsOnOwnData('mss-rel-');
  const host = await hosts.start(reliabilityHostEnv);
  const dataDir = hosts.dataDir();
  await allowTestPace(dataDir);
  const hostLog = join(dataDir, 'host-output.log');
  const log = createWriteStream(hostLog, { flags: 'a' });
  const { stdout, stderr } = host.output();
  log.write(stdout + stderr);
  host.child.stdout.on('data', (chunk: Buffer) => log.write(chunk));
  host.child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  project.provide('baseUrl', host.baseUrl);
  project.provide('apiKey', host.apiKey);
  project.provide('accountId', host.accountId);
  project.provide('dataDir', dataDir);
  project.provide('hostPid', host.child.pid ?? 0);
  project.provide('hostLog', hostLog);
  return async () => {
    const alive = host.child.exitCode === null && host.child.signalCode === null;
    host.child.kill('SIGINT');
    const exit = await Promise.race([host.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    await new Promise((resolve) => log.end(resolve));
    // Kept for a post-mortem: what the host logged while the suite probed it (errors behind any 5xx).
    await mkdir(dirname(keptLog), { recursive: true });
    await copyFile(hostLog, keptLog);
    const jvms = dynamoDbJvmsOn(dataDir);
    if (jvms.length) for (const pid of jvms) process.kill(pid, 'SIGKILL');
    await hosts.cleanUp();
    // Reported here, after the files: a host that died or would not stop is a finding of its own.
    if (!alive) throw new Error('The shared reliability host was no longer running when the suite ended.');
    if (JSON.stringify(exit) !== JSON.stringify({ code: 0, signal: null }))
      throw new Error(`The shared reliability host did not stop cleanly on SIGINT: ${JSON.stringify(exit)}`);
    if (jvms.length) throw new Error(`The shared reliability host left DynamoDB Local running after a clean stop: ${jvms.join(', ')}`);
  };
}
