/**
 * The permission check on calls written here, against the real synthesized template: it finds
 * the grant mismatches issue 10 found (each shown against the template as it shipped, with the
 * grant taken out again), names unit, action and resource, passes calls that are granted, and
 * fails once a grant is taken away; the roles AWS services assume (state machines, EventBridge
 * Scheduler, ECS execution) are checked the same way, and a call the IAM mapping does not know fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../functions/local/aws-calls/recorder.js';
import { iamRequestsOf } from '../../functions/local/aws-calls/iam-mapping.js';
import {
  arns,
  CONTAINER_CLUSTER,
  CONTAINER_IMAGE_REPOSITORY,
  principals,
  ResourceNames,
  symbol,
  unitSymbols,
} from '../../functions/local/aws-calls/vocabulary.js';
import { workflows } from '../../functions/workflows/registry.js';
import { units } from '../../functions/runtime/contracts.js';
import { checkPermissions, formatViolations, unitRoles, type PolicyStatement, type TemplateJson } from '../helpers/iam-policy.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS } from '../infra/shared-assembly.js';
import { synthesize } from '../infra/synth.js';
import { templateForCheck } from './template.js';

let template: TemplateJson;

beforeAll(async () => {
  ({ template } = await templateForCheck());
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const table = arns.table(symbol('Table'));
const cursorSecret = arns.secret(symbol('CursorSecret'));
const uploadObject = arns.object(symbol('MediaBucket'), 'accounts/acct_0198/uploads/upl_0198/source');
const completeUpload = units.route('POST /v1/uploads/{upload_id}/complete');
const planChunks = units.task('analysis', 'PlanChunksFunction');
const analyzeChunk = units.task('analysis', 'AnalyzeChunkFunction');

const call = (unit: string, action: string, resource: string, via: RecordedCall['via'] = 'sdk'): RecordedCall => ({
  unit,
  action,
  resource,
  call: action,
  via,
});
const check = (calls: RecordedCall[], against: TemplateJson = template) => checkPermissions(against, calls);

/** Names as the local host has them: its own table and bucket, and none for what only AWS has (`${VARIABLE}`). */
const localNames = new ResourceNames({ TABLE_NAME: 'local-table', MEDIA_BUCKET: 'local-bucket' }, Object.keys(workflows));
/** An SDK call (or the call AWS makes for a service), recorded as `unit` through the IAM mapping. */
const asRecorded = (unit: string, clientName: string, commandName: string, input: Record<string, unknown>): RecordedCall[] =>
  iamRequestsOf({ clientName, commandName, input }, localNames).map((request) => ({ unit, ...request, call: commandName, via: 'sdk' }));

describe('the three mismatches of issue 10', () => {
  it('the authorizer reading the cursor secret (as getServices did at cold start) has no grant on it', () => {
    const { violations } = check([call(units.authorizer, 'secretsmanager:GetSecretValue', cursorSecret, 'stand-in')]);
    expect(violations).toEqual([expect.objectContaining({ unit: 'authorizer', action: 'secretsmanager:GetSecretValue', resource: cursorSecret })]);
    expect(violations[0]!.reason).toBe('no statement of the role allows it');
    expect(formatViolations(violations)).toContain(`authorizer   (role ${unitRoles(template).get(units.authorizer)!.roleId})`);
  });

  it('PlanChunks and AnalyzeChunk update the table (recordChunkPlan, recordChunkDone): granted now, refused on read-only grants', () => {
    const calls = [
      call(planChunks, 'dynamodb:UpdateItem', table),
      call(analyzeChunk, 'dynamodb:UpdateItem', table),
      call(planChunks, 'dynamodb:GetItem', table),
    ];
    expect(check(calls).violations).toEqual([]);
    const { violations } = check(calls, withoutAction([planChunks, analyzeChunk], 'dynamodb:UpdateItem'));
    expect(violations.map((v) => [v.unit, v.action, v.resource])).toEqual([
      [planChunks, 'dynamodb:UpdateItem', table],
      [analyzeChunk, 'dynamodb:UpdateItem', table],
    ]);
  });

  it('completing a multipart upload lists its parts (ListParts needs s3:ListMultipartUploadParts): granted now, refused without it', () => {
    const calls = [call(completeUpload, 's3:ListMultipartUploadParts', uploadObject), call(completeUpload, 's3:PutObject', uploadObject)];
    expect(check(calls).violations).toEqual([]);
    const { violations } = check(calls, withoutAction([completeUpload], 's3:ListMultipartUploadParts'));
    expect(violations.map((v) => [v.unit, v.action, v.resource])).toEqual([[completeUpload, 's3:ListMultipartUploadParts', uploadObject]]);
    const text = formatViolations(violations);
    expect(text).toContain(completeUpload);
    expect(text).toContain('s3:ListMultipartUploadParts');
    expect(text).toContain(uploadObject);
  });

  it('finds them from the SDK calls themselves, through the command mapping', () => {
    const calls = [
      ...asRecorded(completeUpload, 'S3Client', 'ListPartsCommand', { Bucket: 'local-bucket', Key: 'accounts/a/u/source', UploadId: 'x' }),
      ...asRecorded(planChunks, 'DynamoDBClient', 'TransactWriteItemsCommand', {
        TransactItems: [{ ConditionCheck: { TableName: 'local-table' } }, { Update: { TableName: 'local-table' } }],
      }),
    ];
    const asShipped = withoutAction([planChunks], 'dynamodb:UpdateItem', withoutAction([completeUpload], 's3:ListMultipartUploadParts'));
    expect(check(calls, asShipped).violations.map((v) => `${v.unit} ${v.action} ${v.resource}`)).toEqual([
      `${completeUpload} s3:ListMultipartUploadParts ${arns.object(symbol('MediaBucket'), 'accounts/a/u/source')}`,
      `${planChunks} dynamodb:UpdateItem ${table}`,
    ]);
  });
});

describe('granted calls', () => {
  it('passes calls each unit is granted: table, index, bucket, secret, bus and state machines', () => {
    const { violations } = check([
      call(units.route('GET /v1/scanners'), 'secretsmanager:GetSecretValue', cursorSecret, 'stand-in'),
      call(units.authorizer, 'dynamodb:GetItem', table),
      call(units.route('GET /v1/uploads'), 'dynamodb:Query', `${table}/index/GSI1`),
      call(completeUpload, 's3:GetObject', uploadObject),
      call(completeUpload, 's3:ListBucket', arns.bucket(symbol('MediaBucket'))),
      call(units.outboxRelay, 'events:PutEvents', arns.eventBus(symbol('EventBus')), 'stand-in'),
      call(units.route('POST /v1/scanners/{scanner_id}/runs'), 'states:StartExecution', arns.stateMachine(symbol('analysis')), 'stand-in'),
      call(units.task('batch', 'SpawnItemRunFunction'), 'states:StartExecution', arns.stateMachine(symbol('analysis')), 'stand-in'),
      call(units.task('analysis', 'CompleteRunFunction'), 'states:SendTaskSuccess', arns.stateMachine(symbol('batch')), 'stand-in'),
      call(units.task('analysis', 'CompleteRunFunction'), 'dynamodb:UpdateItem', table),
      call(units.container('analysis', 'SignalsTaskDefinitionArn'), 's3:PutObject', arns.object(symbol('MediaBucket'), 'artifacts/a/b/chunks/0/signals.json')),
    ]);
    expect(formatViolations(violations)).toBe('Every recorded AWS call is allowed by its unit’s role.');
  });

  it('refuses what is granted to another unit or on another resource', () => {
    const { violations } = check([
      call(units.route('POST /v1/scanner-batches'), 'states:StartExecution', arns.stateMachine(symbol('analysis')), 'stand-in'),
      call(units.route('GET /v1/account'), 'dynamodb:GetItem', arns.table('another-table')),
      call('route:GET /v1/nowhere', 'dynamodb:GetItem', table),
    ]);
    expect(violations.map((v) => [v.unit, v.reason])).toEqual([
      ['route:POST /v1/scanner-batches', 'no statement of the role allows it'],
      ['route:GET /v1/account', 'no statement of the role allows it'],
      ['route:GET /v1/nowhere', 'the template has no role for this unit'],
    ]);
  });
});

describe('the roles AWS services assume', () => {
  const render = units.container('render', 'RenderTaskDefinitionArn');
  const sender = units.webhookSender;
  const managedRule = { Name: 'StepFunctionsGetEventsForECSTaskRule' };
  const passedToEcs = (role: string): RecordedCall => ({
    ...call(principals.stateMachine('render'), 'iam:PassRole', arns.role(role), 'stand-in'),
    context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
  });
  const logStream = { logGroupName: unitSymbols.logGroup(render), logStreamName: 'render-moment/render-moment/<TaskId>' };
  /** What recorder.ts records for a render task, a task invocation and a webhook retry scheduled 30 minutes ahead. */
  const serviceCalls = (): RecordedCall[] => [
    ...asRecorded(principals.stateMachine('analysis'), 'LambdaClient', 'InvokeCommand', { FunctionName: unitSymbols.runner(planChunks) }),
    ...asRecorded(principals.stateMachine('render'), 'ECSClient', 'RunTaskCommand', { cluster: CONTAINER_CLUSTER, taskDefinition: unitSymbols.runner(render) }),
    passedToEcs(unitSymbols.taskRole(render)),
    passedToEcs(unitSymbols.executionRole(render)),
    ...['PutRuleCommand', 'DescribeRuleCommand'].flatMap((command) => asRecorded(principals.stateMachine('render'), 'EventBridgeClient', command, managedRule)),
    ...asRecorded(principals.stateMachine('render'), 'EventBridgeClient', 'PutTargetsCommand', { Rule: managedRule.Name }),
    ...asRecorded(principals.stateMachine('render'), 'ECSClient', 'DescribeTasksCommand', { cluster: CONTAINER_CLUSTER, tasks: ['<TaskId>'] }),
    ...asRecorded(principals.ecsExecution(render), 'ECRClient', 'GetAuthorizationTokenCommand', {}),
    ...['BatchGetImageCommand', 'GetDownloadUrlForLayerCommand'].flatMap((command) =>
      asRecorded(principals.ecsExecution(render), 'ECRClient', command, { repositoryName: CONTAINER_IMAGE_REPOSITORY }),
    ),
    ...['CreateLogStreamCommand', 'PutLogEventsCommand'].flatMap((command) =>
      asRecorded(principals.ecsExecution(render), 'CloudWatchLogsClient', command, logStream),
    ),
    ...asRecorded(sender, 'SchedulerClient', 'CreateScheduleCommand', {
      Name: 'dlv_1-20260101T000000',
      GroupName: '${WEBHOOK_SCHEDULE_GROUP}',
      Target: { Arn: '${WEBHOOK_QUEUE_ARN}', RoleArn: '${WEBHOOK_SCHEDULER_ROLE_ARN}' },
    }),
    ...asRecorded(sender, 'SQSClient', 'SendMessageCommand', { QueueUrl: '${WEBHOOK_QUEUE_URL}' }),
    ...asRecorded(principals.scheduler, 'SQSClient', 'SendMessageCommand', { QueueUrl: '${WEBHOOK_QUEUE_URL}' }),
  ];

  it('finds the role of each: state machine, task execution role, the scheduler role the sender passes', () => {
    const roles = unitRoles(template);
    for (const principal of [
      principals.stateMachine('analysis'),
      principals.stateMachine('batch'),
      principals.stateMachine('render'),
      principals.ecsExecution(render),
      principals.scheduler,
    ]) {
      expect(roles.get(principal)?.roleId, principal).toMatch(/Role/);
    }
    expect(roles.get(principals.ecsExecution(render))!.roleId).not.toBe(roles.get(render)!.roleId);
  });

  it('allows what they do on AWS: invoke, RunTask on the family, PassRole to ECS, the managed rule, image pull, logs, the scheduled send', () => {
    expect(formatViolations(check(serviceCalls()).violations)).toBe('Every recorded AWS call is allowed by its unit’s role.');
  });

  it('reports a missing grant: RunTask on the task definition family, the scheduler’s SendMessage, the image pull', () => {
    const withoutGrants = withoutAction(
      [principals.ecsExecution(render)],
      'ecr:BatchGetImage',
      withoutAction([principals.scheduler], 'sqs:SendMessage', withoutAction([principals.stateMachine('render')], 'ecs:RunTask')),
    );
    expect(check(serviceCalls(), withoutGrants).violations.map((v) => [v.unit, v.action, v.resource, v.reason])).toEqual([
      [principals.stateMachine('render'), 'ecs:RunTask', arns.taskDefinition(`${unitSymbols.runner(render)}:<Revision>`), 'no statement of the role allows it'],
      [principals.ecsExecution(render), 'ecr:BatchGetImage', arns.repository(CONTAINER_IMAGE_REPOSITORY), 'no statement of the role allows it'],
      [principals.scheduler, 'sqs:SendMessage', arns.queue('<WebhookQueue>'), 'no statement of the role allows it'],
    ]);
  });

  it('reports RunTask granted on one revision only: naming the family runs whichever revision is latest', () => {
    const oneRevision = withStatementsOf(principals.stateMachine('render'), (statement) =>
      statement.Action === 'ecs:RunTask'
        ? [{ ...statement, Resource: JSON.parse(JSON.stringify(statement.Resource).replace(':*"', ':1"')) as unknown }]
        : [statement],
    );
    expect(check(serviceCalls(), oneRevision).violations.map((v) => v.action)).toEqual(['ecs:RunTask']);
  });

  it('allows PassRole only to the service its condition names', () => {
    const toLambda = { ...passedToEcs(unitSymbols.taskRole(render)), context: { 'iam:PassedToService': 'lambda.amazonaws.com' } };
    expect(check([toLambda]).violations[0]?.reason).toBe('its only matching Allow statements have conditions that do not hold');
  });
});

describe('calls the IAM mapping does not know', () => {
  it('fail, even where the role grants the action on every resource', () => {
    // Task roles grant xray:PutTraceSegments on `*` (tracing): an unmapped call must still not pass.
    const unmapped = asRecorded(planChunks, 'XRayClient', 'PutTraceSegmentsCommand', {});
    expect(unmapped).toEqual([expect.objectContaining({ action: 'xray:PutTraceSegments', resource: '<unmapped>' })]);
    expect(check(unmapped).violations.map((v) => [v.unit, v.action, v.reason])).toEqual([
      [planChunks, 'xray:PutTraceSegments', 'functions/local/aws-calls/iam-mapping.ts has no entry for this call, so what it needs is unknown'],
    ]);
  });
});

/** A copy of `from` whose statements of `unit`'s role are changed by `change`. */
function withStatementsOf(unit: string, change: (statement: PolicyStatement) => PolicyStatement[], from: TemplateJson = template): TemplateJson {
  const copy = structuredClone(from);
  const { roleId } = unitRoles(copy).get(unit)!;
  for (const resource of Object.values(copy.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const roles = resource.Properties.Roles as { Ref?: string }[] | undefined;
    if (!roles?.some((role) => role.Ref === roleId)) continue;
    const document = resource.Properties.PolicyDocument as { Statement: PolicyStatement[] };
    document.Statement = document.Statement.flatMap(change);
  }
  return copy;
}

/** A copy of `from` in which the roles of `units` are no longer granted `action`. */
function withoutAction(units: string[], action: string, from: TemplateJson = template): TemplateJson {
  return units.reduce(
    (current, unit) =>
      withStatementsOf(
        unit,
        (statement) => {
          const actions = ([] as string[]).concat(statement.Action ?? []).filter((granted) => granted !== action);
          return actions.length ? [{ ...statement, Action: actions }] : [];
        },
        current,
      ),
    from,
  );
}

describe('changed grants', () => {
  const createUpload = units.route('POST /v1/uploads');
  const presignedPut = call(createUpload, 's3:PutObject', uploadObject);

  it('fails once an existing grant is taken out of the policy', () => {
    expect(check([presignedPut]).violations).toEqual([]);
    expect(check([presignedPut], withoutAction([createUpload], 's3:PutObject')).violations).toEqual([
      expect.objectContaining({ unit: createUpload, action: 's3:PutObject', resource: uploadObject, reason: 'no statement of the role allows it' }),
    ]);
  });

  it('honours an explicit Deny over the Allow', () => {
    const denied = withStatementsOf(createUpload, (statement) => [
      statement,
      { Effect: 'Deny', Action: 's3:Put*', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/accounts/*']] } },
    ]);
    expect(check([presignedPut], denied).violations[0]?.reason).toMatch(/^explicitly denied by /);
  });

  it('does not count an Allow whose condition it cannot evaluate, and says so', () => {
    const conditioned = withStatementsOf(createUpload, (statement) =>
      ([] as string[]).concat(statement.Action ?? []).includes('s3:PutObject')
        ? [{ ...statement, Condition: { StringEquals: { 's3:x-amz-server-side-encryption': 'aws:kms' } } }]
        : [statement],
    );
    expect(check([presignedPut], conditioned).violations[0]?.reason).toMatch(/under a condition the check cannot evaluate .*treated as not granting/);
  });

  it('evaluates the conditions it knows: transactions carry dynamodb:EnclosingOperation', () => {
    const transactionsOnly = withStatementsOf(planChunks, (statement) =>
      ([] as string[]).concat(statement.Action ?? []).includes('dynamodb:GetItem')
        ? [{ ...statement, Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:EnclosingOperation': ['TransactWriteItems', 'TransactGetItems'] } } }]
        : [statement],
    );
    const get = call(planChunks, 'dynamodb:GetItem', table);
    expect(check([get], transactionsOnly).violations[0]?.reason).toMatch(/condition/);
    expect(check([{ ...get, context: { 'dynamodb:EnclosingOperation': 'TransactGetItems' } }], transactionsOnly).violations).toEqual([]);
  });
});

describe('Amazon Transcribe, which only AWS runs (the integration recording never has it)', () => {
  const poller = units.task('analysis', 'AwaitTranscriptFunction');
  const stagers = [units.task('analysis', 'ExtractChunkSignalsFunction'), units.container('analysis', 'SignalsTaskDefinitionArn')];
  const transcripts = 'artifacts/transcripts/media-scanner-0123';
  /** One chunk's calls as the adapter and AwaitTranscript make them (their inputs: test/unit/adapters/engines/aws-transcribe.test.ts). */
  const chunkCalls = (): RecordedCall[] => [
    ...stagers.flatMap((unit) => asRecorded(unit, 'S3Client', 'PutObjectCommand', { Bucket: 'local-bucket', Key: `${transcripts}.flac` })),
    ...['GetTranscriptionJobCommand', 'DeleteTranscriptionJobCommand'].flatMap((command) =>
      asRecorded(poller, 'TranscribeClient', command, { TranscriptionJobName: 'media-scanner-0123' }),
    ),
    ...asRecorded(poller, 'TranscribeClient', 'StartTranscriptionJobCommand', {
      TranscriptionJobName: 'media-scanner-0123',
      Media: { MediaFileUri: `s3://local-bucket/${transcripts}.flac` },
      OutputBucketName: 'local-bucket',
      OutputKey: `${transcripts}.json`,
    }),
    ...asRecorded(poller, 'S3Client', 'GetObjectCommand', { Bucket: 'local-bucket', Key: `${transcripts}.json` }),
    ...['GetObjectCommand', 'PutObjectCommand'].flatMap((command) =>
      asRecorded(poller, 'S3Client', command, { Bucket: 'local-bucket', Key: 'artifacts/acct_1/ana_1/chunks/0/signals.json' }),
    ),
  ];

  it(
    'grants every call of a chunk’s job in a deployment configured for it, and none in the default one',
    () => {
      const synthesized = synthesize({ bundle: false, cdkJson: { transcriber: 'aws-transcribe' } });
      try {
        expect(formatViolations(check(chunkCalls(), synthesized.template.toJSON() as TemplateJson).violations)).toBe(formatViolations([]));
      } finally {
        synthesized.dispose();
      }
      expect(new Set(check(chunkCalls()).violations.map((v) => v.action))).toEqual(
        new Set(['transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob', 'transcribe:StartTranscriptionJob']),
      );
    },
    SHARED_ASSEMBLY_TIMEOUT_MS,
  );
});

/** The media bucket's logical id, read from the template as the check does (MEDIA_BUCKET's Ref). */
function bucketId(): string {
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const bucket = ((resource.Properties.Environment as { Variables?: Record<string, { Ref?: string }> } | undefined)?.Variables ?? {}).MEDIA_BUCKET?.Ref;
    if (bucket) return bucket;
  }
  throw new Error('No function names the media bucket');
}
