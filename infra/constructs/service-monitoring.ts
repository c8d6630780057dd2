import { CfnResource, Duration, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { type CfnGlobalTable, type CfnTable, Table, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Cluster } from 'aws-cdk-lib/aws-ecs';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import { DefaultDashboardFactory, MonitoringFacade, SnsAlarmActionStrategy } from 'cdk-monitoring-constructs';

/** What the alarms fire on; every other alarm fires on any occurrence (> 0) in a 5-minute period. */
export const alarmThresholds = {
  /** Share of API requests answered with a 5xx, in a 5-minute period. */
  api5xxRate: 0.01,
  /** p99 API latency (authorizer and integration included)... */
  apiLatencyP99: Duration.seconds(5),
  /** ... over this many consecutive 5-minute periods: one slow cold start is not an incident. */
  apiLatencyPeriods: 3,
} as const;

/** Functions per errors or throttles alarm: CloudWatch lets one metric-math alarm read at most ten metrics. */
const FUNCTIONS_PER_ALARM = 10;

/** What the stack holds that the alarms cover, found in the construct tree (never listed by hand). */
export interface MonitoredResources {
  readonly functions: readonly LambdaFunction[];
  readonly stateMachines: readonly StateMachine[];
  /** Queues that something names as its dead-letter queue (see deadLetterQueueIds). */
  readonly deadLetterQueues: readonly Queue[];
  readonly tables: readonly (Table | TableV2)[];
  /** ECS clusters, where the workflows' container tasks run. */
  readonly clusters: readonly Cluster[];
}

/** A setting that names a dead-letter target: SQS redrive, Lambda async and event-source failures, EventBridge targets, pipes, SNS subscriptions. */
const DEAD_LETTER_KEY = /^(deadLetterConfig|redrivePolicy|onFailure)$/i;
/** The resource types that can hold such a setting. Only these are resolved: resolving an IAM policy early would freeze it. */
const DEAD_LETTER_HOLDERS = new Set([
  'AWS::SQS::Queue',
  'AWS::Events::Rule',
  'AWS::Lambda::Function',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Pipes::Pipe',
  'AWS::Scheduler::Schedule',
  'AWS::SNS::Subscription',
]);

/** The logical ids of everything an `Fn::GetAtt [id, Arn]` names under a dead-letter setting of `value`. */
function deadLetterTargets(value: unknown, underDeadLetterKey = false): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => deadLetterTargets(item, underDeadLetterKey));
  if (typeof value !== 'object' || value === null) return [];
  const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  if (underDeadLetterKey && Array.isArray(getAtt) && getAtt[1] === 'Arn' && typeof getAtt[0] === 'string') return [getAtt[0]];
  return Object.entries(value).flatMap(([key, item]) => deadLetterTargets(item, underDeadLetterKey || DEAD_LETTER_KEY.test(key)));
}

/** Logical ids of the resources the stack's resources name as their dead-letter targets. */
function deadLetterQueueIds(stack: Stack, constructs: readonly IConstruct[]): Set<string> {
  const holders = constructs.filter((c): c is CfnResource => c instanceof CfnResource && DEAD_LETTER_HOLDERS.has(c.cfnResourceType));
  // `cfnProperties` is what CloudFormation gets (before raw overrides), camelCase at the top level.
  return new Set(holders.flatMap((resource) => deadLetterTargets(stack.resolve((resource as unknown as { cfnProperties: unknown }).cfnProperties))));
}

/** Finds, under `scope`, everything the service's alarms must cover. */
export function monitoredResources(scope: IConstruct): MonitoredResources {
  const stack = Stack.of(scope);
  const constructs = scope.node.findAll();
  const ofType = <T>(type: abstract new (...args: never[]) => T): T[] => constructs.filter((c): c is T & IConstruct => c instanceof type);
  const deadLetterIds = deadLetterQueueIds(stack, constructs);
  return {
    functions: ofType(LambdaFunction),
    stateMachines: ofType(StateMachine),
    deadLetterQueues: ofType(Queue).filter((queue) => deadLetterIds.has(stack.getLogicalId(queue.node.defaultChild as CfnElement))),
    tables: [...ofType(Table), ...ofType(TableV2)],
    clusters: ofType(Cluster),
  };
}

/** Generic leaf ids that say nothing the parent's id does not (`ApiRunsCreate/Function`). */
const GENERIC_LEAF = new Set(['Function', 'StateMachine', 'Cluster', 'Resource', 'Default']);

/** `AnalysisWorkflow-AnalyzeChunkFunction`: a resource's path in the stack, for alarm names and dashboard titles. */
function friendlyName(construct: IConstruct): string {
  const parts = construct.node.scopes.slice(construct.node.scopes.indexOf(Stack.of(construct)) + 1).map((c) => c.node.id);
  if (parts.length > 1 && GENERIC_LEAF.has(parts.at(-1)!)) parts.pop();
  return parts.join('-');
}

export interface ServiceMonitoringProps {
  /** The public HTTP API; its `$default` stage is the one monitored. */
  readonly api: IHttpApi;
  /** Addresses subscribed to the alarm topic by email (each must confirm). */
  readonly alarmEmails?: readonly string[];
}

/**
 * Alarms and one dashboard for everything the stack holds (found with monitoredResources): the
 * API's 5xx rate and p99 latency, each function's errors and throttles, each state machine's
 * failed and timed-out executions, each dead-letter queue's depth, each table's (and index's)
 * throttled requests and each ECS cluster's failed tasks. Every alarm notifies the alarm topic
 * when it fires and when it recovers. Create it last in the stack: a synthesis check fails if
 * something it should cover was added after it.
 */
export class ServiceMonitoring extends Construct {
  public readonly alarmTopic: Topic;
  public readonly dashboard: Dashboard;

  public constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `${stack.stackName} alarms`, enforceSSL: true });
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, states and metric values, no customer data; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer key for this alone is not worth its cost.',
    });
    for (const email of props.alarmEmails ?? []) this.alarmTopic.addSubscription(new EmailSubscription(email));

    const dashboards = new DefaultDashboardFactory(this, 'Dashboards', {
      dashboardNamePrefix: stack.stackName,
      createDashboard: true,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    });
    const onAlarmAndOk = new SnsAlarmActionStrategy({ onAlarmTopic: this.alarmTopic, onOkTopic: this.alarmTopic });
    const facade = new MonitoringFacade(this, 'Monitoring', {
      alarmFactoryDefaults: { alarmNamePrefix: stack.stackName, actionsEnabled: true, action: onAlarmAndOk, datapointsToAlarm: 1 },
      dashboardFactory: dashboards,
    });
    this.dashboard = dashboards.dashboard!;
    const anyOccurrence = (what: string) => ({ Critical: { maxErrorCount: 0, alarmDescriptionOverride: what } });

    facade.monitorApiGatewayV2HttpApi({
      api: props.api,
      humanReadableName: 'HTTP API ($default stage)',
      alarmFriendlyName: 'HttpApi',
      add5xxRateAlarm: { Critical: { maxErrorRate: alarmThresholds.api5xxRate, alarmDescriptionOverride: `More than ${alarmThresholds.api5xxRate * 100}% of API requests answered 5xx in 5 minutes.` } },
      addLatencyP99Alarm: {
        Critical: {
          maxLatency: alarmThresholds.apiLatencyP99,
          datapointsToAlarm: alarmThresholds.apiLatencyPeriods,
          alarmDescriptionOverride: `API p99 latency above ${alarmThresholds.apiLatencyP99.toSeconds()} s for ${alarmThresholds.apiLatencyPeriods * 5} minutes.`,
        },
      },
    });

    const resources = monitoredResources(stack);
    for (const stateMachine of resources.stateMachines) {
      const name = friendlyName(stateMachine);
      facade.monitorStepFunction({
        stateMachine,
        humanReadableName: `State machine ${name}`,
        alarmFriendlyName: name,
        addFailedExecutionCountAlarm: anyOccurrence(`An execution of ${name} failed: see its execution history and log group.`),
        addTimedOutExecutionCountAlarm: anyOccurrence(`An execution of ${name} timed out.`),
      });
    }
    for (const cluster of resources.clusters) this.monitorContainerTasks(facade, cluster);
    for (const queue of resources.deadLetterQueues) {
      const name = friendlyName(queue);
      facade.monitorSqsQueue({
        queue,
        humanReadableName: `Dead-letter queue ${name}`,
        alarmFriendlyName: name,
        addQueueMaxSizeAlarm: {
          Critical: {
            maxMessageCount: 0,
            // SQS reports a queue only while it is active, and a queue holding messages is: no data is an empty queue.
            treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
            alarmDescriptionOverride: `${name} holds messages that could not be delivered: inspect them, then redrive or purge.`,
          },
        },
      });
    }
    for (const table of resources.tables) {
      const name = friendlyName(table);
      const throttled = { Critical: { maxThrottledEventsThreshold: 0, alarmDescriptionOverride: `Requests to ${name} were throttled.` } };
      // Its billing mode (what "usage" means on the dashboard) is read from the table itself.
      facade.monitorDynamoTable({
        table,
        humanReadableName: `Table ${name}`,
        alarmFriendlyName: name,
        addReadThrottledEventsCountAlarm: throttled,
        addWriteThrottledEventsCountAlarm: throttled,
      });
      const indexes = (stack.resolve((table.node.defaultChild as CfnTable | CfnGlobalTable).globalSecondaryIndexes) ?? []) as { indexName: string }[];
      for (const { indexName } of indexes) {
        facade.monitorDynamoTableGlobalSecondaryIndex({
          table,
          globalSecondaryIndexName: indexName,
          humanReadableName: `Table ${name}, index ${indexName}`,
          alarmFriendlyName: `${name}-${indexName}`,
          addReadThrottledEventsCountAlarm: throttled,
          addWriteThrottledEventsCountAlarm: throttled,
        });
      }
    }
    for (const fn of resources.functions) {
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        alarmFriendlyName: friendlyName(fn),
        // Seven widgets per function would crowd the dashboard (and its 500-widget limit): all of them share the four below.
        addToDetailDashboard: false,
      });
    }
    this.alarmOnFunctions(resources.functions, 'Errors', 'threw errors (see their log groups)', (fn) => fn.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }));
    this.alarmOnFunctions(resources.functions, 'Throttles', 'were throttled (account or reserved concurrency)', (fn) => fn.metricThrottles({ statistic: 'Sum', period: Duration.minutes(5) }));
    const perFunction = (metric: (fn: LambdaFunction) => Metric) => resources.functions.map((fn) => metric(fn).with({ label: friendlyName(fn) }));
    facade.monitorCustom({
      humanReadableName: `Functions (${resources.functions.length})`,
      alarmFriendlyName: 'Functions',
      metricGroups: [
        { title: 'Errors', metrics: perFunction((fn) => fn.metricErrors()) },
        { title: 'Throttles', metrics: perFunction((fn) => fn.metricThrottles()) },
        { title: 'Duration p99', metrics: perFunction((fn) => fn.metricDuration({ statistic: 'p99' })) },
        { title: 'Invocations', metrics: perFunction((fn) => fn.metricInvocations()) },
      ],
    });

    // Everything found later (built after this construct) would go unwatched: fail the synthesis instead.
    this.node.addValidation({
      validate: () => {
        const now = monitoredResources(stack);
        return (Object.keys(now) as (keyof MonitoredResources)[]).flatMap((kind) =>
          now[kind]
            .filter((found) => !(resources[kind] as readonly IConstruct[]).includes(found))
            .map((found) => `${found.node.path} (${kind}) has no alarms: create it before ${this.node.path}, which must come last in the stack`),
        );
      },
    });
  }

  /**
   * Errors (or throttles) of every function, ten functions to an alarm (the most one metric-math
   * alarm may read): one alarm per function would cost a resource each under CloudFormation's
   * 500-resource limit of a stack, and the alarm's description names the functions it covers.
   */
  private alarmOnFunctions(functions: readonly LambdaFunction[], label: 'Errors' | 'Throttles', what: string, metric: (fn: LambdaFunction) => Metric): void {
    const stack = Stack.of(this);
    for (let first = 0; first < functions.length; first += FUNCTIONS_PER_ALARM) {
      const group = functions.slice(first, first + FUNCTIONS_PER_ALARM);
      const alarm = new Alarm(this, `Function${label}${first / FUNCTIONS_PER_ALARM + 1}`, {
        alarmName: `${stack.stackName}-Function${label}-${first / FUNCTIONS_PER_ALARM + 1}`,
        alarmDescription: `Invocations ${what} of: ${group.map(friendlyName).join(', ')}.`,
        metric: new MathExpression({
          expression: 'SUM(METRICS())',
          usingMetrics: Object.fromEntries(group.map((fn, index) => [`m${index}`, metric(fn)])),
          period: Duration.minutes(5),
          label,
        }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        actionsEnabled: true,
      });
      alarm.addAlarmAction(new SnsAction(this.alarmTopic));
      alarm.addOkAction(new SnsAction(this.alarmTopic));
    }
  }

  /**
   * Failed container tasks of a cluster. The workflows run them with `ecs:runTask.sync`, so no
   * service watches them (Container Insights measures running tasks, not failures). ECS reports
   * every stop to EventBridge: a rule takes the stops with a non-zero exit code or that never
   * started (image pull, capacity, network), keeps the events 14 days in a queue for inspection
   * (task, stop code, reason, exit codes), and its invocations are the alarmed metric.
   */
  private monitorContainerTasks(facade: MonitoringFacade, cluster: Cluster): void {
    const name = friendlyName(cluster);
    const failedTasks = new Queue(this, `${name}FailedTasks`, {
      enforceSSL: true,
      encryption: QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(failedTasks).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'Nothing consumes this queue: it only keeps failed-task events for people to read, so no message can fail processing and need a dead-letter queue.',
    });
    const rule = new Rule(this, `${name}TaskFailed`, {
      description: `${name}: container tasks that stopped with a non-zero exit code or failed to start`,
      eventPattern: {
        source: ['aws.ecs'],
        detailType: ['ECS Task State Change'],
        detail: {
          clusterArn: [cluster.clusterArn],
          lastStatus: ['STOPPED'],
          $or: [{ containers: { exitCode: [{ 'anything-but': 0 }] } }, { stopCode: ['TaskFailedToStart'] }],
        },
      },
      targets: [new SqsQueue(failedTasks)],
    });
    const failures = new Metric({
      namespace: 'AWS/Events',
      metricName: 'Invocations',
      dimensionsMap: { RuleName: rule.ruleName },
      statistic: 'Sum',
      period: Duration.minutes(5),
      label: 'Failed tasks',
    });
    facade.monitorCustom({
      humanReadableName: `Container tasks in ${name}`,
      alarmFriendlyName: `${name}-Tasks`,
      metricGroups: [
        {
          title: 'Failed container tasks',
          metrics: [
            {
              metric: failures,
              alarmFriendlyName: 'Failed',
              addAlarm: {
                Critical: {
                  threshold: 0,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride: `A container task in ${name} failed: its stop event (reason, exit codes) is in the queue ${failedTasks.queueName}, its output in the task's log group.`,
                },
              },
            },
          ],
        },
      ],
    });
  }
}
