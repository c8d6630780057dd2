/**
 * The recorder on the service's own clients: what the middleware sees of sent commands, of the
 * document client's and of presigned URLs, which unit it attributes calls to, and the stand-ins.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClients } from '../../../functions/adapters/dynamodb-clients.js';
import { createS3Client } from '../../../functions/adapters/s3-client.js';
import { installAwsCallHooks } from '../../../functions/adapters/aws-call-hooks.js';
import { localEventBus } from '../../../functions/adapters/events/local-event-bus.js';
import { s3MediaStore } from '../../../functions/adapters/media/s3-media-store.js';
import { parseConfig } from '../../../functions/config.js';
import { inUnit } from '../../../functions/local/unit-context.js';
import { childProcessRecording, recordCursorSecretRead, recordWorkflowCall, startCallRecording, type RecordedCall } from '../../../functions/local/aws-calls/recorder.js';
import { arns } from '../../../functions/local/aws-calls/vocabulary.js';
import { units } from '../../../functions/runtime/contracts.js';

const directory = mkdtempSync(join(tmpdir(), 'mss-aws-calls-'));
const file = join(directory, 'calls.ndjson');
const env = {
  TABLE_NAME: 'unit-table',
  MEDIA_BUCKET: 'unit-bucket',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'y',
  CURSOR_SECRET: 'c'.repeat(32),
  S3_ENDPOINT: 'http://127.0.0.1:1',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
};
const config = parseConfig(env);
const route = units.route('POST /v1/uploads');

/** Everything recorded so far. */
const recorded = (): RecordedCall[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedCall);
const recordedFor = (unit: string) => recorded().filter((call) => call.unit === unit);

beforeAll(() => {
  Object.assign(process.env, env);
  startCallRecording(file);
});

afterAll(() => {
  installAwsCallHooks(undefined);
  rmSync(directory, { recursive: true, force: true });
});

describe('SDK calls', () => {
  it('sees the document client’s commands as the low-level operations, per item of a transaction', async () => {
    const { doc, dynamo } = createDynamoDbClients(config);
    // Answer before the network: the recorder runs at the initialize step, before this one.
    dynamo.middlewareStack.add(() => () => Promise.resolve({ output: { $metadata: {} }, response: {} }), { step: 'build', name: 'answerLocally' });
    await inUnit(units.task('analysis', 'PlanChunksFunction'), () =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: 'unit-table', Key: { PK: 'a', SK: 'b' }, ConditionExpression: 'attribute_exists(PK)' } },
            { Update: { TableName: 'unit-table', Key: { PK: 'a', SK: 'c' }, UpdateExpression: 'SET x = :x', ExpressionAttributeValues: { ':x': 1 } } },
          ],
        }),
      ),
    );
    const context = { 'dynamodb:EnclosingOperation': 'TransactWriteItems' };
    expect(recordedFor(units.task('analysis', 'PlanChunksFunction'))).toEqual([
      { unit: 'task:analysis/PlanChunksFunction', action: 'dynamodb:ConditionCheckItem', resource: arns.table('<Table>'), call: 'DynamoDB.TransactWriteItems', via: 'sdk', context },
      { unit: 'task:analysis/PlanChunksFunction', action: 'dynamodb:UpdateItem', resource: arns.table('<Table>'), call: 'DynamoDB.TransactWriteItems', via: 'sdk', context },
    ]);
  });

  it('sees presigned URLs as the command they sign, made by the unit that signs them', async () => {
    const media = s3MediaStore(createS3Client(config), config.MEDIA_BUCKET);
    await inUnit(route, async () => {
      await media.signPut('accounts/a/u1', 'video/mp4', { retention: 'standard' }, new Date(Date.now() + 60_000));
      await media.signParts('accounts/a/u2', 'mp-1', [{ partNumber: 1, sizeBytes: 5 }], new Date(Date.now() + 60_000));
      await media.signGet('accounts/a/u3', 60);
    });
    const object = (key: string) => arns.object('<MediaBucket>', key);
    expect(recordedFor(route).map(({ action, resource, call }) => [action, resource, call])).toEqual([
      ['s3:PutObject', object('accounts/a/u1'), 'S3.PutObject'],
      ['s3:PutObjectTagging', object('accounts/a/u1'), 'S3.PutObject'],
      ['s3:PutObject', object('accounts/a/u2'), 'S3.UploadPart'],
      ['s3:GetObject', object('accounts/a/u3'), 'S3.GetObject'],
    ]);
  });

  it('writes each distinct call once, and calls outside any unit as the host’s', async () => {
    const media = s3MediaStore(createS3Client(config), config.MEDIA_BUCKET);
    await inUnit(route, () => media.signGet('accounts/a/u3', 60));
    await media.signGet('accounts/a/u4', 60);
    expect(recordedFor(route).filter((call) => call.resource.endsWith('/u3'))).toHaveLength(1);
    expect(recordedFor(units.host).map((call) => call.resource)).toEqual([arns.object('<MediaBucket>', 'accounts/a/u4')]);
  });
});

describe('stand-ins', () => {
  it('records the cursor secret read of each unit that pages a list, and events published on the local bus', async () => {
    const unit = units.task('analysis', 'CompleteRunFunction');
    await inUnit(unit, async () => {
      recordCursorSecretRead();
      await localEventBus(join(directory, 'events.ndjson')).publish('acct_1', { id: 'evt_1', type: 'run.completed', created_at: new Date().toISOString(), data: { object: {} } } as never);
      recordWorkflowCall('SendTaskSuccess', 'batch');
      recordWorkflowCall('StartExecution', 'analysis');
    });
    expect(recordedFor(unit).map(({ action, resource, via }) => [action, resource, via])).toEqual([
      ['secretsmanager:GetSecretValue', arns.secret('<CursorSecret>'), 'stand-in'],
      ['events:PutEvents', arns.eventBus('<EventBus>'), 'stand-in'],
      ['states:SendTaskSuccess', arns.stateMachine('<batch>'), 'stand-in'],
      ['states:StartExecution', arns.stateMachine('<analysis>'), 'stand-in'],
    ]);
  });

  it('gives a container task’s child process a preload and its unit', async () => {
    const child = await childProcessRecording(units.container('analysis', 'SignalsTaskDefinitionArn'));
    expect(child.env).toEqual({ AWS_CALL_LOG: file, AWS_CALL_UNIT: 'container:analysis/SignalsTaskDefinitionArn' });
    expect(child.execArgv[0]).toBe('--import');
    expect(child.execArgv[1]).toMatch(/^file:.*aws-call-recorder-\d+\.mjs$/);
    rmSync(fileURLToPath(child.execArgv[1]!), { force: true });
  }, 30_000);
});
