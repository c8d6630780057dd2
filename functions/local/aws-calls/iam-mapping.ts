/**
 * What IAM authorises for one AWS SDK v3 command: the actions and the resource ARNs (canonical,
 * see vocabulary.ts) that the calling role must be allowed. One command may need several (a
 * TransactWriteItems needs each item's action; a tagged PutObject needs s3:PutObjectTagging too).
 * Presigned URLs are authorised as the command they sign, with the signer's permissions.
 *
 * Sources: the Service Authorization Reference's "API operations" tables and the services' IAM
 * guides (DynamoDB "Using IAM with DynamoDB transactions"; S3 "Required permissions for Amazon S3
 * API operations"; "Amazon ECS task execution IAM role"; CloudWatch Logs "Overview of managing
 * access permissions"). A command not listed here maps to `<service>:<Operation>` on resource
 * `<unmapped>`, which the check reports as unmapped whatever the role grants: this table then
 * needs an entry.
 */
import { arns, canonicalArn, LATEST_REVISION, SECRET_SUFFIX, symbol, type ResourceNames } from './vocabulary.js';

/** One SDK call as the middleware sees it. */
export interface SdkCall {
  /** `DynamoDBClient`, `S3Client`, ... (the middleware context's clientName). */
  readonly clientName: string;
  /** `PutItemCommand`, ... (the document client's commands arrive as the low-level ones). */
  readonly commandName: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** One authorisation IAM makes for a call. */
export interface IamRequest {
  /** `dynamodb:UpdateItem` */
  readonly action: string;
  /** A canonical ARN, `*` for actions without resource-level permissions, or `<unmapped>`. */
  readonly resource: string;
  /** Condition keys with values known from the call alone (e.g. `dynamodb:EnclosingOperation`). */
  readonly context?: Readonly<Record<string, string>>;
}

export const UNMAPPED = '<unmapped>';

type Input = Readonly<Record<string, unknown>>;
type Mapper = (operation: string, input: Input, names: ResourceNames) => IamRequest[] | undefined;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const records = (value: unknown): Input[] => (Array.isArray(value) ? value.filter((v): v is Input => typeof v === 'object' && v !== null) : []);

// ---- DynamoDB ----

const tableArn = (names: ResourceNames, table: string): string => (table.startsWith('arn:') ? canonicalArn(table) : arns.table(names.nameOf(table)));

/** Operations authorised as themselves on the table named by TableName (Query and Scan: on the index when one is named). */
const dynamoDbTableOperations = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'DescribeTable',
  'DescribeTimeToLive',
  'UpdateTimeToLive',
  'CreateTable',
  'DeleteTable',
  'UpdateTable',
  'DescribeContinuousBackups',
  'UpdateContinuousBackups',
]);

/** TransactWriteItems entries: each is authorised as its own item action. */
const transactWriteActions: Readonly<Record<string, string>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

const dynamoDb: Mapper = (operation, input, names) => {
  if (dynamoDbTableOperations.has(operation)) {
    const table = tableArn(names, text(input.TableName));
    const index = text(input.IndexName);
    const onIndex = index && (operation === 'Query' || operation === 'Scan');
    return [{ action: `dynamodb:${operation}`, resource: onIndex ? `${table}/index/${index}` : table }];
  }
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    // One authorisation per table, as the batch action itself.
    const tables = Object.keys((input.RequestItems as Input | undefined) ?? {});
    return tables.map((table) => ({ action: `dynamodb:${operation}`, resource: tableArn(names, table) }));
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const context = { 'dynamodb:EnclosingOperation': operation };
    return records(input.TransactItems).flatMap((item) =>
      Object.entries(item).flatMap(([kind, entry]) => {
        const action = operation === 'TransactGetItems' ? (kind === 'Get' ? 'GetItem' : undefined) : transactWriteActions[kind];
        if (!action || typeof entry !== 'object' || entry === null) return [];
        return [{ action: `dynamodb:${action}`, resource: tableArn(names, text((entry as Input).TableName)), context }];
      }),
    );
  }
  if (operation === 'ListTables') return [{ action: 'dynamodb:ListTables', resource: '*' }];
  return undefined;
};

// ---- S3 ----

const objectArn = (names: ResourceNames, bucket: unknown, key: unknown): string => arns.object(names.nameOf(text(bucket)), text(key));
const bucketArn = (names: ResourceNames, bucket: unknown): string => arns.bucket(names.nameOf(text(bucket)));

/** `bucket/key` or `/bucket/key?versionId=...` (CopySource, URL-encoded). */
function copySourceArn(names: ResourceNames, source: unknown): string {
  const path = decodeURIComponent(text(source).replace(/^\//, '').split('?')[0] ?? '');
  const slash = path.indexOf('/');
  return slash < 0 ? arns.bucket(names.nameOf(path)) : objectArn(names, path.slice(0, slash), path.slice(slash + 1));
}

/** Object operations: the actions each needs on the object (beyond the per-input extras below). */
const s3ObjectActions: Readonly<Record<string, readonly string[]>> = {
  GetObject: ['s3:GetObject'],
  HeadObject: ['s3:GetObject'],
  PutObject: ['s3:PutObject'],
  CreateMultipartUpload: ['s3:PutObject'],
  UploadPart: ['s3:PutObject'],
  UploadPartCopy: ['s3:PutObject'],
  CompleteMultipartUpload: ['s3:PutObject'],
  CopyObject: ['s3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload'],
  ListParts: ['s3:ListMultipartUploadParts'],
  DeleteObject: ['s3:DeleteObject'],
  PutObjectTagging: ['s3:PutObjectTagging'],
  GetObjectTagging: ['s3:GetObjectTagging'],
  DeleteObjectTagging: ['s3:DeleteObjectTagging'],
  GetObjectAttributes: ['s3:GetObject', 's3:GetObjectAttributes'],
  PutObjectAcl: ['s3:PutObjectAcl'],
  GetObjectAcl: ['s3:GetObjectAcl'],
  RestoreObject: ['s3:RestoreObject'],
};

/** Bucket operations: the action each needs on the bucket. */
const s3BucketActions: Readonly<Record<string, string>> = {
  ListObjects: 's3:ListBucket',
  ListObjectsV2: 's3:ListBucket',
  HeadBucket: 's3:ListBucket',
  ListObjectVersions: 's3:ListBucketVersions',
  ListMultipartUploads: 's3:ListBucketMultipartUploads',
  CreateBucket: 's3:CreateBucket',
  DeleteBucket: 's3:DeleteBucket',
  GetBucketLocation: 's3:GetBucketLocation',
};

/** A version named turns GetObject/DeleteObject (and their tagging) into the `...Version` actions. */
const versioned: Readonly<Record<string, string>> = {
  's3:GetObject': 's3:GetObjectVersion',
  's3:DeleteObject': 's3:DeleteObjectVersion',
  's3:GetObjectTagging': 's3:GetObjectVersionTagging',
  's3:PutObjectTagging': 's3:PutObjectVersionTagging',
};

const s3: Mapper = (operation, input, names) => {
  const bucketAction = s3BucketActions[operation];
  if (bucketAction) return [{ action: bucketAction, resource: bucketArn(names, input.Bucket) }];
  if (operation === 'DeleteObjects') {
    const objects = records((input.Delete as Input | undefined)?.Objects);
    return objects.map((object) => ({
      action: object.VersionId ? 's3:DeleteObjectVersion' : 's3:DeleteObject',
      resource: objectArn(names, input.Bucket, object.Key),
    }));
  }
  const objectActions = s3ObjectActions[operation];
  if (!objectActions) return undefined;
  const resource = objectArn(names, input.Bucket, input.Key);
  const actions = objectActions.map((action) => (input.VersionId && versioned[action] ? versioned[action] : action));
  // Tags or an ACL set with the write need their own actions ("PutObject ... x-amz-tagging").
  const writesObject = ['PutObject', 'CreateMultipartUpload', 'CopyObject'].includes(operation);
  if (writesObject && input.Tagging !== undefined) actions.push('s3:PutObjectTagging');
  if (writesObject && (input.ACL !== undefined || input.GrantRead !== undefined || input.GrantFullControl !== undefined)) actions.push('s3:PutObjectAcl');
  const requests = actions.map((action) => ({ action, resource }));
  if (operation === 'CopyObject' || operation === 'UploadPartCopy') requests.push({ action: 's3:GetObject', resource: copySourceArn(names, input.CopySource) });
  // S3 answers HEAD on a missing key with 404 only to a caller with s3:ListBucket (403 otherwise),
  // and the service reads 404 as "not there" (s3-media-store.ts head).
  if (operation === 'HeadObject') requests.push({ action: 's3:ListBucket', resource: bucketArn(names, input.Bucket) });
  return requests;
};

// ---- Secrets Manager, EventBridge, Step Functions ----

function secretArn(names: ResourceNames, secretId: string): string {
  const known = names.symbolOf(secretId);
  if (known) return arns.secret(known);
  // A name alone: the ARN IAM sees carries the 6-character suffix Secrets Manager added.
  return secretId.startsWith('arn:') ? canonicalArn(secretId) : arns.secret(`${secretId}-${SECRET_SUFFIX}`);
}

const secretsManager: Mapper = (operation, input, names) => {
  if (['GetSecretValue', 'DescribeSecret', 'PutSecretValue', 'UpdateSecret'].includes(operation)) {
    return [{ action: `secretsmanager:${operation}`, resource: secretArn(names, text(input.SecretId)) }];
  }
  return undefined;
};

function eventBusArn(names: ResourceNames, bus: string): string {
  const known = names.symbolOf(bus);
  if (known) return arns.eventBus(known);
  return bus.startsWith('arn:') ? canonicalArn(bus) : arns.eventBus(bus || 'default');
}

const eventBridge: Mapper = (operation, input, names) => {
  if (operation === 'PutEvents')
    return records(input.Entries).map((entry) => ({ action: 'events:PutEvents', resource: eventBusArn(names, text(entry.EventBusName)) }));
  // Rules, on the bus they belong to: PutTargets names its rule `Rule`, the others `Name`.
  if (!['PutRule', 'PutTargets', 'DescribeRule', 'DeleteRule', 'RemoveTargets'].includes(operation)) return undefined;
  const bus = text(input.EventBusName);
  return [{ action: `events:${operation}`, resource: arns.rule(bus ? names.nameOf(bus) : 'default', text(input.Name ?? input.Rule)) }];
};

function stateMachineArn(names: ResourceNames, arn: string): string {
  const known = names.symbolOf(arn);
  return known ? arns.stateMachine(known) : canonicalArn(arn);
}

/** A task token does not say which state machine it belongs to; the local host's stand-in knows (recorder.ts). */
export const TASK_TOKEN_STATE_MACHINE = arns.stateMachine(symbol('state machine of the task token'));

const stepFunctions: Mapper = (operation, input, names) => {
  if (operation === 'StartExecution' || operation === 'StartSyncExecution') {
    return [{ action: `states:${operation}`, resource: stateMachineArn(names, text(input.stateMachineArn)) }];
  }
  if (['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat'].includes(operation)) {
    return [{ action: `states:${operation}`, resource: TASK_TOKEN_STATE_MACHINE }];
  }
  if (['DescribeExecution', 'StopExecution', 'GetExecutionHistory'].includes(operation)) {
    return [{ action: `states:${operation}`, resource: canonicalArn(text(input.executionArn)) }];
  }
  return undefined;
};

// ---- Bedrock, Transcribe ----

/** Cross-region inference profiles (`eu.anthropic...`): as infra/constructs/engine-access.ts reads them. */
const INFERENCE_PROFILE = /^(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

/** What InvokeModel is authorised on: the model, or the inference profile and the model it routes to. */
function modelArns(modelId: string): string[] {
  if (modelId.startsWith('arn:')) return [canonicalArn(modelId)];
  const profiled = INFERENCE_PROFILE.exec(modelId)?.[2];
  return profiled ? [arns.inferenceProfile(modelId), arns.foundationModel(profiled)] : [arns.foundationModel(modelId)];
}

const bedrock: Mapper = (operation, input) => {
  const action = {
    Converse: 'bedrock:InvokeModel',
    InvokeModel: 'bedrock:InvokeModel',
    ConverseStream: 'bedrock:InvokeModelWithResponseStream',
    InvokeModelWithResponseStream: 'bedrock:InvokeModelWithResponseStream',
  }[operation];
  if (!action) return undefined;
  return modelArns(text(input.modelId)).map((resource) => ({ action, resource }));
};

/** `s3://bucket/key` -> the object's ARN. */
function s3UriArn(names: ResourceNames, uri: string): string | undefined {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  return match ? objectArn(names, match[1], match[2]) : undefined;
}

const transcribe: Mapper = (operation, input, names) => {
  if (!['StartTranscriptionJob', 'GetTranscriptionJob', 'DeleteTranscriptionJob'].includes(operation)) return undefined;
  const requests: IamRequest[] = [{ action: `transcribe:${operation}`, resource: arns.transcriptionJob(text(input.TranscriptionJobName)) }];
  if (operation === 'StartTranscriptionJob') {
    // Transcribe reads the media and writes its output with the caller's permissions.
    const media = s3UriArn(names, text((input.Media as Input | undefined)?.MediaFileUri));
    if (media) requests.push({ action: 's3:GetObject', resource: media });
    if (input.OutputBucketName)
      requests.push({
        action: 's3:PutObject',
        resource: objectArn(names, input.OutputBucketName, input.OutputKey ?? `${text(input.TranscriptionJobName)}.json`),
      });
  }
  return requests;
};

// ---- SQS, EventBridge Scheduler, IAM PassRole ----

/** A queue by URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`), ARN or name. */
function queueArn(names: ResourceNames, queue: string): string {
  const known = names.symbolOf(queue);
  if (known) return arns.queue(known);
  if (queue.startsWith('arn:')) return canonicalArn(queue);
  return arns.queue(/\/\d{12}\/([^/?]+)$/.exec(queue)?.[1] ?? queue);
}

/** Queue operations, by the action they need: the batch ones need the single message's. */
const sqsQueueActions: Readonly<Record<string, string>> = {
  SendMessage: 'SendMessage',
  SendMessageBatch: 'SendMessage',
  ReceiveMessage: 'ReceiveMessage',
  DeleteMessage: 'DeleteMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibility: 'ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
  GetQueueAttributes: 'GetQueueAttributes',
  SetQueueAttributes: 'SetQueueAttributes',
  PurgeQueue: 'PurgeQueue',
  DeleteQueue: 'DeleteQueue',
};

const sqs: Mapper = (operation, input, names) => {
  const action = sqsQueueActions[operation];
  if (action) return [{ action: `sqs:${action}`, resource: queueArn(names, text(input.QueueUrl)) }];
  if (operation === 'GetQueueUrl') return [{ action: 'sqs:GetQueueUrl', resource: queueArn(names, text(input.QueueName)) }];
  return undefined;
};

/** A role handed to a service, which IAM authorises as iam:PassRole on it, with the receiving service as context. */
function passRole(names: ResourceNames, role: string, service: string): IamRequest {
  const known = names.symbolOf(role);
  const resource = known ? arns.role(known) : role.startsWith('arn:') ? canonicalArn(role) : arns.role(role);
  return { action: 'iam:PassRole', resource, context: { 'iam:PassedToService': service } };
}

const scheduler: Mapper = (operation, input, names) => {
  if (!['CreateSchedule', 'UpdateSchedule', 'GetSchedule', 'DeleteSchedule'].includes(operation)) return undefined;
  const group = names.nameOf(text(input.GroupName) || 'default');
  const requests: IamRequest[] = [{ action: `scheduler:${operation}`, resource: arns.schedule(group, text(input.Name)) }];
  // The schedule's target is called with the role it names.
  const role = text((input.Target as Input | undefined)?.RoleArn);
  if (role && (operation === 'CreateSchedule' || operation === 'UpdateSchedule')) requests.push(passRole(names, role, 'scheduler.amazonaws.com'));
  return requests;
};

// ---- What AWS services do with the roles they assume: Lambda, ECS, EventBridge rules, ECR, CloudWatch Logs ----

/** `name`, `name:qualifier`, or an ARN; `Qualifier` adds a version or alias. */
function functionArn(names: ResourceNames, name: string, qualifier: unknown): string {
  if (name.startsWith('arn:')) return qualifier ? `${canonicalArn(name)}:${text(qualifier)}` : canonicalArn(name);
  const [bare = '', inline] = name.split(':');
  const arn = arns.function(names.nameOf(bare));
  const version = qualifier ? text(qualifier) : inline;
  return version ? `${arn}:${version}` : arn;
}

const lambda: Mapper = (operation, input, names) => {
  if (!['Invoke', 'InvokeAsync', 'InvokeWithResponseStream'].includes(operation)) return undefined;
  return [{ action: 'lambda:InvokeFunction', resource: functionArn(names, text(input.FunctionName), input.Qualifier) }];
};

/** A task definition by family (its latest ACTIVE revision), `family:revision`, or ARN. */
function taskDefinitionArn(names: ResourceNames, taskDefinition: string): string {
  if (taskDefinition.startsWith('arn:')) return canonicalArn(taskDefinition);
  const [family = '', revision = LATEST_REVISION] = taskDefinition.split(/:(?=\d+$)/);
  return arns.taskDefinition(`${names.nameOf(family)}:${revision}`);
}

/** A task by ARN, or by id in the cluster named (a name or ARN). */
function ecsTaskArn(names: ResourceNames, cluster: string, task: string): string {
  if (task.startsWith('arn:')) return canonicalArn(task);
  const clusterName = names.symbolOf(cluster) ?? (cluster.startsWith('arn:') ? cluster.split('cluster/')[1] : cluster);
  return arns.ecsTask(clusterName || 'default', task);
}

const ecs: Mapper = (operation, input, names) => {
  if (operation === 'RunTask') {
    // PassRole of the task definition's own roles depends on the definition, not on the input:
    // whoever records a RunTask records those too (recorder.ts). Overrides name roles here.
    const overrides = (input.overrides as Input | undefined) ?? {};
    const roles = [overrides.taskRoleArn, overrides.executionRoleArn].map(text).filter(Boolean);
    return [
      { action: 'ecs:RunTask', resource: taskDefinitionArn(names, text(input.taskDefinition)) },
      ...roles.map((role) => passRole(names, role, 'ecs-tasks.amazonaws.com')),
    ];
  }
  if (operation === 'StopTask') return [{ action: 'ecs:StopTask', resource: ecsTaskArn(names, text(input.cluster), text(input.task)) }];
  if (operation === 'DescribeTasks') {
    return (Array.isArray(input.tasks) ? input.tasks.map(text) : []).map((task) => ({
      action: 'ecs:DescribeTasks',
      resource: ecsTaskArn(names, text(input.cluster), task),
    }));
  }
  return undefined;
};

const ecr: Mapper = (operation, input, names) => {
  if (operation === 'GetAuthorizationToken') return [{ action: 'ecr:GetAuthorizationToken', resource: '*' }];
  if (!['BatchGetImage', 'GetDownloadUrlForLayer', 'BatchCheckLayerAvailability'].includes(operation)) return undefined;
  return [{ action: `ecr:${operation}`, resource: arns.repository(names.nameOf(text(input.repositoryName))) }];
};

const cloudWatchLogs: Mapper = (operation, input, names) => {
  if (operation !== 'CreateLogStream' && operation !== 'PutLogEvents') return undefined;
  return [{ action: `logs:${operation}`, resource: arns.logStream(names.nameOf(text(input.logGroupName)), text(input.logStreamName)) }];
};

/** The user pool's admin operations (the admin CLI's `owners` commands): each on the pool by id. */
const cognitoIdp: Mapper = (operation, input, names) => {
  if (!operation.startsWith('Admin')) return undefined;
  return [{ action: `cognito-idp:${operation}`, resource: arns.userPool(names.nameOf(text(input.UserPoolId))) }];
};

const mappers: Readonly<Record<string, [service: string, mapper: Mapper]>> = {
  DynamoDBClient: ['dynamodb', dynamoDb],
  S3Client: ['s3', s3],
  SecretsManagerClient: ['secretsmanager', secretsManager],
  EventBridgeClient: ['events', eventBridge],
  SFNClient: ['states', stepFunctions],
  BedrockRuntimeClient: ['bedrock', bedrock],
  TranscribeClient: ['transcribe', transcribe],
  SQSClient: ['sqs', sqs],
  SchedulerClient: ['scheduler', scheduler],
  LambdaClient: ['lambda', lambda],
  ECSClient: ['ecs', ecs],
  ECRClient: ['ecr', ecr],
  CloudWatchLogsClient: ['logs', cloudWatchLogs],
  CognitoIdentityProviderClient: ['cognito-idp', cognitoIdp],
};

/** The IAM authorisations one SDK call needs. */
export function iamRequestsOf(call: SdkCall, names: ResourceNames): IamRequest[] {
  const operation = call.commandName.replace(/Command$/, '');
  const [service, mapper] = mappers[call.clientName] ?? [call.clientName.replace(/Client$/, '').toLowerCase(), undefined];
  return mapper?.(operation, call.input, names) ?? [{ action: `${service}:${operation}`, resource: UNMAPPED }];
}
