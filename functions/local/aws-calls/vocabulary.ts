/**
 * The one vocabulary the AWS call recorder (recorder.ts) and the permission check
 * (test/helpers/iam-policy.ts) share: how a deployed unit is named, and how a resource ARN is
 * written so that a call recorded on the local host and a grant read from the synthesized
 * template name the same resource the same way.
 *
 * Canonical ARNs: partition `aws`, region `<Region>`, account `<Account>`, and the service's own
 * resources by a symbol instead of their physical names, which differ between the local host
 * (`media-scanner-local`) and every deployment (`MediaScanner-TableCD117FA1-...`):
 *
 *   arn:aws:dynamodb:<Region>:<Account>:table/<Table>            (and .../index/GSI1)
 *   arn:aws:s3:::<MediaBucket>/accounts/acct_.../upl_...          (object keys as used)
 *   arn:aws:secretsmanager:<Region>:<Account>:secret:<CursorSecret>
 *   arn:aws:events:<Region>:<Account>:event-bus/<EventBus>
 *   arn:aws:states:<Region>:<Account>:stateMachine:<analysis>    (the workflow table's names)
 *   arn:aws:lambda:<Region>:<Account>:function:<task:analysis/PlanChunksFunction>   (a unit's own resources:
 *   arn:aws:ecs:<Region>:<Account>:task-definition/<container:render/...>:<Revision>   by the unit, unitSymbols)
 *   arn:aws:lambda:<Region>:<Account>:function:<ProviderResolver>
 *
 * A resource is recognised by the configuration variable through which the code learns it
 * (functions/config.ts; CDK sets each to the resource's Ref): the recorder reads the local host's
 * values of those variables, the check reads the functions' Environment in the template.
 */

export const PARTITION = 'aws';
export const REGION = '<Region>';
export const ACCOUNT = '<Account>';

/** The service's resources by the configuration variable that names them, and their symbols. */
export const resourceVariables = {
  TABLE_NAME: 'Table',
  MEDIA_BUCKET: 'MediaBucket',
  CURSOR_SECRET_ARN: 'CursorSecret',
  EVENT_BUS_NAME: 'EventBus',
  WEBHOOK_QUEUE_URL: 'WebhookQueue',
  WEBHOOK_QUEUE_ARN: 'WebhookQueue',
  WEBHOOK_SCHEDULER_ROLE_ARN: 'WebhookSchedulerRole',
  WEBHOOK_SCHEDULE_GROUP: 'WebhookScheduleGroup',
  PROVIDER_RESOLVER_FUNCTION: 'ProviderResolver',
} as const;

/**
 * Who calls AWS besides the deployed units (functions/runtime/contracts.ts `units`): the roles AWS
 * services assume on the service's behalf. Each is checked against its own role in the template.
 */
export const principals = {
  /** A workflow's state machine: invokes its task functions, runs its container tasks (`.sync`). */
  stateMachine: (workflow: string) => `states:${workflow}`,
  /** EventBridge Scheduler: sends due webhook retries to the delivery queue. */
  scheduler: 'scheduler',
  /** ECS, for a container task (`container:...`): pulls its image and writes its logs. */
  ecsExecution: (containerUnit: string) => `ecs-execution:${containerUnit}`,
} as const;

/** A deployed unit's own resources by its name: its function or task definition (family), and a container task's roles and log group. */
export const unitSymbols = {
  runner: (unit: string) => symbol(unit),
  taskRole: (unit: string) => symbol(`${unit} task role`),
  executionRole: (unit: string) => symbol(`${unit} execution role`),
  logGroup: (unit: string) => symbol(`${unit} log group`),
};

/** The cluster the container tasks run in, and the repository of their one image. */
export const CONTAINER_CLUSTER = '<ContainerCluster>';
export const CONTAINER_IMAGE_REPOSITORY = '<ContainerImageRepository>';
/** RunTask naming a family runs its latest ACTIVE revision, and IAM authorises that revision's ARN. */
export const LATEST_REVISION = '<Revision>';

/** `analysis` -> `ANALYSIS_STATE_MACHINE_ARN` (as infra/stack.ts names it; test/unit checks they agree). */
export const stateMachineVariable = (workflow: string): string => `${workflow.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_STATE_MACHINE_ARN`;

/** `<Table>`; a workflow's state machine is `<analysis>`. */
export const symbol = (name: string): string => `<${name}>`;

/** Secrets Manager appends 6 random characters to a secret's name in its ARN; a name alone gets these. */
export const SECRET_SUFFIX = 'xxxxxx';

export const arns = {
  table: (table: string) => `arn:${PARTITION}:dynamodb:${REGION}:${ACCOUNT}:table/${table}`,
  index: (table: string, index: string) => `${arns.table(table)}/index/${index}`,
  bucket: (bucket: string) => `arn:${PARTITION}:s3:::${bucket}`,
  object: (bucket: string, key: string) => `arn:${PARTITION}:s3:::${bucket}/${key}`,
  secret: (nameWithSuffix: string) => `arn:${PARTITION}:secretsmanager:${REGION}:${ACCOUNT}:secret:${nameWithSuffix}`,
  eventBus: (name: string) => `arn:${PARTITION}:events:${REGION}:${ACCOUNT}:event-bus/${name}`,
  stateMachine: (name: string) => `arn:${PARTITION}:states:${REGION}:${ACCOUNT}:stateMachine:${name}`,
  execution: (stateMachine: string, execution: string) => `arn:${PARTITION}:states:${REGION}:${ACCOUNT}:execution:${stateMachine}:${execution}`,
  foundationModel: (modelId: string, region: string = REGION) => `arn:${PARTITION}:bedrock:${region}::foundation-model/${modelId}`,
  inferenceProfile: (profileId: string) => `arn:${PARTITION}:bedrock:${REGION}:${ACCOUNT}:inference-profile/${profileId}`,
  transcriptionJob: (name: string) => `arn:${PARTITION}:transcribe:${REGION}:${ACCOUNT}:transcription-job/${name}`,
  queue: (name: string) => `arn:${PARTITION}:sqs:${REGION}:${ACCOUNT}:${name}`,
  schedule: (group: string, name: string) => `arn:${PARTITION}:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${name}`,
  role: (name: string) => `arn:${PARTITION}:iam::${ACCOUNT}:role/${name}`,
  function: (name: string) => `arn:${PARTITION}:lambda:${REGION}:${ACCOUNT}:function:${name}`,
  taskDefinition: (familyAndRevision: string) => `arn:${PARTITION}:ecs:${REGION}:${ACCOUNT}:task-definition/${familyAndRevision}`,
  cluster: (name: string) => `arn:${PARTITION}:ecs:${REGION}:${ACCOUNT}:cluster/${name}`,
  ecsTask: (cluster: string, taskId: string) => `arn:${PARTITION}:ecs:${REGION}:${ACCOUNT}:task/${cluster}/${taskId}`,
  /** On the default bus a rule's ARN has no bus name. */
  rule: (bus: string, name: string) => `arn:${PARTITION}:events:${REGION}:${ACCOUNT}:rule/${bus === 'default' ? '' : `${bus}/`}${name}`,
  logGroup: (name: string) => `arn:${PARTITION}:logs:${REGION}:${ACCOUNT}:log-group:${name}:*`,
  logStream: (group: string, stream: string) => `arn:${PARTITION}:logs:${REGION}:${ACCOUNT}:log-group:${group}:log-stream:${stream}`,
  repository: (name: string) => `arn:${PARTITION}:ecr:${REGION}:${ACCOUNT}:repository/${name}`,
  userPool: (id: string) => `arn:${PARTITION}:cognito-idp:${REGION}:${ACCOUNT}:userpool/${id}`,
};

/**
 * An ARN as configuration holds it (a real one) in canonical form: any partition becomes `aws`, a
 * region `<Region>`, a 12-digit account `<Account>`; empty fields (S3, Bedrock models) stay empty.
 */
export function canonicalArn(arn: string): string {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return arn;
  const [, , service, region, account, ...rest] = parts;
  return ['arn', PARTITION, service, region ? REGION : '', account && /^\d{12}$/.test(account) ? ACCOUNT : (account ?? ''), ...rest].join(':');
}

/**
 * Physical names (and ARNs) of the service's resources -> their symbols. `${VARIABLE}` (how the
 * local host's stand-ins name a resource it has no physical name for) is the symbol of VARIABLE.
 */
export class ResourceNames {
  private readonly symbols: ReadonlyMap<string, string>;
  private readonly variables: ReadonlyMap<string, string>;

  /** `values`: configuration variable -> its value where set; `workflows`: the workflow table's names. */
  public constructor(values: Readonly<Record<string, string | undefined>>, workflows: readonly string[]) {
    const variables = new Map<string, string>([
      ...Object.entries(resourceVariables).map(([variable, name]): [string, string] => [variable, symbol(name)]),
      ...workflows.map((workflow): [string, string] => [stateMachineVariable(workflow), symbol(workflow)]),
    ]);
    const symbols = new Map<string, string>();
    for (const [variable, name] of variables) {
      const value = values[variable];
      if (value) symbols.set(value, name);
    }
    this.variables = variables;
    this.symbols = symbols;
  }

  /** The symbol for a physical name or ARN of the service's resources, or undefined (another resource). */
  public symbolOf(nameOrArn: string): string | undefined {
    const variable = /^\$\{(\w+)\}$/.exec(nameOrArn)?.[1];
    return variable ? this.variables.get(variable) : this.symbols.get(nameOrArn);
  }

  /** The symbol if it is one of the service's resources, else the name as given. */
  public nameOf(name: string): string {
    return this.symbolOf(name) ?? name;
  }
}
