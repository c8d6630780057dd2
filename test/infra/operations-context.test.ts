/**
 * Operations settings from CDK context and the rule that persisted settings live in cdk.json, on
 * the app as constructed (nothing here needs a synthesis of the whole app), and the monitoring's
 * discovery on a small stack. The default stack's alarms, dashboard and tracing: operations.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { CfnStage, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, BillingMode, StreamViewType, Table, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Code, Function as LambdaFunction, Runtime, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnSubscription } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, Pass, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { createApp } from '../../infra/create-app.js';
import { NO_ALARM_SUBSCRIBER, ServiceMonitoring } from '../../infra/constructs/service-monitoring.js';
import { engineContextKeys } from '../../infra/constructs/engine-access.js';
import { cdkJsonContext, checkPersistedContext, emailsContext, positiveNumberContext } from '../../infra/deployment-context.js';
import { defaultApiThrottle, MediaScannerStack } from '../../infra/stack.js';
import { alarmsWatching, TemplateQueries } from './template.js';

const cdkJson = cdkJsonContext();
// Functions are not bundled: construction is all these tests need.
const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const noBundling = { [BUNDLING_STACKS]: [] };

/**
 * The app as `cdk synth` builds it with `committed` in cdk.json and `cli` given as `-c`: the CLI
 * passes their merge in CDK_CONTEXT_JSON, and the app reads cdk.json itself.
 */
function createAppWith({ committed = {}, cli = {} }: { committed?: Record<string, unknown>; cli?: Record<string, unknown> }) {
  vi.stubEnv('CDK_CONTEXT_JSON', JSON.stringify({ ...cdkJson, ...committed, ...cli, ...noBundling }));
  try {
    return createApp({ outdir, committedContext: { ...cdkJson, ...committed } });
  } finally {
    vi.unstubAllEnvs();
  }
}

const bedrock = { analyzer: 'bedrock', bedrockModelId: 'amazon.nova-lite-v1:0' };

describe('settings that must persist between deploys', () => {
  it('refuse engine settings given only on the command line, naming them and where they belong', () => {
    expect(() => createAppWith({ cli: bedrock })).toThrow(
      /analyzer="bedrock" \(cdk\.json: unset\), bedrockModelId="amazon\.nova-lite-v1:0" \(cdk\.json: unset\)\..*revert silently.*cdk\.json.*-c confirmContextChange=true/,
    );
  });

  it('are taken from cdk.json', () => {
    expect(createAppWith({ committed: bedrock }).stack.node.tryGetContext('analyzer')).toBe('bedrock');
  });

  it('are deployed once from the command line with -c confirmContextChange=true', () => {
    expect(() => createAppWith({ cli: { ...bedrock, confirmContextChange: 'true' } })).not.toThrow();
  });

  // The rule itself, on a bare app's context (cheap): cdk.json's context against the merged one.
  const check = (committed: Record<string, unknown>, effective: Record<string, unknown>) => () =>
    checkPersistedContext(new App({ outdir, context: effective }).node, committed);

  it('refuse a command line that differs from cdk.json, and one that clears what cdk.json holds', () => {
    expect(check(bedrock, { ...bedrock, bedrockModelId: 'amazon.nova-pro-v1:0' })).toThrow(
      /bedrockModelId="amazon\.nova-pro-v1:0" \(cdk\.json: "amazon\.nova-lite-v1:0"\)/,
    );
    expect(check(bedrock, { ...bedrock, analyzer: null })).toThrow(/analyzer=unset \(cdk\.json: "bedrock"\)/);
  });

  it.each([
    ['alarmEmail', 'ops@example.com'],
    ['apiThrottleRateLimit', '500'],
    ['apiThrottleBurstLimit', '900'],
    ['containerImageUri', '111111111111.dkr.ecr.us-east-1.amazonaws.com/media-scanner@sha256:' + 'a'.repeat(64)],
    ['uploadsEnabled', 'false'],
    ['eventDeliveryEnabled', 'false'],
    ...Object.keys(engineContextKeys).map((key) => [key, 'x']),
  ])('cover %s', (key, value) => {
    expect(check({}, { [key]: value })).toThrow(new RegExp(`${key}="${value}" \\(cdk\\.json: unset\\)`));
    expect(check({ [key]: value }, { [key]: value })).not.toThrow();
  });

  it('take a number in cdk.json and the same number as `-c` text for the same setting', () => {
    expect(check({ apiThrottleRateLimit: 500 }, { apiThrottleRateLimit: '500' })).not.toThrow();
  });

  it('accept confirmEngineChange=true as the same flag, and only "true"', () => {
    expect(check({}, { ...bedrock, confirmEngineChange: 'true' })).not.toThrow();
    expect(check({}, { ...bedrock, confirmContextChange: true })).not.toThrow();
    expect(check({}, { ...bedrock, confirmContextChange: 'yes' })).toThrow(/confirmContextChange=true/);
  });
});

/** The AlarmSubscribers output of a stack. */
const alarmSubscribersOf = (stack: Stack): unknown =>
  (Template.fromStack(stack).toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs.AlarmSubscribers?.Value;

describe('API throttling and alarm email from context', () => {
  it('reach the default stage and the alarm topic', () => {
    const stack = new MediaScannerStack(
      new App({
        outdir,
        context: { ...cdkJson, ...noBundling, apiThrottleRateLimit: 12.5, apiThrottleBurstLimit: '40', alarmEmail: 'ops@example.com, oncall@example.com' },
      }),
      'MediaScanner',
    );
    const [stage, ...otherStages] = stack.node.findAll().filter((c) => c instanceof CfnStage);
    expect(otherStages).toEqual([]);
    expect(stack.resolve(stage!.defaultRouteSettings)).toEqual({ throttlingRateLimit: 12.5, throttlingBurstLimit: 40 });
    const topic = stack.resolve(stack.operations.alarmTopic.topicArn) as unknown;
    const subscriptions = stack.node.findAll().filter((c) => c instanceof CfnSubscription);
    expect(subscriptions.map((s) => ({ protocol: s.protocol, endpoint: s.endpoint, topic: stack.resolve(s.topicArn) as unknown }))).toEqual([
      { protocol: 'email', endpoint: 'ops@example.com', topic },
      { protocol: 'email', endpoint: 'oncall@example.com', topic },
    ]);
    expect(alarmSubscribersOf(stack)).toBe('ops@example.com, oncall@example.com');
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('Alarm subscribers'));
  });

  it('say at synthesis and in a stack output that no alarm reaches anyone without an address', () => {
    const stack = new MediaScannerStack(new App({ outdir, context: { ...cdkJson, ...noBundling } }), 'MediaScanner');
    expect(alarmSubscribersOf(stack)).toBe(NO_ALARM_SUBSCRIBER);
    Annotations.fromStack(stack).hasWarning('/MediaScanner/Operations', Match.stringLikeRegexp('^Alarm subscribers: none: no alarm reaches anyone'));
  });

  it('fail the stack on a bad value, naming the key', () => {
    expect(() => new MediaScannerStack(new App({ outdir, context: { ...cdkJson, ...noBundling, apiThrottleRateLimit: '0' } }), 'MediaScanner')).toThrow(
      'Invalid CDK context: apiThrottleRateLimit must be a positive number, got "0"',
    );
  });

  const node = (context: Record<string, unknown>) => new App({ outdir, context }).node;

  it('default to 100 requests per second in bursts of 200, and no address', () => {
    expect(defaultApiThrottle).toEqual({ rateLimit: 100, burstLimit: 200 });
    expect(positiveNumberContext(node({}), 'apiThrottleRateLimit', 100)).toBe(100);
    expect(emailsContext(node({}), 'alarmEmail')).toEqual([]);
  });

  it('read numbers from cdk.json or text from -c, and addresses as a comma-separated text or a list', () => {
    expect(positiveNumberContext(node({ rate: 12.5 }), 'rate', 1)).toBe(12.5);
    expect(positiveNumberContext(node({ burst: '40' }), 'burst', 1, { integer: true })).toBe(40);
    expect(emailsContext(node({ alarmEmail: ['ops@example.com'] }), 'alarmEmail')).toEqual(['ops@example.com']);
  });

  it.each([
    [{ rate: '0' }, {}, /rate must be a positive number, got "0"/],
    [{ rate: 'fast' }, {}, /rate must be a positive number, got "fast"/],
    [{ rate: -5 }, {}, /rate must be a positive number, got -5/],
    [{ rate: '2.5' }, { integer: true }, /rate must be a positive integer, got "2\.5"/],
    [{ rate: '' }, { integer: true }, /rate must be a positive integer, got ""/],
  ])('refuse %j for a number', (context, options, message) => {
    expect(() => positiveNumberContext(node(context), 'rate', 1, options)).toThrow(message);
  });

  it.each([['ops'], ['ops@example.com,'], ['ops@example.com oncall@example.com']])('refuse alarmEmail=%j', (value) => {
    expect(() => emailsContext(node({ alarmEmail: value }), 'alarmEmail')).toThrow(
      /Invalid CDK context: alarmEmail must be an email address \(or several, comma-separated\)/,
    );
  });
});

describe('ServiceMonitoring', () => {
  /** A small stack with what the monitoring must find by itself, dead-letter queues of every kind among it. */
  function smallStack(addLate?: (stack: Stack) => void) {
    // Without the CloudFormation schema check (its first run loads for seconds): the shared synthesis has it.
    const stack = new Stack(new App({ outdir, builtinCloudFormationValidation: false }), 'Small');
    const fn = (id: string, props: Partial<ConstructorParameters<typeof LambdaFunction>[2]> = {}) =>
      new LambdaFunction(stack, id, {
        runtime: Runtime.NODEJS_24_X,
        handler: 'index.handler',
        code: Code.fromInline('export const handler = () => {}'),
        ...props,
      });
    // Queue redrive, a function's asynchronous failures and an EventBridge target's undeliverable events.
    const redriven = new Queue(stack, 'RedriveDeadLetters');
    const work = new Queue(stack, 'Work', { deadLetterQueue: { queue: redriven, maxReceiveCount: 3 } });
    const worker = fn('Worker', { deadLetterQueueEnabled: true });
    worker.addEventSource(new SqsEventSource(work));
    const ruleDeadLetters = new Queue(stack, 'RuleDeadLetters');
    new Rule(stack, 'Nightly', { schedule: Schedule.rate(Duration.days(1)), targets: [new SqsQueue(work, { deadLetterQueue: ruleDeadLetters })] });
    new StateMachine(stack, 'Flow', { definitionBody: DefinitionBody.fromChainable(new Pass(stack, 'Step')) });
    const data = new Table(stack, 'Data', {
      partitionKey: { name: 'PK', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      stream: StreamViewType.NEW_IMAGE,
    });
    const reader = fn('StreamReader');
    reader.addEventSource(new DynamoEventSource(data, { startingPosition: StartingPosition.LATEST }));
    new TableV2(stack, 'GlobalData', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
    new ServiceMonitoring(stack, 'Operations', { api: new HttpApi(stack, 'Api') });
    addLate?.(stack);
    const q = new TemplateQueries(Template.fromStack(stack));
    const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
    return {
      q,
      worker: logicalId(worker),
      reader: logicalId(reader),
      work: logicalId(work),
      deadLetterQueues: [redriven, ruleDeadLetters, worker.deadLetterQueue!].map(logicalId),
    };
  }

  it('finds every state machine, dead-letter queue, table, stream reader and consumed queue of its stack by itself', () => {
    const { q, worker, reader, work, deadLetterQueues } = smallStack();
    // A function's errors and throttles are graphed, not alarmed: their outcomes are (below).
    expect(alarmsWatching(q, 'AWS/Lambda', 'Errors', 'FunctionName', { Ref: worker })).toEqual([]);
    expect(alarmsWatching(q, 'AWS/Lambda', 'Throttles', 'FunctionName', { Ref: worker })).toEqual([]);
    expect(alarmsWatching(q, 'AWS/Lambda', 'IteratorAge', 'FunctionName', { Ref: reader })).toHaveLength(1);
    expect(alarmsWatching(q, 'AWS/Lambda', 'IteratorAge', 'FunctionName', { Ref: worker })).toEqual([]);
    expect(alarmsWatching(q, 'AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', { 'Fn::GetAtt': [work, 'QueueName'] })).toHaveLength(1);
    // Lambda's concurrency quota always; Fargate's only where a cluster runs tasks (none here).
    expect(alarmsWatching(q, 'AWS/Usage', 'ResourceCount', 'Service', 'Lambda')).toHaveLength(1);
    expect(alarmsWatching(q, 'AWS/Usage', 'ResourceCount', 'Service', 'Fargate')).toEqual([]);
    const [flow] = Object.keys(q.find('AWS::StepFunctions::StateMachine'));
    expect(alarmsWatching(q, 'AWS/States', 'ExecutionsFailed', 'StateMachineArn', { Ref: flow })).toHaveLength(1);
    for (const table of [...Object.keys(q.find('AWS::DynamoDB::Table')), ...Object.keys(q.find('AWS::DynamoDB::GlobalTable'))]) {
      expect(alarmsWatching(q, 'AWS/DynamoDB', 'WriteThrottleEvents', 'TableName', { Ref: table }), table).toHaveLength(1);
    }
    const depthAlarm = (queue: string) =>
      alarmsWatching(q, 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', { 'Fn::GetAtt': [queue, 'QueueName'] });
    for (const queue of deadLetterQueues) expect(depthAlarm(queue), queue).toHaveLength(1);
    // A work queue is not a dead-letter queue: its depth is its job.
    expect(depthAlarm(work)).toEqual([]);
  });

  it('fails the synthesis when something is built after it, rather than leave it unwatched', () => {
    expect(() =>
      smallStack((stack) => new Queue(stack, 'LateWork', { deadLetterQueue: { queue: new Queue(stack, 'LateDeadLetters'), maxReceiveCount: 3 } })),
    ).toThrow(/Small\/LateDeadLetters \(deadLetterQueues\) has no alarms: create it before Small\/Operations/);
  });
});
