import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { createAccount, DEFAULT_KEY_NAME, newKeyRecord } from '../domain/accounts/accounts.js';
import { apiKeyPattern, hashApiKey } from '../domain/accounts/api-keys.js';
import { nowIso } from '../domain/clock.js';
import type { AccountStore } from '../domain/accounts/ports.js';
import { dynamoAccountStore } from '../adapters/table/account-store.js';
import { CursorCodec } from '../adapters/table/cursor.js';
import { allowConsoleOrigins, ensureBucket, ensureTable } from './bootstrap.js';
import { buildLocalConsole } from './console-host.js';
import { issueSignInToken, signInLink } from '../domain/accounts/sign-in-links.js';
import { dynamoSignInLinkStore } from '../adapters/table/sign-in-link-store.js';
import { table } from '../composition/table.js';
import { consoleSessions } from '../composition/accounts.js';
import { createApiServer, defaultServerLimits, type ServerLimits } from './server.js';
import { startDynamoDbLocal, startS3rver, type StandIn } from './stand-ins.js';
import { lockDataDir } from './data-dir-lock.js';
import { endLeftovers, HOST_INSTANCE_VARIABLE, HostChildren, startReaper } from './host-processes.js';
import { LocalWorkflows } from './local-workflows.js';
import { crashAfterReservation, crashAfterTask } from './crash-hooks.js';
import { reconcileBatches, reconcileRenders, reconcileRuns } from './resume-runs.js';
import { dynamoSlotStore } from '../adapters/table/slot-store.js';
import { installHost } from '../composition/host.js';
import { startOutboxRelay } from './outbox-relay.js';
import { localEventBus } from '../adapters/events/local-event-bus.js';
import { recordCursorSecretRead, startCallRecording } from './aws-calls/recorder.js';
import { localWebhookSender } from './webhook-sender.js';
import { webhookDelivery } from '../composition/webhook-delivery.js';
import { logger } from '../shared/logger.js';
import { bubblewrapWorks, Sandbox } from './sandbox/sandbox.js';
import { config } from '../config.js';
import { localPython, processProviderResolver } from '../adapters/sources/process-provider-resolver.js';
import { inUnit } from './unit-context.js';
import { lambdaContractOf, units } from '../runtime/contracts.js';
import { once } from '../shared/memo.js';

const LOCAL_TABLE = 'media-scanner-local';
const LOCAL_BUCKET = 'media-scanner-local-media';
/** s3rver's built-in credentials; DynamoDB Local (sharedDb) accepts any. */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const LOCAL_REGION = 'us-east-1';

interface LocalHostOptions {
  dataDir: string;
  port: number;
  /** The default account's key; generated once and kept when absent. */
  apiKey?: string | undefined;
  /** What one client may hold (time to send a request, connections); defaultServerLimits otherwise. */
  limits?: Partial<ServerLimits> | undefined;
  /** Run units inside their run-time contracts where bubblewrap can (the default); false: never. */
  sandbox?: boolean | undefined;
}

export interface LocalHost {
  baseUrl: string;
  /** The in-process workflow runner (tests may wait for it to settle). */
  workflows: LocalWorkflows;
  apiKey: string;
  accountId: string;
  dataDir: string;
  /** Whether units run inside their run-time contracts (bubblewrap works here) or unconfined. */
  sandboxed: boolean;
  /** The console's address, and a one-time sign-in link to it for the default account (15 min). */
  consoleUrl: string;
  signInLink: string;
  /** Whether the console's files are built and served here (console/build.ts is in this checkout). */
  consoleBuilt: boolean;
  stop: () => Promise<void>;
}

/** Kept across restarts: the default account and the cursor signing key (console sessions are table items). */
interface PersistedState {
  account_id: string;
  api_key: string;
  cursor_secret: string;
}

/** Written while the host runs, so the admin CLI can find its DynamoDB. */
interface RunningHost {
  base_url: string;
  dynamodb_endpoint: string;
  s3_endpoint: string;
  table: string;
  bucket: string;
  pid: number;
  /** This host's loopback trust (config().host): the admin CLI follows it, whatever its own environment says. */
  allow_loopback_targets: boolean;
}

export const stateFile = (dataDir: string) => join(dataDir, 'local-host.json');
const runningFile = (dataDir: string) => join(dataDir, 'running.json');

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export const readRunningHost = (dataDir: string) => readJson<RunningHost>(runningFile(dataDir));

/** A document client for the host's DynamoDB Local, as the admin CLI and tests reach it. */
export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  const dynamo = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  return DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
}

/** The host's S3 client for one bootstrap step (s3rver's credentials). */
async function withS3(endpoint: string, step: (client: S3Client) => Promise<void>): Promise<void> {
  const client = new S3Client({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
  try {
    await step(client);
  } finally {
    client.destroy();
  }
}

async function seedDefaultAccount(store: AccountStore, previous: PersistedState | undefined, wantedKey: string | undefined) {
  if (wantedKey !== undefined && !apiKeyPattern.test(wantedKey)) {
    throw new Error('LOCAL_API_KEY is not a valid API key: it must be sk_live_ or sk_test_ followed by 40 base62 characters.');
  }
  if (previous && (await store.getAccount(previous.account_id))) {
    const apiKey = wantedKey ?? previous.api_key;
    if (!(await store.findApiKey(hashApiKey(apiKey)))) {
      await store.addApiKey(newKeyRecord(previous.account_id, apiKey, DEFAULT_KEY_NAME, nowIso()));
    }
    return { accountId: previous.account_id, apiKey };
  }
  const { account, apiKey } = await createAccount(store, { plan: 'creator', credits: 10_000, apiKey: wantedKey });
  return { accountId: account.accountId, apiKey };
}

/**
 * The provider-resolver function's handler as a child process, under the function's contract (its
 * file, its timeout; sandboxed, its view). A yt-dlp stand-in (YT_DLP_PATH) is handed over where
 * the unit sees it: in its view, at the contract's path of yt-dlp.
 */
function localProviderResolver(sandboxed: boolean) {
  const contract = lambdaContractOf(units.providerResolver);
  const standIn = config().YT_DLP_PATH;
  return processProviderResolver({
    handlerPath: join(import.meta.dirname, '..', `${contract.module}.py`),
    timeoutSeconds: contract.timeoutSeconds,
    python: localPython(),
    ytDlpPath: standIn && sandboxed ? contract.binaries['yt-dlp'] : standIn,
    asResolverUnit: (run) => inUnit(units.providerResolver, run),
  });
}

/**
 * Starts the embedded host: DynamoDB Local and s3rver on loopback with state under dataDir,
 * the same table and bucket CDK defines, a default account, and the API on 127.0.0.1.
 */
export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  // Before anything opens the data: one host per directory (data-dir-lock.ts), and whatever a
  // host that died here left running is ended (host-processes.ts).
  const instance = randomBytes(16).toString('hex');
  const lock = await lockDataDir(dataDir, instance);
  const children = new HostChildren(dataDir, instance);
  let reaper: ReturnType<typeof startReaper> | undefined;
  const started: StandIn[] = [];
  const stopAll = async () => {
    for (const standIn of started.reverse()) await standIn.stop().catch(() => undefined);
    reaper?.release();
    children.close();
    if (process.env[HOST_INSTANCE_VARIABLE] === instance) delete process.env[HOST_INSTANCE_VARIABLE];
    await lock.release();
  };
  try {
    if (lock.previous) console.log(`The previous host on this data directory (pid ${lock.previous.pid}) did not stop cleanly.`);
    const leftovers = await endLeftovers(dataDir, lock.previous?.instance);
    if (leftovers.length) console.log(`Ended ${leftovers.length} process(es) it left running: ${leftovers.map((p) => `${p.pid} (${p.what})`).join(', ')}.`);
    // Every process started from here on (and theirs) carries the mark the reaper ends them by.
    process.env[HOST_INSTANCE_VARIABLE] = instance;
    reaper = startReaper(instance, children);

    const previous = await readJson<PersistedState>(stateFile(dataDir));
    const cursorSecret = previous?.cursor_secret ?? randomBytes(32).toString('base64url');
    const dynamoDb = await startDynamoDbLocal(dataDir, children);
    started.push(dynamoDb);
    const s3 = await startS3rver(dataDir);
    started.push(s3);

    // The one place the local host writes its settings into process.env: its handlers read them
    // through the one config reader (functions/config.ts) as on Lambda, the SDK's credential chain
    // and Powertools read theirs there, and every unit process it starts inherits them (as a Lambda
    // function or Fargate task gets its environment). HOST_KIND=local is what makes each of those
    // processes a local one (config().host), with the loopback trust the host was started with.
    Object.assign(process.env, {
      HOST_KIND: 'local',
      TABLE_NAME: LOCAL_TABLE,
      MEDIA_BUCKET: LOCAL_BUCKET,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      DYNAMODB_ENDPOINT: dynamoDb.endpoint,
      S3_ENDPOINT: s3.endpoint,
      // Embedded metrics are for CloudWatch; locally they would only crowd the console.
      POWERTOOLS_METRICS_DISABLED: 'true',
      // Keys are read afresh for every request: a revocation (by the admin CLI, another process) refuses the next one.
      API_KEY_CACHE_SECONDS: '0',
    });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    // AWS_CALL_LOG=<file>: record the AWS calls of every unit (functions/local/aws-calls/recorder.ts).
    startCallRecording(process.env.AWS_CALL_LOG);
    // Every unit that starts binaries or writes files runs inside its run-time contract (DESIGN §11), when bubblewrap can.
    const sandbox = options.sandbox !== false && bubblewrapWorks() ? await Sandbox.create() : undefined;
    // Workflows run in this process from the same ASL files Step Functions runs on AWS.
    // LOCAL_CRASH_AFTER: the crash tests' moments to be killed at (crash-hooks.ts); none by default.
    const workflows = new LocalWorkflows(children, crashAfterTask(), sandbox);
    const handlerWorkflows = crashAfterReservation(workflows);
    // What differs from AWS (DESIGN §2), installed before any handler is loaded. Terminal events
    // are appended to <dataDir>/events.ndjson by the in-process bus.
    const events = localEventBus(join(dataDir, 'events.ndjson'));
    // The same webhook sender as on AWS, fed by the bus and woken by in-process timers.
    const webhooks = localWebhookSender(events, webhookDelivery, (message, error) => logger.warn(message, { error }));
    installHost({
      // On AWS this is a GetSecretValue (once per function); the recorder is told of every read.
      cursorSecret: () => {
        recordCursorSecretRead();
        return Promise.resolve(cursorSecret);
      },
      workflows: () => Promise.resolve(handlerWorkflows),
      events: () => Promise.resolve(events),
      deliveryScheduler: () => Promise.resolve(webhooks.scheduler),
      launch: sandbox?.launch ?? spawn,
      providerResolver: once(() => Promise.resolve(localProviderResolver(sandbox !== undefined))),
    });
    started.push({ endpoint: 'workflows', stop: () => Promise.resolve(workflows.abortAll()) });

    const doc = localDocumentClient(dynamoDb.endpoint);
    await ensureTable(doc, LOCAL_TABLE);
    await withS3(s3.endpoint, (client) => ensureBucket(client, LOCAL_BUCKET));

    const tableContext = { doc, tableName: LOCAL_TABLE, cursors: () => Promise.resolve(new CursorCodec(cursorSecret)) };
    const store = dynamoAccountStore(tableContext);
    const { accountId, apiKey } = await seedDefaultAccount(store, previous, options.apiKey);
    const signInToken = await issueSignInToken(dynamoSignInLinkStore(tableContext), accountId);
    // Subscribed before anything here can publish; pending deliveries of the previous start resume.
    const resumedDeliveries = await webhooks.start();
    started.push({ endpoint: 'webhooks', stop: () => webhooks.stop() });
    if (resumedDeliveries) console.log(`Resumed ${resumedDeliveries} pending webhook delivery(ies).`);
    // Terminal events written to the outbox go out from here on, those a crash left pending first.
    // Test hook, local host only: LOCAL_OUTBOX_RELAY=off leaves them pending (a host killed before
    // it relayed), so the crash tests can prove that the next start delivers them.
    if (process.env.LOCAL_OUTBOX_RELAY !== 'off') {
      const relay = startOutboxRelay();
      started.push({ endpoint: 'outbox-relay', stop: () => relay.stop() });
    }
    const resumed = await reconcileRuns(doc, LOCAL_TABLE, dynamoSlotStore(tableContext), workflows);
    if (resumed) console.log(`Resumed ${resumed} run(s) left unfinished by the previous start.`);
    const resumedBatches = await reconcileBatches(doc, LOCAL_TABLE, workflows);
    if (resumedBatches) console.log(`Resumed ${resumedBatches} scanner batch(es) left unfinished by the previous start.`);
    const resumedRenders = await reconcileRenders(doc, LOCAL_TABLE, workflows);
    if (resumedRenders) console.log(`Resumed ${resumedRenders} render(s) left unfinished by the previous start.`);
    await writeFile(
      stateFile(dataDir),
      JSON.stringify({ account_id: accountId, api_key: apiKey, cursor_secret: cursorSecret } satisfies PersistedState, null, 2),
      { mode: 0o600 },
    );
    doc.destroy();

    const assets = await buildLocalConsole();
    const server = createApiServer(
      { ...defaultServerLimits, ...options.limits },
      // Links are consumed, and sessions begun, through the same table client the routes use (the host's own doc client is closed by then).
      {
        signInLinks: { consume: (hash, now) => dynamoSignInLinkStore(table()).consume(hash, now) },
        sessions: consoleSessions(),
        mediaOrigin: s3.endpoint,
        assets,
      },
    );
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(options.port, '127.0.0.1', () => resolveListen());
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    started.push({
      endpoint: baseUrl,
      stop: () => new Promise<void>((done) => server.close(() => done()).closeAllConnections()),
    });
    const running: RunningHost = {
      base_url: baseUrl,
      dynamodb_endpoint: dynamoDb.endpoint,
      s3_endpoint: s3.endpoint,
      table: LOCAL_TABLE,
      bucket: LOCAL_BUCKET,
      pid: process.pid,
      allow_loopback_targets: config().host.allowLoopbackTargets,
    };
    await withS3(s3.endpoint, (client) => allowConsoleOrigins(client, LOCAL_BUCKET, [baseUrl, baseUrl.replace('127.0.0.1', 'localhost')]));
    await writeFile(runningFile(dataDir), JSON.stringify(running, null, 2));
    await lock.listening(baseUrl);

    return {
      baseUrl,
      workflows,
      apiKey,
      accountId,
      dataDir,
      sandboxed: sandbox !== undefined,
      consoleUrl: `${baseUrl}/console/`,
      signInLink: signInLink(baseUrl, signInToken),
      consoleBuilt: assets !== undefined,
      stop: async () => {
        await rm(runningFile(dataDir), { force: true });
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
