import { Annotations, CfnResource, Duration, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { ComparisonOperator, MathExpression, Metric, TreatMissingData, type Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { type CfnGlobalTable, type CfnTable, Table, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Cluster } from 'aws-cdk-lib/aws-ecs';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { CfnEventSourceMapping, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import { DefaultDashboardFactory, MonitoringFacade, SnsAlarmActionStrategy, type CustomMetricWithAlarm } from 'cdk-monitoring-constructs';

/**
 * What the alarms fire on. Each is a rate, a budget or a sustained state, never a single event a
 * customer can cause (a failed run over unreadable media, one throttled request), and none reads
 * function errors: every workflow task is retried by its state machine (its expected errors, such
 * as TranscriptionNotReady and BatchNotSettled, are retries by design), a route's or the
 * authorizer's failure is a 5xx of the API, and the stream and queue consumers' failures end in
 * their backlogs and dead-letter queues. Those outcomes are what the alarms watch.
 */
export const alarmThresholds = {
  /** Share of API requests answered with a 5xx, in a 5-minute period. */
  api5xxRate: 0.01,
  /** p99 API latency (authorizer and integration included)... */
  apiLatencyP99: Duration.seconds(5),
  /** ... over this many consecutive 5-minute periods: one slow cold start is not an incident. */
  apiLatencyPeriods: 3,
  /** Share of a workflow's executions that ended failed or timed out, in an hour... */
  workflowFailureRate: 0.2,
  /** ... once at least this many ended in that hour (customer-caused failures of a few runs are no incident). */
  workflowMinimumEnded: 10,
  /** Container tasks that failed (non-zero exit, never started) in an hour. */
  failedTasksPerHour: 5,
  /** Throttled table requests in each of this many consecutive 5-minute periods: sustained, not a spike. */
  tableThrottlePeriods: 3,
  /** Age of the oldest table-stream record a consumer has not handled: outbox events (webhooks) are that late. */
  streamIteratorAge: Duration.minutes(10),
  /** Age of the oldest message of a consumed queue; above the 15 minutes SQS can delay a retry. */
  queueMessageAge: Duration.minutes(30),
  /** Backlog ages must hold for this many consecutive 5-minute periods. */
  backlogPeriods: 3,
  /** Share of an account-wide quota in use (Lambda concurrent executions, Fargate vCPUs): time to raise it. */
  quotaUsage: 0.8,
} as const;

/** The 5-minute period most alarms evaluate; the workflow and container budgets count an hour. */
const FIVE_MINUTES = Duration.minutes(5);
const ONE_HOUR = Duration.hours(1);

/** What the stack holds that the alarms cover, found in the construct tree (never listed by hand). */
interface MonitoredResources {
  readonly functions: readonly LambdaFunction[];
  readonly stateMachines: readonly StateMachine[];
  /** Queues that something names as its dead-letter queue (see deadLetterQueueIds). */
  readonly deadLetterQueues: readonly Queue[];
  readonly tables: readonly (Table | TableV2)[];
  /** ECS clusters, where the workflows' container tasks run. */
  readonly clusters: readonly Cluster[];
  /** Functions that read a table's stream (event source mappings on a stream). */
  readonly streamConsumers: readonly LambdaFunction[];
  /** Queues a function consumes (event source mappings on a queue). */
  readonly consumedQueues: readonly Queue[];
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

/** The event source mappings' sources and consumers, as logical ids: `GetAtt [id, StreamArn]` for a stream, `[id, Arn]` for a queue. */
function eventSources(stack: Stack, mappings: readonly CfnEventSourceMapping[]): { source: string; attribute: string; consumer: string }[] {
  return mappings.flatMap((mapping) => {
    const source = (stack.resolve(mapping.eventSourceArn) as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
    const consumer = (stack.resolve(mapping.functionName) as { Ref?: string }).Ref;
    return source && consumer ? [{ source: source[0], attribute: source[1], consumer }] : [];
  });
}

/** Finds, under `scope`, everything the service's alarms must cover. */
function monitoredResources(scope: IConstruct): MonitoredResources {
  const stack = Stack.of(scope);
  const constructs = scope.node.findAll();
  const ofType = <T>(type: abstract new (...args: never[]) => T): T[] => constructs.filter((c): c is T & IConstruct => c instanceof type);
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const deadLetterIds = deadLetterQueueIds(stack, constructs);
  const sources = eventSources(stack, ofType(CfnEventSourceMapping));
  const functions = ofType(LambdaFunction);
  const queues = ofType(Queue);
  return {
    functions,
    stateMachines: ofType(StateMachine),
    deadLetterQueues: queues.filter((queue) => deadLetterIds.has(logicalId(queue))),
    tables: [...ofType(Table), ...ofType(TableV2)],
    clusters: ofType(Cluster),
    streamConsumers: functions.filter((fn) => sources.some(({ attribute, consumer }) => attribute === 'StreamArn' && consumer === logicalId(fn))),
    consumedQueues: queues.filter((queue) => sources.some(({ attribute, source }) => attribute === 'Arn' && source === logicalId(queue))),
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

interface ServiceMonitoringProps {
  /** The public HTTP API; its `$default` stage is the one monitored. */
  readonly api: IHttpApi;
  /** Addresses subscribed to the alarm topic by email (each must confirm). */
  readonly alarmEmails?: readonly string[];
}

/** What the alarm notifications reach: `alarmEmail`'s addresses, or nobody (the stack output and a synthesis warning say so). */
export const NO_ALARM_SUBSCRIBER = 'none: no alarm reaches anyone. Set alarmEmail in cdk.json and deploy, or subscribe to the AlarmTopicArn topic yourself.';

/**
 * Alarms and one dashboard for everything the stack holds (found with monitoredResources), on the
 * outcomes that need someone to act (alarmThresholds says which and why): the API's 5xx rate and
 * p99 latency, each workflow's share of failed executions, the depth of each dead-letter queue,
 * sustained throttling of each table and index, failed container tasks per hour, how far behind
 * the table-stream and queue consumers are, and how much of the account's Lambda and Fargate
 * quotas is in use. Every alarm notifies the alarm topic when it fires and when it recovers; a
 * synthesis without a subscriber warns. The dashboard graphs all of it and every function's
 * errors, throttles, duration and invocations. Create it last in the stack: a synthesis check fails
 * if something it should cover was added after it.
 */
export class ServiceMonitoring extends Construct {
  public readonly alarmTopic: Topic;
  public readonly dashboard: Dashboard;
  /** Where alarm notifications go, as the AlarmSubscribers output says. */
  public readonly alarmSubscribers: string;

  public constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `${stack.stackName} alarms`, enforceSSL: true });
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, states and metric values, no customer data; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer key for this alone is not worth its cost.',
    });
    const emails = props.alarmEmails ?? [];
    for (const email of emails) this.alarmTopic.addSubscription(new EmailSubscription(email));
    this.alarmSubscribers = emails.length ? emails.join(', ') : NO_ALARM_SUBSCRIBER;
    if (!emails.length) Annotations.of(this).addWarningV2('media-scanner:no-alarm-subscriber', `Alarm subscribers: ${NO_ALARM_SUBSCRIBER}`);

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

    facade.monitorApiGatewayV2HttpApi({
      api: props.api,
      humanReadableName: 'HTTP API ($default stage)',
      alarmFriendlyName: 'HttpApi',
      add5xxRateAlarm: {
        Critical: {
          maxErrorRate: alarmThresholds.api5xxRate,
          alarmDescriptionOverride: `More than ${alarmThresholds.api5xxRate * 100}% of API requests answered 5xx in 5 minutes.`,
        },
      },
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
      facade.monitorStepFunction({ stateMachine, humanReadableName: `State machine ${name}`, alarmFriendlyName: name });
    }
    facade.monitorCustom({
      humanReadableName: 'Workflow outcomes',
      alarmFriendlyName: 'Workflows',
      metricGroups: [{ title: 'Share of ended executions that failed or timed out (hourly)', metrics: resources.stateMachines.map(workflowFailures) }],
    });
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
      const throttled = {
        Critical: {
          maxThrottledEventsThreshold: 0,
          datapointsToAlarm: alarmThresholds.tableThrottlePeriods,
          evaluationPeriods: alarmThresholds.tableThrottlePeriods,
          alarmDescriptionOverride: `Requests to ${name} were throttled in each of ${alarmThresholds.tableThrottlePeriods} consecutive 5-minute periods.`,
        },
      };
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
    facade.monitorCustom({
      humanReadableName: 'Backlogs',
      alarmFriendlyName: 'Backlogs',
      metricGroups: [
        { title: 'Table stream: age of the oldest unhandled record', metrics: resources.streamConsumers.map(streamIteratorAge) },
        { title: 'Consumed queues: age of the oldest message', metrics: resources.consumedQueues.map(queueMessageAge) },
      ],
    });
    facade.monitorCustom({
      humanReadableName: 'Account quotas in use',
      alarmFriendlyName: 'Quotas',
      metricGroups: [{ title: 'Share of the quota in use', metrics: [lambdaConcurrencyUsage(), ...(resources.clusters.length ? [fargateVcpuUsage()] : [])] }],
    });
    for (const fn of resources.functions) {
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        alarmFriendlyName: friendlyName(fn),
        // Seven widgets per function would crowd the dashboard (and its 500-widget limit): all of them share the four below.
        addToDetailDashboard: false,
      });
    }
    const perFunction = (metric: (fn: LambdaFunction) => Metric) => resources.functions.map((fn) => metric(fn).with({ label: friendlyName(fn) }));
    facade.monitorCustom({
      humanReadableName: `Functions (${resources.functions.length})`,
      alarmFriendlyName: 'Functions',
      metricGroups: [
        { title: 'Errors (workflow tasks: retried by their state machine)', metrics: perFunction((fn) => fn.metricErrors()) },
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
   * Failed container tasks of a cluster. The workflows run them with `ecs:runTask.sync`, so no
   * service watches them (Container Insights measures running tasks, not failures). ECS reports
   * every stop to EventBridge: a rule takes the stops with a non-zero exit code or that never
   * started (image pull, capacity, network), keeps the events 14 days in a queue for inspection
   * (task, stop code, reason, exit codes), and its invocations per hour are the alarmed budget (one
   * task over a customer's unreadable source fails too).
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
      reason:
        'Nothing consumes this queue: it only keeps failed-task events for people to read, so no message can fail processing and need a dead-letter queue.',
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
      period: ONE_HOUR,
      label: 'Failed tasks per hour',
    });
    facade.monitorCustom({
      humanReadableName: `Container tasks in ${name}`,
      alarmFriendlyName: `${name}-Tasks`,
      metricGroups: [
        {
          title: 'Failed container tasks',
          metrics: [
            alarmed(failures, 'Failed', alarmThresholds.failedTasksPerHour, {
              description: `More than ${alarmThresholds.failedTasksPerHour} container tasks in ${name} failed in an hour: their stop events (reason, exit codes) are in the queue ${failedTasks.queueName}, their output in the tasks' log groups.`,
            }),
          ],
        },
      ],
    });
  }
}

/** A dashboard metric with an alarm above `threshold` (missing data: nothing happened). */
function alarmed(
  metric: Metric | MathExpression,
  alarmFriendlyName: string,
  threshold: number,
  { description, periods = 1 }: { description: string; periods?: number },
): CustomMetricWithAlarm {
  return {
    metric,
    alarmFriendlyName,
    addAlarm: {
      Critical: {
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        datapointsToAlarm: periods,
        evaluationPeriods: periods,
        treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
        alarmDescriptionOverride: description,
      },
    },
  };
}

/** A workflow's share of ended executions that failed or timed out in an hour, counted once enough ended. */
function workflowFailures(stateMachine: StateMachine): CustomMetricWithAlarm {
  const name = friendlyName(stateMachine);
  // The workflows share one graph, where every metric id must be unique: each id carries the workflow's name.
  const id = (what: string) => `${what}_${name.replace(/[^A-Za-z0-9]/g, '')}`;
  const [succeeded, failed, timedOut, aborted] = ['succeeded', 'failed', 'timedOut', 'aborted'].map(id);
  const hourly = { statistic: 'Sum', period: ONE_HOUR };
  const ended = `FILL(${succeeded}, 0) + FILL(${failed}, 0) + FILL(${timedOut}, 0) + FILL(${aborted}, 0)`;
  const share = new MathExpression({
    expression: `IF(${ended} >= ${alarmThresholds.workflowMinimumEnded}, (FILL(${failed}, 0) + FILL(${timedOut}, 0)) / (${ended}), 0)`,
    usingMetrics: {
      [succeeded!]: stateMachine.metricSucceeded(hourly),
      [failed!]: stateMachine.metricFailed(hourly),
      [timedOut!]: stateMachine.metricTimedOut(hourly),
      [aborted!]: stateMachine.metricAborted(hourly),
    },
    period: ONE_HOUR,
    label: name,
  });
  return alarmed(share, name, alarmThresholds.workflowFailureRate, {
    description: `More than ${alarmThresholds.workflowFailureRate * 100}% of ${name}'s executions that ended in an hour (once at least ${alarmThresholds.workflowMinimumEnded} ended) failed or timed out: see their execution histories.`,
  });
}

/** How far behind a table-stream consumer is: the age of the newest record it took, at its worst. */
function streamIteratorAge(fn: LambdaFunction): CustomMetricWithAlarm {
  const name = friendlyName(fn);
  const age = fn.metric('IteratorAge', { statistic: 'Maximum', period: FIVE_MINUTES, label: name });
  const limit = alarmThresholds.streamIteratorAge;
  return alarmed(age, `${name}-IteratorAge`, limit.toMilliseconds(), {
    description: `${name} is more than ${limit.toMinutes()} minutes behind the table stream for ${alarmThresholds.backlogPeriods * 5} minutes: events (and webhooks) are that late; see its errors and throttles.`,
    periods: alarmThresholds.backlogPeriods,
  });
}

/** How long the oldest message of a consumed queue has waited. */
function queueMessageAge(queue: Queue): CustomMetricWithAlarm {
  const name = friendlyName(queue);
  const age = queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: FIVE_MINUTES, label: name });
  const limit = alarmThresholds.queueMessageAge;
  return alarmed(age, `${name}-MessageAge`, limit.toSeconds(), {
    description: `A message of ${name} has waited more than ${limit.toMinutes()} minutes for ${alarmThresholds.backlogPeriods * 5} minutes: its consumer is failing or throttled.`,
    periods: alarmThresholds.backlogPeriods,
  });
}

/**
 * The share of an account-wide quota in use, from the usage metric AWS publishes for it (AWS/Usage)
 * and the quota's current value (metric math's SERVICE_QUOTA), so a raised quota needs no change here.
 */
function quotaUsage(label: string, dimensions: Record<string, string>, what: string): CustomMetricWithAlarm {
  const usage = new Metric({
    namespace: 'AWS/Usage',
    metricName: 'ResourceCount',
    dimensionsMap: { Type: 'Resource', ...dimensions },
    statistic: 'Maximum',
    period: FIVE_MINUTES,
  });
  // Both quotas share one graph: each metric id is its own.
  const id = `usage_${label.replace(/[^A-Za-z0-9]/g, '')}`;
  const share = new MathExpression({ expression: `${id} / SERVICE_QUOTA(${id})`, usingMetrics: { [id]: usage }, period: FIVE_MINUTES, label });
  return alarmed(share, label, alarmThresholds.quotaUsage, {
    description: `${what} is above ${alarmThresholds.quotaUsage * 100}% of the account's quota: raise the quota (Service Quotas) before work is refused.`,
  });
}

/** Lambda's concurrent executions of the whole account and region, which every function (and the reserves) share. */
const lambdaConcurrencyUsage = () =>
  quotaUsage(
    'Lambda concurrent executions',
    { Service: 'Lambda', Resource: 'ConcurrentExecutions', Class: 'None' },
    'Lambda concurrency in this account and region',
  );

/** Fargate On-Demand vCPUs of the account and region, which the container tasks take. */
const fargateVcpuUsage = () =>
  quotaUsage(
    'Fargate vCPUs',
    { Service: 'Fargate', Resource: 'OnDemand', Class: 'Standard/OnDemand' },
    'Fargate On-Demand vCPU use in this account and region',
  );
