/**
 * The recorder on the service's own clients: what the middleware sees of sent commands, of the
 * document client's and of presigned URLs, which unit it attributes calls to, and the stand-ins.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients } from '../../../functions/adapters/dynamodb-clients.js';
import { createS3Client } from '../../../functions/adapters/s3-client.js';
import { installAwsCallHooks } from '../../../functions/adapters/aws-call-hooks.js';
import { localEventBus } from '../../../functions/adapters/events/local-event-bus.js';
import { s3MediaStore } from '../../../functions/adapters/media/s3-media-store.js';
import { parseConfig } from '../../../functions/config.js';
import { inUnit } from '../../../functions/local/unit-context.js';
import {
  childProcessRecording,
  invokedBy,
  recordCursorSecretRead,
  recordWorkflowCall,
  runBy,
  startCallRecording,
  type RecordedCall,
} from '../../../functions/local/aws-calls/recorder.js';
import { arns, principals } from '../../../functions/local/aws-calls/vocabulary.js';
import { LocalDeliveryScheduler } from '../../../functions/local/webhook-scheduler.js';
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
      {
        unit: 'task:analysis/PlanChunksFunction',
        action: 'dynamodb:ConditionCheckItem',
        resource: arns.table('<Table>'),
        call: 'DynamoDB.TransactWriteItems',
        via: 'sdk',
        context,
      },
      {
        unit: 'task:analysis/PlanChunksFunction',
        action: 'dynamodb:UpdateItem',
        resource: arns.table('<Table>'),
        call: 'DynamoDB.TransactWriteItems',
        via: 'sdk',
        context,
      },
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
      await localEventBus(join(directory, 'events.ndjson')).publish('acct_1', {
        id: 'evt_1',
        type: 'run.completed',
        created_at: new Date().toISOString(),
        data: { object: {} },
      } as never);
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

describe('the roles AWS services assume', () => {
  const actionsOf = (unit: string) => recordedFor(unit).map(({ action, resource }) => [action, resource]);

  it('a Task state’s function is invoked with its state machine’s role, then runs as its own unit', async () => {
    const handler = invokedBy('batch', 'PlanBatchFunction', (input: number) => Promise.resolve(input + 1));
    await expect(handler(1)).resolves.toBe(2);
    expect(actionsOf(principals.stateMachine('batch'))).toEqual([['lambda:InvokeFunction', arns.function('<task:batch/PlanBatchFunction>')]]);
  });

  it('a container task is run, passed its roles and described by the state machine, its image pulled and logs written by its execution role, also when it fails', async () => {
    const unit = units.container('render', 'RenderTaskDefinitionArn');
    const run = runBy('render', unit, () => Promise.reject(new Error('exit 1')));
    await expect(run({})).rejects.toThrow('exit 1');
    const logStream = arns.logStream(`<${unit} log group>`, 'render-moment/render-moment/<TaskId>');
    expect(recordedFor(principals.stateMachine('render')).map(({ action, resource, context }) => [action, resource, context])).toEqual([
      ['ecs:RunTask', arns.taskDefinition(`<${unit}>:<Revision>`), undefined],
      ['events:PutRule', 'arn:aws:events:<Region>:<Account>:rule/StepFunctionsGetEventsForECSTaskRule', undefined],
      ['events:PutTargets', 'arn:aws:events:<Region>:<Account>:rule/StepFunctionsGetEventsForECSTaskRule', undefined],
      ['events:DescribeRule', 'arn:aws:events:<Region>:<Account>:rule/StepFunctionsGetEventsForECSTaskRule', undefined],
      ['iam:PassRole', arns.role(`<${unit} task role>`), { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' }],
      ['iam:PassRole', arns.role(`<${unit} execution role>`), { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' }],
      ['ecs:DescribeTasks', arns.ecsTask('<ContainerCluster>', '<TaskId>'), undefined],
    ]);
    expect(actionsOf(principals.ecsExecution(unit))).toEqual([
      ['ecr:GetAuthorizationToken', '*'],
      ['ecr:BatchGetImage', arns.repository('<ContainerImageRepository>')],
      ['ecr:GetDownloadUrlForLayer', arns.repository('<ContainerImageRepository>')],
      ['logs:CreateLogStream', logStream],
      ['logs:PutLogEvents', logStream],
    ]);
  });

  it('a delivery woken within 15 minutes on AWS is an SQS message of the caller; later, a schedule whose send is the Scheduler’s when due', async () => {
    const attempted: string[] = [];
    // The integration suite's compression: 30 minutes on AWS are 0.18 s here.
    const scheduler = new LocalDeliveryScheduler({
      deliveries: { listDue: () => Promise.resolve([]) },
      attempt: (_, id) => Promise.resolve(attempted.push(id)),
      warn: () => undefined,
      retryScale: () => 0.0001,
    });
    const sender = units.webhookSender;
    await inUnit(sender, async () => {
      await scheduler.schedule('acct_1', 'dlv_soon', new Date(Date.now() + 50)); // 500 s on AWS
      expect(actionsOf(sender)).toEqual([['sqs:SendMessage', arns.queue('<WebhookQueue>')]]);
      await scheduler.schedule('acct_1', 'dlv_later', new Date(Date.now() + 180)); // 30 min on AWS
    });
    await vi.waitFor(() => expect(attempted).toEqual(['dlv_soon', 'dlv_later']));
    await scheduler.stop();
    expect(recordedFor(sender).map(({ action, resource, context }) => [action, resource.replace(/dlv_later-\d{8}T\d{6}$/, 'dlv_later-<at>'), context])).toEqual(
      [
        ['sqs:SendMessage', arns.queue('<WebhookQueue>'), undefined],
        ['scheduler:CreateSchedule', arns.schedule('<WebhookScheduleGroup>', 'dlv_later-<at>'), undefined],
        ['iam:PassRole', arns.role('<WebhookSchedulerRole>'), { 'iam:PassedToService': 'scheduler.amazonaws.com' }],
      ],
    );
    expect(actionsOf(principals.scheduler)).toEqual([['sqs:SendMessage', arns.queue('<WebhookQueue>')]]);
  });
});
