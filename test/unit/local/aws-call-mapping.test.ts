import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iamRequestsOf, UNMAPPED, type IamRequest } from '../../../functions/local/aws-calls/iam-mapping.js';
import { arns, canonicalArn, ResourceNames, stateMachineVariable, symbol } from '../../../functions/local/aws-calls/vocabulary.js';
import { workflows } from '../../../functions/workflows/registry.js';
import { stateMachineArnVariable } from '../../../infra/stack.js';

const names = new ResourceNames(
  {
    TABLE_NAME: 'local-table',
    MEDIA_BUCKET: 'local-bucket',
    ANALYSIS_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:MediaScanner-analysis',
    CURSOR_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorSecret-AbCdEf',
  },
  Object.keys(workflows),
);
const map = (clientName: string, commandName: string, input: Record<string, unknown>): IamRequest[] => iamRequestsOf({ clientName, commandName, input }, names);

const table = arns.table('<Table>');
const object = (key: string) => arns.object('<MediaBucket>', key);

describe('DynamoDB', () => {
  it('authorises each TransactWriteItems entry as its own item action, with the enclosing operation', () => {
    const context = { 'dynamodb:EnclosingOperation': 'TransactWriteItems' };
    expect(
      map('DynamoDBClient', 'TransactWriteItemsCommand', {
        TransactItems: [
          { Put: { TableName: 'local-table', Item: {} } },
          { Update: { TableName: 'local-table', Key: {} } },
          { Delete: { TableName: 'local-table', Key: {} } },
          { ConditionCheck: { TableName: 'other-table', Key: {} } },
        ],
      }),
    ).toEqual([
      { action: 'dynamodb:PutItem', resource: table, context },
      { action: 'dynamodb:UpdateItem', resource: table, context },
      { action: 'dynamodb:DeleteItem', resource: table, context },
      { action: 'dynamodb:ConditionCheckItem', resource: arns.table('other-table'), context },
    ]);
  });

  it('authorises TransactGetItems entries as GetItem', () => {
    expect(map('DynamoDBClient', 'TransactGetItemsCommand', { TransactItems: [{ Get: { TableName: 'local-table', Key: {} } }] })).toEqual([
      { action: 'dynamodb:GetItem', resource: table, context: { 'dynamodb:EnclosingOperation': 'TransactGetItems' } },
    ]);
  });

  it('authorises BatchWriteItem and BatchGetItem once per table', () => {
    expect(map('DynamoDBClient', 'BatchWriteItemCommand', { RequestItems: { 'local-table': [{}, {}], other: [{}] } })).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: table },
      { action: 'dynamodb:BatchWriteItem', resource: arns.table('other') },
    ]);
    expect(map('DynamoDBClient', 'BatchGetItemCommand', { RequestItems: { 'local-table': {} } })).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: table },
    ]);
  });

  it('authorises Query and Scan on the index they name, other operations on the table', () => {
    expect(map('DynamoDBClient', 'QueryCommand', { TableName: 'local-table', IndexName: 'GSI1' })).toEqual([
      { action: 'dynamodb:Query', resource: arns.index('<Table>', 'GSI1') },
    ]);
    expect(map('DynamoDBClient', 'ScanCommand', { TableName: 'local-table', IndexName: 'GSI2' })).toEqual([
      { action: 'dynamodb:Scan', resource: `${table}/index/GSI2` },
    ]);
    expect(map('DynamoDBClient', 'QueryCommand', { TableName: 'local-table' })).toEqual([{ action: 'dynamodb:Query', resource: table }]);
    expect(map('DynamoDBClient', 'UpdateItemCommand', { TableName: 'local-table', IndexName: 'ignored' })).toEqual([
      { action: 'dynamodb:UpdateItem', resource: table },
    ]);
  });
});

describe('S3', () => {
  it('authorises multipart uploads as PutObject, and ListParts as ListMultipartUploadParts', () => {
    for (const command of ['CreateMultipartUploadCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand']) {
      expect(map('S3Client', command, { Bucket: 'local-bucket', Key: 'accounts/a/u', UploadId: 'x' }), command).toEqual([
        { action: 's3:PutObject', resource: object('accounts/a/u') },
      ]);
    }
    expect(map('S3Client', 'ListPartsCommand', { Bucket: 'local-bucket', Key: 'accounts/a/u', UploadId: 'x' })).toEqual([
      { action: 's3:ListMultipartUploadParts', resource: object('accounts/a/u') },
    ]);
    expect(map('S3Client', 'AbortMultipartUploadCommand', { Bucket: 'local-bucket', Key: 'k', UploadId: 'x' })).toEqual([
      { action: 's3:AbortMultipartUpload', resource: object('k') },
    ]);
  });

  it('authorises HeadObject as GetObject, plus ListBucket for its 404 on a missing key', () => {
    expect(map('S3Client', 'HeadObjectCommand', { Bucket: 'local-bucket', Key: 'k' })).toEqual([
      { action: 's3:GetObject', resource: object('k') },
      { action: 's3:ListBucket', resource: arns.bucket('<MediaBucket>') },
    ]);
  });

  it('adds the tagging and ACL actions a write with tags or an ACL needs, and the source of a copy', () => {
    expect(map('S3Client', 'PutObjectCommand', { Bucket: 'local-bucket', Key: 'k', Tagging: 'retention=x' }).map((r) => r.action)).toEqual([
      's3:PutObject',
      's3:PutObjectTagging',
    ]);
    expect(map('S3Client', 'CreateMultipartUploadCommand', { Bucket: 'local-bucket', Key: 'k', Tagging: 'a=b', ACL: 'private' }).map((r) => r.action)).toEqual([
      's3:PutObject',
      's3:PutObjectTagging',
      's3:PutObjectAcl',
    ]);
    expect(map('S3Client', 'CopyObjectCommand', { Bucket: 'local-bucket', Key: 'to', CopySource: 'local-bucket/from%20here?versionId=1' })).toEqual([
      { action: 's3:PutObject', resource: object('to') },
      { action: 's3:GetObject', resource: object('from here') },
    ]);
  });

  it('uses the ...Version actions when a version is named, and one DeleteObject per key of DeleteObjects', () => {
    expect(map('S3Client', 'GetObjectCommand', { Bucket: 'local-bucket', Key: 'k', VersionId: 'v' })).toEqual([
      { action: 's3:GetObjectVersion', resource: object('k') },
    ]);
    expect(map('S3Client', 'DeleteObjectsCommand', { Bucket: 'local-bucket', Delete: { Objects: [{ Key: 'a' }, { Key: 'b', VersionId: 'v' }] } })).toEqual([
      { action: 's3:DeleteObject', resource: object('a') },
      { action: 's3:DeleteObjectVersion', resource: object('b') },
    ]);
  });

  it('authorises bucket operations on the bucket, and names other buckets as they are', () => {
    expect(map('S3Client', 'ListObjectsV2Command', { Bucket: 'local-bucket' })).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::<MediaBucket>' }]);
    expect(map('S3Client', 'GetObjectCommand', { Bucket: 'someone-else', Key: 'k' })).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::someone-else/k' },
    ]);
  });
});

describe('other services', () => {
  it('names the cursor secret by its configured ARN or by the stand-in variable, other secrets by name with the ARN suffix', () => {
    const cursor = [{ action: 'secretsmanager:GetSecretValue', resource: arns.secret('<CursorSecret>') }];
    expect(
      map('SecretsManagerClient', 'GetSecretValueCommand', { SecretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorSecret-AbCdEf' }),
    ).toEqual(cursor);
    expect(map('SecretsManagerClient', 'GetSecretValueCommand', { SecretId: '${CURSOR_SECRET_ARN}' })).toEqual(cursor);
    expect(map('SecretsManagerClient', 'GetSecretValueCommand', { SecretId: 'openai-key' })).toEqual([
      { action: 'secretsmanager:GetSecretValue', resource: 'arn:aws:secretsmanager:<Region>:<Account>:secret:openai-key-xxxxxx' },
    ]);
  });

  it('authorises PutEvents per entry on its bus: the service bus, or the default one', () => {
    expect(map('EventBridgeClient', 'PutEventsCommand', { Entries: [{ EventBusName: '${EVENT_BUS_NAME}' }, {}] })).toEqual([
      { action: 'events:PutEvents', resource: arns.eventBus('<EventBus>') },
      { action: 'events:PutEvents', resource: arns.eventBus('default') },
    ]);
  });

  it('authorises StartExecution on the configured state machine by its workflow name', () => {
    expect(
      map('SFNClient', 'StartExecutionCommand', { stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:MediaScanner-analysis', name: 'x' }),
    ).toEqual([{ action: 'states:StartExecution', resource: arns.stateMachine('<analysis>') }]);
    expect(map('SFNClient', 'StartExecutionCommand', { stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:other' })).toEqual([
      { action: 'states:StartExecution', resource: 'arn:aws:states:<Region>:<Account>:stateMachine:other' },
    ]);
  });

  it('authorises Converse as InvokeModel on the model, or on an inference profile and its model', () => {
    expect(map('BedrockRuntimeClient', 'ConverseCommand', { modelId: 'anthropic.claude-v2' })).toEqual([
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:<Region>::foundation-model/anthropic.claude-v2' },
    ]);
    expect(map('BedrockRuntimeClient', 'ConverseCommand', { modelId: 'eu.anthropic.claude-v2' })).toEqual([
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:<Region>:<Account>:inference-profile/eu.anthropic.claude-v2' },
      { action: 'bedrock:InvokeModel', resource: 'arn:aws:bedrock:<Region>::foundation-model/anthropic.claude-v2' },
    ]);
  });

  it('authorises a transcription job on the job, and the media it reads and the output it writes on the bucket', () => {
    expect(
      map('TranscribeClient', 'StartTranscriptionJobCommand', {
        TranscriptionJobName: 'mss-1',
        Media: { MediaFileUri: 's3://local-bucket/accounts/a/u' },
        OutputBucketName: 'local-bucket',
        OutputKey: 'transcripts/mss-1.json',
      }),
    ).toEqual([
      { action: 'transcribe:StartTranscriptionJob', resource: 'arn:aws:transcribe:<Region>:<Account>:transcription-job/mss-1' },
      { action: 's3:GetObject', resource: object('accounts/a/u') },
      { action: 's3:PutObject', resource: object('transcripts/mss-1.json') },
    ]);
  });

  it('authorises SQS calls on the queue, by URL or ARN, the batch ones as the single message’s action', () => {
    const queue = [{ action: 'sqs:SendMessage', resource: arns.queue('<WebhookQueue>') }];
    expect(map('SQSClient', 'SendMessageCommand', { QueueUrl: '${WEBHOOK_QUEUE_URL}', MessageBody: '{}' })).toEqual(queue);
    expect(map('SQSClient', 'SendMessageBatchCommand', { QueueUrl: '${WEBHOOK_QUEUE_URL}', Entries: [] })).toEqual(queue);
    expect(map('SQSClient', 'DeleteMessageCommand', { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/other' })).toEqual([
      { action: 'sqs:DeleteMessage', resource: arns.queue('other') },
    ]);
  });

  it('authorises a schedule in its group, and passing its target’s role to EventBridge Scheduler', () => {
    expect(
      map('SchedulerClient', 'CreateScheduleCommand', {
        Name: 'dlv_1-20260101T000000',
        GroupName: '${WEBHOOK_SCHEDULE_GROUP}',
        Target: { Arn: '${WEBHOOK_QUEUE_ARN}', RoleArn: '${WEBHOOK_SCHEDULER_ROLE_ARN}' },
      }),
    ).toEqual([
      { action: 'scheduler:CreateSchedule', resource: arns.schedule('<WebhookScheduleGroup>', 'dlv_1-20260101T000000') },
      { action: 'iam:PassRole', resource: arns.role('<WebhookSchedulerRole>'), context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    ]);
  });

  it('authorises what Step Functions does for a state machine: Invoke, RunTask on a family’s latest revision, DescribeTasks, the .sync rule', () => {
    expect(map('LambdaClient', 'InvokeCommand', { FunctionName: 'arn:aws:lambda:eu-west-1:123456789012:function:f', Qualifier: 'live' })).toEqual([
      { action: 'lambda:InvokeFunction', resource: `${arns.function('f')}:live` },
    ]);
    expect(map('ECSClient', 'RunTaskCommand', { taskDefinition: 'family' })).toEqual([
      { action: 'ecs:RunTask', resource: arns.taskDefinition('family:<Revision>') },
    ]);
    expect(map('ECSClient', 'RunTaskCommand', { taskDefinition: 'family:7', overrides: { taskRoleArn: 'arn:aws:iam::123456789012:role/r' } })).toEqual([
      { action: 'ecs:RunTask', resource: arns.taskDefinition('family:7') },
      { action: 'iam:PassRole', resource: arns.role('r'), context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
    ]);
    expect(
      map('ECSClient', 'DescribeTasksCommand', {
        cluster: 'arn:aws:ecs:eu-west-1:123456789012:cluster/c',
        tasks: ['t1', 'arn:aws:ecs:eu-west-1:123456789012:task/c/t2'],
      }),
    ).toEqual([
      { action: 'ecs:DescribeTasks', resource: arns.ecsTask('c', 't1') },
      { action: 'ecs:DescribeTasks', resource: arns.ecsTask('c', 't2') },
    ]);
    expect(map('EventBridgeClient', 'PutTargetsCommand', { Rule: 'StepFunctionsGetEventsForECSTaskRule', Targets: [] })).toEqual([
      { action: 'events:PutTargets', resource: 'arn:aws:events:<Region>:<Account>:rule/StepFunctionsGetEventsForECSTaskRule' },
    ]);
  });

  it('authorises what ECS does for a task’s execution role: the image pull on its repository, the log stream in its group', () => {
    expect(map('ECRClient', 'GetAuthorizationTokenCommand', {})).toEqual([{ action: 'ecr:GetAuthorizationToken', resource: '*' }]);
    expect(map('ECRClient', 'BatchGetImageCommand', { repositoryName: 'images' })).toEqual([
      { action: 'ecr:BatchGetImage', resource: arns.repository('images') },
    ]);
    expect(map('CloudWatchLogsClient', 'PutLogEventsCommand', { logGroupName: 'g', logStreamName: 'p/c/t' })).toEqual([
      { action: 'logs:PutLogEvents', resource: 'arn:aws:logs:<Region>:<Account>:log-group:g:log-stream:p/c/t' },
    ]);
    expect(map('CognitoIdentityProviderClient', 'AdminDisableUserCommand', { UserPoolId: 'eu-west-1_Example', Username: 'owner@example.com' })).toEqual([
      { action: 'cognito-idp:AdminDisableUser', resource: 'arn:aws:cognito-idp:<Region>:<Account>:userpool/eu-west-1_Example' },
    ]);
  });

  it('maps a command it does not know to a resource the check reports as unmapped', () => {
    expect(map('S3Client', 'SelectObjectContentCommand', { Bucket: 'b', Key: 'k' })).toEqual([{ action: 's3:SelectObjectContent', resource: UNMAPPED }]);
    expect(map('KinesisClient', 'PutRecordCommand', {})).toEqual([{ action: 'kinesis:PutRecord', resource: UNMAPPED }]);
  });
});

describe('the service’s own SDK calls', () => {
  /** Every `...Command` a module under functions/ names from an `@aws-sdk/client-*` package it imports, by client. */
  async function commandsSent(): Promise<[client: string, command: string][]> {
    const root = join(import.meta.dirname, '..', '..', '..', 'functions');
    const sent = new Set<string>();
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join(root, file), 'utf8');
      const names = new Set(Array.from(source.matchAll(/\b([A-Z]\w*Command)\b/g), (m) => m[1]!));
      for (const packageName of new Set(Array.from(source.matchAll(/'(@aws-sdk\/client-[a-z-]+)'/g), (m) => m[1]!))) {
        const exports = (await import(packageName)) as Record<string, unknown>;
        const client = Object.keys(exports).find((name) => name.endsWith('Client') && name !== '__Client')!;
        for (const name of names) if (name in exports) sent.add(`${client} ${name}`);
      }
    }
    return [...sent].sort().map((entry) => entry.split(' ') as [string, string]);
  }

  it('each has an entry in the mapping', async () => {
    const commands = await commandsSent();
    expect(commands).toEqual(
      expect.arrayContaining([
        ['SQSClient', 'SendMessageCommand'],
        ['SchedulerClient', 'CreateScheduleCommand'],
        ['BedrockRuntimeClient', 'ConverseCommand'],
      ]),
    );
    expect(commands.filter(([client, command]) => map(client, command, {}).some((request) => request.resource === UNMAPPED))).toEqual([]);
  }, 30_000);
});

describe('vocabulary', () => {
  it('names state machine variables as the CDK stack does', () => {
    for (const workflow of Object.keys(workflows)) expect(stateMachineVariable(workflow)).toBe(stateMachineArnVariable(workflow));
  });

  it('writes real ARNs with region and account tokens', () => {
    expect(canonicalArn('arn:aws-cn:dynamodb:cn-north-1:123456789012:table/t')).toBe('arn:aws:dynamodb:<Region>:<Account>:table/t');
    expect(canonicalArn('arn:aws:s3:::bucket/key:with:colons')).toBe('arn:aws:s3:::bucket/key:with:colons');
    expect(symbol('Table')).toBe('<Table>');
  });
});

describe('Lambda', () => {
  const resolver = arns.function('<ProviderResolver>');
  const withResolver = new ResourceNames({ PROVIDER_RESOLVER_FUNCTION: 'MediaScanner-ProviderResolver-Abc' }, []);

  it('authorises Invoke as lambda:InvokeFunction on the function, by name, ARN or the local stand-in', () => {
    const invoke = (FunctionName: string) => iamRequestsOf({ clientName: 'LambdaClient', commandName: 'InvokeCommand', input: { FunctionName } }, withResolver);
    expect(invoke('MediaScanner-ProviderResolver-Abc')).toEqual([{ action: 'lambda:InvokeFunction', resource: resolver }]);
    expect(invoke('${PROVIDER_RESOLVER_FUNCTION}')).toEqual([{ action: 'lambda:InvokeFunction', resource: resolver }]);
    expect(invoke('MediaScanner-ProviderResolver-Abc:live')).toEqual([{ action: 'lambda:InvokeFunction', resource: `${resolver}:live` }]);
    expect(invoke('arn:aws:lambda:eu-west-1:123456789012:function:other')).toEqual([{ action: 'lambda:InvokeFunction', resource: arns.function('other') }]);
  });
});
