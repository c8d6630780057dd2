/**
 * The operable stack as `cdk synth` builds it from cdk.json: alarms on everything the stack holds,
 * their topic and the dashboard, X-Ray tracing, the Powertools metrics namespace, API throttling
 * defaults, and what is retained when the stack goes. Context variants: operations-context.test.ts.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { defaultApiThrottle, METRICS_NAMESPACE } from '../../infra/stack.js';
import { alarmThresholds, NO_ALARM_SUBSCRIBER } from '../../infra/constructs/service-monitoring.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { alarmsWatching, deadLetterQueueIdsIn, TemplateQueries, type FnGetAtt, type Resource } from './template.js';

let q: TemplateQueries;

beforeAll(async () => {
  q = new TemplateQueries((await sharedAssembly()).template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const idsOf = (type: string): string[] => Object.keys(q.find(type));
const topicId = (): string => {
  const [id, ...others] = idsOf('AWS::SNS::Topic');
  if (!id || others.length) throw new Error('Expected one SNS topic');
  return id;
};
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The one alarm watching a metric of a resource, which must notify the topic when it fires and when it recovers. */
function oneAlarm(namespace: string, metricName: string, dimension: string, value: unknown): Resource {
  const alarms = alarmsWatching(q, namespace, metricName, dimension, value);
  expect(alarms, `${namespace} ${metricName} ${dimension}=${JSON.stringify(value)}`).toHaveLength(1);
  expect(alarms[0]!.Properties).toMatchObject({ AlarmActions: [{ Ref: topicId() }], OKActions: [{ Ref: topicId() }], ActionsEnabled: true });
  return alarms[0]!;
}

/** An alarm that fires on any occurrence in a 5-minute period. */
const firesOnAny = (alarm: Resource) =>
  expect(alarm.Properties).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: 0, DatapointsToAlarm: 1, TreatMissingData: 'notBreaching' });

/** The expression of a metric-math alarm (the one entry that is not a metric it reads). */
const expressionOf = (alarm: Resource): string => (alarm.Properties.Metrics as { Expression?: string }[]).find((m) => m.Expression)?.Expression ?? '';
const periodsOf = (alarm: Resource): number[] =>
  (alarm.Properties.Metrics as { Period?: number; MetricStat?: { Period: number } }[]).map((m) => m.MetricStat?.Period ?? m.Period!).filter(Boolean);

describe('alarms', () => {
  it('read no function errors or throttles: workflow tasks are retried by their state machines (expected errors among them), and the other functions fail into the 5xx rate, a backlog or a dead-letter queue', () => {
    const asl = readFileSync(new URL('../../statemachines/batch.asl.json', import.meta.url), 'utf8');
    // An expected error a task throws until the work is ready, retried for hours by design.
    expect(asl).toContain('"ErrorEquals": ["BatchNotSettled"]');
    expect(q.functionIds().length).toBeGreaterThan(30);
    for (const functionId of q.functionIds()) {
      expect(alarmsWatching(q, 'AWS/Lambda', 'Errors', 'FunctionName', { Ref: functionId }), functionId).toEqual([]);
      expect(alarmsWatching(q, 'AWS/Lambda', 'Throttles', 'FunctionName', { Ref: functionId }), functionId).toEqual([]);
    }
  });

  it("watch each workflow's hourly share of failed or timed-out executions, once enough ended: a customer's few failed runs are no incident", () => {
    const stateMachines = idsOf('AWS::StepFunctions::StateMachine');
    expect(stateMachines.length).toBeGreaterThan(1);
    for (const id of stateMachines) {
      const alarm = oneAlarm('AWS/States', 'ExecutionsFailed', 'StateMachineArn', { Ref: id });
      for (const metric of ['ExecutionsSucceeded', 'ExecutionsTimedOut', 'ExecutionsAborted'])
        expect(alarmsWatching(q, 'AWS/States', metric, 'StateMachineArn', { Ref: id })).toEqual([alarm]);
      expect(alarm.Properties).toMatchObject({
        Threshold: alarmThresholds.workflowFailureRate,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(expressionOf(alarm)).toMatch(new RegExp(`^IF\\(.* >= ${alarmThresholds.workflowMinimumEnded}, `));
      expect(new Set(periodsOf(alarm))).toEqual(new Set([3600]));
    }
  });

  it('watch the depth of every dead-letter queue, and of no other queue', () => {
    const deadLetterQueues = deadLetterQueueIdsIn(q);
    expect(deadLetterQueues.length).toBeGreaterThan(0);
    for (const id of idsOf('AWS::SQS::Queue')) {
      const depth = { 'Fn::GetAtt': [id, 'QueueName'] };
      if (deadLetterQueues.includes(id)) firesOnAny(oneAlarm('AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', depth));
      else expect(alarmsWatching(q, 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', depth), id).toEqual([]);
    }
  });

  it('watch sustained read and write throttling of the table and of each of its indexes', () => {
    const sustained = (alarm: Resource) =>
      expect(alarm.Properties).toMatchObject({
        Threshold: 0,
        DatapointsToAlarm: alarmThresholds.tableThrottlePeriods,
        EvaluationPeriods: alarmThresholds.tableThrottlePeriods,
      });
    for (const [id, table] of Object.entries(q.find('AWS::DynamoDB::Table'))) {
      for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
        const onTable = alarmsWatching(q, 'AWS/DynamoDB', metric, 'TableName', { Ref: id }).filter(
          (alarm) => !JSON.stringify(alarm).includes('GlobalSecondaryIndexName'),
        );
        expect(onTable, `${id} ${metric}`).toHaveLength(1);
        sustained(onTable[0]!);
        const indexes = ((table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((index) => index.IndexName);
        expect(indexes.length).toBeGreaterThan(0);
        for (const index of indexes) {
          const onIndex = alarmsWatching(q, 'AWS/DynamoDB', metric, 'GlobalSecondaryIndexName', index);
          expect(onIndex, `${index} ${metric}`).toHaveLength(1);
          sustained(onIndex[0]!);
        }
      }
    }
  });

  it("watch how far behind the table stream's reader and every consumed queue's consumer are", () => {
    const mappings = Object.values(q.find('AWS::Lambda::EventSourceMapping')).map((m) => ({
      source: (m.Properties.EventSourceArn as FnGetAtt)['Fn::GetAtt'],
      consumer: (m.Properties.FunctionName as { Ref: string }).Ref,
    }));
    const streamReaders = mappings.filter(({ source }) => source[1] === 'StreamArn');
    const queues = mappings.filter(({ source }) => source[1] === 'Arn');
    expect(streamReaders).toHaveLength(1);
    expect(queues.length).toBeGreaterThan(0);
    for (const { consumer } of streamReaders) {
      const alarm = oneAlarm('AWS/Lambda', 'IteratorAge', 'FunctionName', { Ref: consumer });
      expect(alarm.Properties).toMatchObject({
        Threshold: alarmThresholds.streamIteratorAge.toMilliseconds(),
        DatapointsToAlarm: alarmThresholds.backlogPeriods,
      });
    }
    for (const { source } of queues) {
      const alarm = oneAlarm('AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', { 'Fn::GetAtt': [source[0], 'QueueName'] });
      expect(alarm.Properties).toMatchObject({ Threshold: alarmThresholds.queueMessageAge.toSeconds(), DatapointsToAlarm: alarmThresholds.backlogPeriods });
    }
  });

  it("watch the share of the account's Lambda concurrency and Fargate vCPU quotas in use, against the quota's current value", () => {
    for (const [service, resource] of [
      ['Lambda', 'ConcurrentExecutions'],
      ['Fargate', 'OnDemand'],
    ] as const) {
      const alarm = oneAlarm('AWS/Usage', 'ResourceCount', 'Service', service);
      expect(JSON.stringify(alarm.Properties.Metrics)).toContain(`{"Name":"Resource","Value":"${resource}"}`);
      expect(expressionOf(alarm)).toMatch(/^(\w+) \/ SERVICE_QUOTA\(\1\)$/);
      expect(alarm.Properties).toMatchObject({ Threshold: alarmThresholds.quotaUsage, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it('watch the API stage: 5xx rate and sustained p99 latency', () => {
    const [apiId] = idsOf('AWS::ApiGatewayV2::Api');
    const onStage = (metric: string) => oneAlarm('AWS/ApiGateway', metric, 'ApiId', { Ref: apiId });
    expect(JSON.stringify(onStage('5xx'))).toContain('"Name":"Stage","Value":"$default"');
    expect(onStage('5xx').Properties).toMatchObject({ Threshold: alarmThresholds.api5xxRate, ComparisonOperator: 'GreaterThanThreshold' });
    expect(onStage('Latency').Properties).toMatchObject({
      Threshold: alarmThresholds.apiLatencyP99.toMilliseconds(),
      DatapointsToAlarm: alarmThresholds.apiLatencyPeriods,
      EvaluationPeriods: alarmThresholds.apiLatencyPeriods,
    });
    expect(JSON.stringify(onStage('Latency'))).toContain('"Stat":"p99"');
  });

  it('watch container tasks that fail in every ECS cluster: stopped with a non-zero exit code or never started', () => {
    const clusters = idsOf('AWS::ECS::Cluster');
    expect(clusters.length).toBeGreaterThan(0);
    for (const clusterId of clusters) {
      const rules = Object.entries(q.find('AWS::Events::Rule')).filter(
        ([, rule]) =>
          JSON.stringify((rule.Properties.EventPattern as { detail?: { clusterArn?: unknown } }).detail?.clusterArn) ===
          JSON.stringify([{ 'Fn::GetAtt': [clusterId, 'Arn'] }]),
      );
      expect(rules, clusterId).toHaveLength(1);
      const [ruleId, rule] = rules[0]!;
      expect(rule.Properties.EventPattern).toEqual({
        source: ['aws.ecs'],
        'detail-type': ['ECS Task State Change'],
        detail: {
          clusterArn: [{ 'Fn::GetAtt': [clusterId, 'Arn'] }],
          lastStatus: ['STOPPED'],
          $or: [{ containers: { exitCode: [{ 'anything-but': 0 }] } }, { stopCode: ['TaskFailedToStart'] }],
        },
      });
      // The stop events (task, reason, exit codes) are kept for inspection in a queue of their own.
      const targets = rule.Properties.Targets as { Arn: FnGetAtt }[];
      expect(targets).toHaveLength(1);
      expect(q.resource(targets[0]!.Arn['Fn::GetAtt'][0]).Type).toBe('AWS::SQS::Queue');
      const failed = oneAlarm('AWS/Events', 'Invocations', 'RuleName', { Ref: ruleId });
      // A budget per hour: one task over a customer's unreadable source fails too.
      expect(failed.Properties).toMatchObject({ Threshold: alarmThresholds.failedTasksPerHour, ComparisonOperator: 'GreaterThanThreshold' });
      expect(periodsOf(failed)).toEqual([3600]);
    }
  });

  it('cover nothing twice and nothing else', () => {
    const stateMachines = idsOf('AWS::StepFunctions::StateMachine').length;
    const tables = Object.values(q.find('AWS::DynamoDB::Table')).reduce(
      (n, t) => n + 2 + 2 * ((t.Properties.GlobalSecondaryIndexes as unknown[] | undefined)?.length ?? 0),
      0,
    );
    const backlogs = idsOf('AWS::Lambda::EventSourceMapping').length;
    const clusters = idsOf('AWS::ECS::Cluster').length;
    const quotas = 1 + (clusters ? 1 : 0);
    const expected = 2 + stateMachines + deadLetterQueueIdsIn(q).length + tables + clusters + backlogs + quotas;
    expect(idsOf('AWS::CloudWatch::Alarm')).toHaveLength(expected);
  });

  it('notify one TLS-only topic, which nobody is subscribed to unless alarmEmail says so (and an output says so)', () => {
    topicId();
    q.template.resourceCountIs('AWS::SNS::Subscription', 0);
    q.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId() }],
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
    q.template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId() } });
    q.template.hasOutput('AlarmSubscribers', { Value: NO_ALARM_SUBSCRIBER });
  });
});

describe('dashboard', () => {
  it('is one dashboard, named by the stack output, that graphs every function, state machine, dead-letter queue, table and the API', () => {
    const dashboards = idsOf('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    q.template.hasOutput('DashboardName', { Value: { Ref: dashboards[0] } });
    const body = JSON.stringify(q.resource(dashboards[0]!).Properties.DashboardBody);
    const mentioned = (reference: unknown) => body.includes(JSON.stringify(reference));
    for (const id of q.functionIds()) expect(mentioned({ Ref: id }), id).toBe(true);
    for (const id of idsOf('AWS::StepFunctions::StateMachine')) expect(mentioned({ Ref: id }), id).toBe(true);
    for (const id of deadLetterQueueIdsIn(q)) expect(mentioned({ 'Fn::GetAtt': [id, 'QueueName'] }), id).toBe(true);
    for (const id of idsOf('AWS::DynamoDB::Table')) expect(mentioned({ Ref: id }), id).toBe(true);
    for (const id of idsOf('AWS::ApiGatewayV2::Api')) expect(mentioned({ Ref: id }), id).toBe(true);
    // What the alarms added for backlogs and quotas read is graphed too.
    for (const metric of ['IteratorAge', 'ApproximateAgeOfOldestMessage', 'SERVICE_QUOTA']) expect(body, metric).toContain(metric);
    // CloudWatch allows 500 widgets a dashboard: the functions share their graphs rather than having seven each.
    expect(body.split('"type\\":\\"metric\\"').length - 1).toBeLessThan(100);
  });
});

describe('tracing and metrics', () => {
  it('traces every function actively, lets it write traces, and names the Powertools service and metrics namespace (Node functions: Powertools)', () => {
    for (const functionId of q.functionIds()) {
      expect(q.resource(functionId).Properties.TracingConfig, functionId).toEqual({ Mode: 'Active' });
      expect(q.actionsOf(functionId), functionId).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
    for (const functionId of q.nodeFunctionIds()) {
      expect(q.environmentOf(functionId), functionId).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'media-scanner',
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      });
    }
  });

  it('grants functions nothing on every resource but the X-Ray actions (and ListStreams to the stream reader), which have no resource-level permissions', () => {
    const streamReaders = q.functionsOnTableStream();
    expect(streamReaders).toHaveLength(1);
    for (const functionId of q.functionIds()) {
      const onEverything = q.statementsOf(functionId).filter((s) => asArray(s.Resource).includes('*'));
      const expected = [...(streamReaders.includes(functionId) ? ['dynamodb:ListStreams'] : []), 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
      expect(onEverything.flatMap((s) => asArray(s.Action)).sort(), functionId).toEqual(expected);
    }
  });

  it('traces every state machine, whose role may write traces', () => {
    for (const [id, stateMachine] of Object.entries(q.find('AWS::StepFunctions::StateMachine'))) {
      expect(stateMachine.Properties.TracingConfiguration, id).toEqual({ Enabled: true });
      const roleId = (stateMachine.Properties.RoleArn as FnGetAtt)['Fn::GetAtt'][0];
      expect(
        q.statementsOfRole(roleId).flatMap((s) => asArray(s.Action)),
        id,
      ).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
  });

  it('gives container tasks the same Powertools settings', () => {
    for (const [id, taskDefinition] of Object.entries(q.find('AWS::ECS::TaskDefinition'))) {
      for (const container of taskDefinition.Properties.ContainerDefinitions as { Environment: { Name: string; Value: unknown }[] }[]) {
        expect(container.Environment, id).toEqual(expect.arrayContaining([{ Name: 'POWERTOOLS_METRICS_NAMESPACE', Value: METRICS_NAMESPACE }]));
      }
    }
  });
});

describe('API throttling', () => {
  it('limits the default stage to the default rate and burst', () => {
    const [stage] = Object.values(q.find('AWS::ApiGatewayV2::Stage'));
    expect(stage!.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: defaultApiThrottle.rateLimit,
      ThrottlingBurstLimit: defaultApiThrottle.burstLimit,
    });
  });
});

describe('retained resources', () => {
  const retained = (): [string, Resource & { DeletionPolicy?: string }][] =>
    Object.entries(q.resources as Record<string, Resource & { DeletionPolicy?: string }>).filter(([, resource]) => resource.DeletionPolicy === 'Retain');

  it('are the table, the buckets, the log groups and the console\'s user pool (docs/operations.md, "Retained resources", lists them)', () => {
    expect([...new Set(retained().map(([, resource]) => resource.Type))].sort()).toEqual([
      'AWS::Cognito::UserPool',
      'AWS::DynamoDB::Table',
      'AWS::Logs::LogGroup',
      'AWS::S3::Bucket',
    ]);
  });

  it('have no fixed physical name, so that a failed first deploy can be retried: generated, or ending with the stack id', () => {
    for (const [id, resource] of retained()) {
      for (const [property, value] of Object.entries(resource.Properties ?? {}).filter(([name]) => /Name$/.test(name))) {
        expect(JSON.stringify(value), `${id}.${property}`).toContain('"Ref":"AWS::StackId"');
      }
    }
  });

  it('include the table, which is also protected against deletion', () => {
    for (const [id, table] of Object.entries(q.find('AWS::DynamoDB::Table'))) {
      expect(table.Properties.DeletionProtectionEnabled, id).toBe(true);
    }
  });
});
