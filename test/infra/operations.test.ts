/**
 * The operable stack as `cdk synth` builds it from cdk.json: alarms on everything the stack holds,
 * their topic and the dashboard, X-Ray tracing, the Powertools metrics namespace, API throttling
 * defaults, and what is retained when the stack goes. Context variants: operations-context.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { defaultApiThrottle, METRICS_NAMESPACE } from '../../infra/stack.js';
import { alarmThresholds } from '../../infra/constructs/service-monitoring.js';
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

describe('alarms', () => {
  it('watch errors and throttles of every function', () => {
    expect(q.functionIds().length).toBeGreaterThan(30);
    for (const functionId of q.functionIds()) {
      firesOnAny(oneAlarm('AWS/Lambda', 'Errors', 'FunctionName', { Ref: functionId }));
      firesOnAny(oneAlarm('AWS/Lambda', 'Throttles', 'FunctionName', { Ref: functionId }));
    }
  });

  it('watch failed and timed-out executions of every state machine', () => {
    const stateMachines = idsOf('AWS::StepFunctions::StateMachine');
    expect(stateMachines.length).toBeGreaterThan(1);
    for (const id of stateMachines) {
      firesOnAny(oneAlarm('AWS/States', 'ExecutionsFailed', 'StateMachineArn', { Ref: id }));
      firesOnAny(oneAlarm('AWS/States', 'ExecutionsTimedOut', 'StateMachineArn', { Ref: id }));
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

  it('watch read and write throttling of the table and of each of its indexes', () => {
    for (const [id, table] of Object.entries(q.find('AWS::DynamoDB::Table'))) {
      for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
        const onTable = alarmsWatching(q, 'AWS/DynamoDB', metric, 'TableName', { Ref: id }).filter((alarm) => !JSON.stringify(alarm).includes('GlobalSecondaryIndexName'));
        expect(onTable, `${id} ${metric}`).toHaveLength(1);
        firesOnAny(onTable[0]!);
        const indexes = ((table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((index) => index.IndexName);
        expect(indexes.length).toBeGreaterThan(0);
        for (const index of indexes) expect(alarmsWatching(q, 'AWS/DynamoDB', metric, 'GlobalSecondaryIndexName', index), `${index} ${metric}`).toHaveLength(1);
      }
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
      const rules = Object.entries(q.find('AWS::Events::Rule')).filter(([, rule]) =>
        JSON.stringify((rule.Properties.EventPattern as { detail?: { clusterArn?: unknown } }).detail?.clusterArn) === JSON.stringify([{ 'Fn::GetAtt': [clusterId, 'Arn'] }]),
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
      firesOnAny(oneAlarm('AWS/Events', 'Invocations', 'RuleName', { Ref: ruleId }));
    }
  });

  it('cover nothing twice and nothing else', () => {
    // Errors and throttles ten functions to an alarm each (a metric-math alarm reads at most ten metrics).
    const functions = 2 * Math.ceil(q.functionIds().length / 10);
    const stateMachines = idsOf('AWS::StepFunctions::StateMachine').length * 2;
    const tables = Object.values(q.find('AWS::DynamoDB::Table')).reduce((n, t) => n + 2 + 2 * ((t.Properties.GlobalSecondaryIndexes as unknown[] | undefined)?.length ?? 0), 0);
    const expected = functions + stateMachines + deadLetterQueueIdsIn(q).length + tables + 2 + idsOf('AWS::ECS::Cluster').length;
    expect(idsOf('AWS::CloudWatch::Alarm')).toHaveLength(expected);
  });

  it('notify one TLS-only topic, which nobody is subscribed to unless alarmEmail says so', () => {
    topicId();
    q.template.resourceCountIs('AWS::SNS::Subscription', 0);
    q.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId() }],
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
    q.template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId() } });
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
      expect(q.environmentOf(functionId), functionId).toMatchObject({ POWERTOOLS_SERVICE_NAME: 'media-scanner', POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE });
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
      expect(q.statementsOfRole(roleId).flatMap((s) => asArray(s.Action)), id).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
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

  it('are the table, the buckets and the log groups (README, "Deploying to AWS", lists them)', () => {
    expect([...new Set(retained().map(([, resource]) => resource.Type))].sort()).toEqual(['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::S3::Bucket']);
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
