import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ArnFormat, Aws, Duration, Fn, Names, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType, type CfnStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { containerContractOf, lambdaContractOf, units } from '../../functions/runtime/contracts.js';
import { Construct } from 'constructs';
import { workflows as workflowTable, type WorkflowDefinition, type WorkflowTask } from '../../functions/workflows/registry.js';
import type { ContainerCluster } from './container-cluster.js';
import { ServiceContainerTask } from './service-container-task.js';
import { ServiceFunction } from './service-function.js';
import type { ServiceTable } from './service-table.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `${Name}` in an ASL text, as CloudFormation's DefinitionSubstitutions replaces it. */
const placeholderPattern = /\$\{([^}]*)\}/g;

/** Every `${Placeholder}` name in a text, in order of first appearance. */
const placeholdersIn = (text: string): string[] => [...new Set(Array.from(text.matchAll(placeholderPattern), (m) => m[1]!))];

interface TaskParameters {
  FunctionName?: unknown;
  TaskDefinition?: unknown;
  Cluster?: unknown;
  NetworkConfiguration?: { AwsvpcConfiguration?: { Subnets?: unknown[]; SecurityGroups?: unknown[] } };
}

/** What one Task state names: the function it invokes, or the container task it runs and where. */
function namedResources(resource: string, parameters: TaskParameters = {}): unknown[] {
  // The `lambda:invoke` integrations, e.g. `.waitForTaskToken`.
  if (resource.startsWith('arn:aws:states:::lambda:invoke')) return [parameters.FunctionName];
  if (resource.startsWith('arn:aws:states:::ecs:runTask')) {
    const network = parameters.NetworkConfiguration?.AwsvpcConfiguration;
    return [parameters.TaskDefinition, parameters.Cluster, ...(network?.Subnets ?? []), ...(network?.SecurityGroups ?? [])];
  }
  return [resource];
}

/** What every Task state names (see namedResources), nested ones (Map, Parallel) included. */
function taskResources(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(taskResources);
  if (typeof node !== 'object' || node === null) return [];
  const record = node as Record<string, unknown>;
  const own =
    record.Type === 'Task' && typeof record.Resource === 'string'
      ? namedResources(record.Resource, record.Parameters as TaskParameters | undefined).filter((named) => typeof named === 'string')
      : [];
  return [...own, ...Object.values(record).flatMap(taskResources)];
}

const difference = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));

/**
 * Checks that an ASL document and its workflow-table entry describe the same tasks: every
 * placeholder is the whole Resource of a Task state, and the placeholders are exactly the table's
 * task names. Throws a message naming both files otherwise.
 */
export function checkWorkflowDefinition(definitionFile: string, asl: string, taskNames: readonly string[]): void {
  const where = `${definitionFile} (functions/workflows/registry.ts)`;
  let document: unknown;
  try {
    document = JSON.parse(asl);
  } catch (error) {
    throw new Error(`${definitionFile} is not valid JSON: ${(error as Error).message}`);
  }
  const placeholders = placeholdersIn(asl);
  const taskPlaceholders = taskResources(document).flatMap((resource) => {
    const match = /^\$\{([^}]*)\}$/.exec(resource);
    return match ? [match[1]!] : [];
  });
  const problems = [
    ...difference(placeholders, taskPlaceholders).map(
      (p) => `\${${p}} is not the whole Resource (or invoked FunctionName, or ECS task definition, cluster, subnet or security group) of a Task state`,
    ),
    ...difference(placeholders, taskNames).map((p) => `\${${p}} has no task in the workflow table`),
    ...difference(taskNames, placeholders).map((t) => `task ${t} is not used by any Task state`),
  ];
  if (problems.length) throw new Error(`${where}: ${problems.join('; ')}`);
}

/**
 * The errors CloudFormation substitution would leave: placeholders of `definition` without a
 * substitution, and substitutions no placeholder uses. Empty when the deployed definition is complete.
 */
export function substitutionErrors(definition: string, substitutions: Readonly<Record<string, unknown>>): string[] {
  const keys = Object.keys(substitutions);
  const substituted = keys.reduce((text, key) => text.split(`\${${key}}`).join('arn:substituted'), definition);
  return [
    ...placeholdersIn(substituted).map((p) => `\${${p}} has no DefinitionSubstitutions entry`),
    ...difference(keys, placeholdersIn(definition)).map((k) => `DefinitionSubstitutions entry ${k} is not used by the definition`),
  ];
}

/**
 * Service state machines are named (`<stack>-<workflow>`), so that tasks can be granted on one's
 * ARN without referring to it: its definition names those tasks, and a reference back would be a cycle.
 */
const serviceStateMachineName = (scope: Construct, workflow: string): string => `${Stack.of(scope).stackName}-${workflow}`;

export const serviceStateMachineArn = (scope: Construct, workflow: string): string =>
  Stack.of(scope).formatArn({
    service: 'states',
    resource: 'stateMachine',
    resourceName: serviceStateMachineName(scope, workflow),
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });

interface WorkflowStateMachineProps {
  /** The workflow's key in the workflow table, e.g. `analysis`. */
  readonly name: string;
  readonly workflow: WorkflowDefinition;
  /** The configuration every function validates at start-up. */
  readonly environment: Readonly<Record<string, string>>;
  readonly table: ServiceTable;
  readonly bucket: Bucket;
  readonly eventBus: IEventBus;
  /** Where container tasks run; called only when the workflow has any. */
  readonly containerCluster: () => ContainerCluster;
}

/**
 * One workflow of the workflow table: a Lambda function per task and a Fargate task definition
 * per container task, built and granted from the task's entry, and a Standard state machine
 * running the workflow's ASL file with each task's `${Placeholder}` substituted by its function's
 * or task definition's ARN (and the container placement by the cluster's). The state machine may
 * invoke exactly those functions and run exactly those task definitions.
 */
export class WorkflowStateMachine extends Construct {
  /** Where an ended-execution event goes when its cleanup keeps failing: kept for 14 days, for replay by hand. */
  private settleDeadLetters(): Queue {
    const queue = new Queue(this, 'SettleDeadLetters', { enforceSSL: true, retentionPeriod: Duration.days(14), encryption: QueueEncryption.SQS_MANAGED });
    Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This queue is itself the dead-letter queue of the ended-execution rule.' });
    return queue;
  }

  public readonly stateMachine: StateMachine;
  /** The task functions by placeholder name. */
  public readonly tasks: Readonly<Record<string, ServiceFunction>>;
  /** The container tasks by placeholder name. */
  public readonly containerTasks: Readonly<Record<string, ServiceContainerTask>>;

  public constructor(scope: Construct, id: string, props: WorkflowStateMachineProps) {
    super(scope, id);
    const { workflow } = props;

    const asl = readFileSync(`${repoRoot}${workflow.definitionFile}`, 'utf8');
    const containerEntries = Object.entries(workflow.containerTasks ?? {});
    const placement = containerEntries.length ? props.containerCluster().placementSubstitutions() : {};
    checkWorkflowDefinition(workflow.definitionFile, asl, [
      ...Object.keys(workflow.tasks),
      ...containerEntries.map(([placeholder]) => placeholder),
      ...Object.keys(placement),
    ]);

    const stateMachineName = serviceStateMachineName(this, props.name);

    const taskFunction = (id: string, task: WorkflowTask, unit: string): ServiceFunction => {
      const fn = new ServiceFunction(this, id, {
        contract: lambdaContractOf(unit),
        description: `${props.name} workflow: ${id} (${task.handler})`,
        environment: props.environment,
      });
      fn.bindTable(props.table, task.table);
      if (task.bucket) fn.bindBucket(props.bucket, task.bucket);
      if (task.events) fn.bindEventBus(props.eventBus);
      // A run's end wakes the batch waiting on it, so waking reaches every service workflow.
      if (task.wakesWorkflows) fn.bindTaskCallbacks(Object.keys(workflowTable).map((name) => serviceStateMachineArn(this, name)));
      if (task.startsAnalyses) {
        fn.bindStateMachine(StateMachine.fromStateMachineArn(this, `${id}Starts`, serviceStateMachineArn(this, 'analysis')), 'ANALYSIS_STATE_MACHINE_ARN');
      }
      return fn;
    };
    const tasks = Object.fromEntries(
      Object.entries(workflow.tasks).map(([placeholder, task]) => [placeholder, taskFunction(placeholder, task, units.task(props.name, placeholder))]),
    );
    this.tasks = tasks;
    const containerTasks = Object.fromEntries(
      containerEntries.map(([placeholder]) => [
        placeholder,
        new ServiceContainerTask(this, placeholder, {
          contract: containerContractOf(units.container(props.name, placeholder)),
          cluster: props.containerCluster(),
          environment: props.environment,
          table: props.table,
          bucket: props.bucket,
        }),
      ]),
    );
    this.containerTasks = containerTasks;

    // Vended-log groups under this prefix share one CloudWatch Logs resource policy entry, which
    // keeps that account-wide policy from growing with every logged state machine. The group is
    // retained with the stack's data, so its name ends with the stack id's UUID: a stack created
    // again (after a failed first deploy, or a deleted stack) gets a new group, not a name conflict.
    const logGroup = new LogGroup(this, 'Logs', {
      logGroupName: Fn.join('-', [`/aws/vendedlogs/states/${Names.uniqueResourceName(this, { maxLength: 200 })}`, Fn.select(2, Fn.split('/', Aws.STACK_ID))]),
      retention: RetentionDays.ONE_MONTH,
    });

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      // Inline (minified), not an S3 asset: the template then carries the definition, and
      // CloudFormation substitutes the ARNs at deploy time.
      definitionBody: DefinitionBody.fromString(JSON.stringify(JSON.parse(asl))),
      definitionSubstitutions: {
        ...Object.fromEntries(Object.entries(tasks).map(([placeholder, fn]) => [placeholder, fn.fn.functionArn])),
        ...Object.fromEntries(Object.entries(containerTasks).map(([placeholder, task]) => [placeholder, task.taskDefinitionFamily])),
        ...placement,
      },
      // State data holds ids, chunk bounds, artifact keys and failure causes: signed source URLs
      // are made inside the tasks and never returned, so execution data may be logged (cdk-nag SF1).
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: true },
      tracingEnabled: true,
    });

    // The one place the state machine gets to invoke anything: the unqualified ARNs it was given
    // (no `:*` for versions or aliases, which the definition never names).
    Grant.addToPrincipal({
      grantee: this.stateMachine,
      actions: ['lambda:InvokeFunction'],
      resourceArns: Object.values(tasks).map((fn) => fn.fn.functionArn),
    });
    // ... and to run (ecs:runTask.sync) exactly the container tasks' definitions.
    for (const task of Object.values(containerTasks)) task.grantRunSync(this.stateMachine);

    // Ends the workflow's own Catch cannot see (a timed-out or aborted execution) get the same
    // cleanup: the run fails with one refund and its slot goes back.
    if (workflow.onExecutionEnded) {
      const settle = taskFunction('SettleEndedExecution', workflow.onExecutionEnded, units.executionEnded(props.name));
      new Rule(this, 'ExecutionEnded', {
        description: `${props.name} workflow: executions that ended FAILED, TIMED_OUT or ABORTED`,
        eventPattern: {
          source: ['aws.states'],
          detailType: ['Step Functions Execution Status Change'],
          detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [this.stateMachine.stateMachineArn] },
        },
        targets: [new LambdaFunction(settle.fn, { retryAttempts: 8, maxEventAge: Duration.hours(6), deadLetterQueue: this.settleDeadLetters() })],
      });
    }

    Validations.of(this.stateMachine).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the actions CDK adds for SF1 and SF2: CloudWatch Logs delivery (logs:*LogDelivery*, resource policies, DescribeLogGroups) and X-Ray (PutTraceSegments, PutTelemetryRecords, GetSampling*) support no resource-level permissions.',
    });

    // At synthesis, check the rendered resource itself: CloudFormation must leave no `${...}`.
    const cfn = this.stateMachine.node.defaultChild as CfnStateMachine;
    this.node.addValidation({
      validate: () => {
        const definition = cfn.definitionString;
        if (typeof definition !== 'string') return [`${id}: the definition must be an inline string`];
        const substitutions = (Stack.of(this).resolve(cfn.definitionSubstitutions) ?? {}) as Record<string, unknown>;
        return substitutionErrors(definition, substitutions).map((e) => `${workflow.definitionFile} (${Stack.of(this).getLogicalId(cfn as CfnElement)}): ${e}`);
      },
    });
  }
}
