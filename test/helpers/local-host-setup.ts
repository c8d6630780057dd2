/**
 * vitest globalSetup of the `integration` project: ONE local host (DynamoDB Local, s3rver, the
 * API on an ephemeral loopback port) in a fresh temp data dir, shared by every integration file.
 * Files that need isolation mint their own accounts through the admin CLI (test/helpers/api.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalHost } from '../../functions/local/host.js';
import { awsCallLogFile } from './aws-call-log.js';
import { allowTestPace, fakeYtDlpPath } from './processes.js';
import { coverageLog, writeCoverageReport } from './openapi-contract.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the shared local host. */
    baseUrl: string;
    /** API key of the seeded default account (creator plan, 10,000 credits). */
    apiKey: string;
    /** acct_ id of the seeded default account. */
    accountId: string;
    /** Data directory of the shared host; LOCAL_DATA_DIR for the admin CLI. */
    dataDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The shared host extracts chunk signals in-process: the files testing analysis results then do
  // not pay a child-process start per chunk. The container path (a child process per chunk, the
  // default for chunked sources) is tested on a host of its own (signals-container.test.ts).
  process.env.SIGNALS_RUNNER ??= 'lambda';
  // No transcriber unless a test asks for one (captions tests start hosts with TRANSCRIBER=pocketsphinx):
  // results do not depend on whether pocketsphinx is installed, and hosts the tests spawn inherit this.
  process.env.TRANSCRIBER ??= 'none';
  // One-off analyses read their sources from loopback media servers the tests start (DESIGN §9).
  process.env.LOCAL_ALLOW_LOOPBACK_TARGETS ??= '1';
  // No internet here: built-in providers' page URLs resolve through a stand-in that answers like yt-dlp.
  process.env.YT_DLP_PATH ??= fakeYtDlpPath;
  // Webhook retries on a compressed schedule (10 h -> 3.6 s): a delivery fails after about 10 s,
  // not 27.5 h. The schedule itself is unit-tested at full length.
  process.env.WEBHOOK_RETRY_SCALE ??= '0.0001';
  // Every AWS call made for a deployed unit, by this host and by the hosts tests start (they
  // inherit the variable), for the permission check that runs after this project (test/permissions).
  rmSync(awsCallLogFile, { force: true });
  // The (route, status) pairs this run's responses cover (openapi-contract-setup.ts), reported at teardown.
  rmSync(coverageLog, { force: true });
  process.env.AWS_CALL_LOG = awsCallLogFile;
  project.vitest.provide('awsCallLog', awsCallLogFile);
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-it-'));
  // Unsandboxed, as are the hosts its tests start (LOCAL_SANDBOX): the parity suite and sandbox.test.ts run sandboxed hosts of their own.
  process.env.LOCAL_SANDBOX = 'off';
  const host = await startLocalHost({ dataDir, port: 0, sandbox: false }).catch(async (error: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  await allowTestPace(host.dataDir);
  project.provide('baseUrl', host.baseUrl);
  project.provide('apiKey', host.apiKey);
  project.provide('accountId', host.accountId);
  project.provide('dataDir', host.dataDir);
  return async () => {
    const { covered, documented } = writeCoverageReport();
    console.log(`OpenAPI contract: ${covered.length} of ${documented} documented (route, status) pairs covered; see test-results/openapi-coverage.txt.`);
    await host.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
