import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '../../functions/adapters/table/definition.js';
import { RETENTION_TAG_KEY, retentionClasses } from '../../functions/domain/retention.js';
import { routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { workflows, type WorkflowDefinition } from '../../functions/workflows/registry.js';
import { synthesize, type Synthesized } from './synth.js';
import { stateMachineDeploying, TemplateQueries, type FnGetAtt } from './template.js';

let synthesized: Synthesized;
let template: Template;
let q: TemplateQueries;

// The template's shape is all these tests read: esbuild bundling is left to validation.test.ts.
beforeAll(() => {
  synthesized = synthesize({ bundle: false });
  template = synthesized.template;
  q = new TemplateQueries(template);
}, 240_000);

afterAll(() => synthesized?.dispose());

const workflowEntries = Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>);
const taskCount = workflowEntries.reduce((n, [, workflow]) => n + Object.keys(workflow.tasks).length, 0);
const containerTaskCount = workflowEntries.reduce((n, [, workflow]) => n + Object.keys(workflow.containerTasks ?? {}).length, 0);

const find = (type: string, props: object = {}) => q.find(type, props);
const functionBehindRoute = (key: string): string => q.functionBehindRoute(key);
const actionsOf = (functionId: string): string[] => q.actionsOf(functionId);
const descriptionOf = (functionId: string): unknown => q.descriptionOf(functionId);

describe('routes', () => {
  it('has one route per route-table entry plus the $default catch-all', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
  });

  it.each(routes.map((route) => [routeKey(route)]))('routes %s through the authorizer', (key) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: key,
      AuthorizationType: 'CUSTOM',
      AuthorizerId: Match.anyValue(),
    });
  });

  it('sends unknown routes through the authorizer to the not-found function', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default', AuthorizationType: 'CUSTOM' });
    expect(descriptionOf(functionBehindRoute('$default'))).toBe('Answers requests that match no route');
  });

  it('gives every route its own function', () => {
    const functionIds = routes.map((route) => functionBehindRoute(routeKey(route)));
    expect(new Set(functionIds).size).toBe(routes.length);
    expect(functionIds.map(descriptionOf)).toEqual(routes.map(routeKey));
  });

  it('grants each route the table and bucket access its entry declares, and the cursor key', () => {
    for (const route of routes as readonly RouteDefinition[]) {
      const actions = actionsOf(functionBehindRoute(routeKey(route)));
      const key = routeKey(route);
      expect(actions, key).toContain('dynamodb:Query');
      expect(actions.includes('dynamodb:PutItem'), key).toBe(route.table === 'readWrite');
      expect(actions.includes('s3:GetObject'), key).toBe(route.bucket !== undefined);
      expect(actions.includes('s3:PutObject'), key).toBe(route.bucket === 'readWrite');
      expect(actions, key).toContain('secretsmanager:GetSecretValue');
    }
  });

  it('gives route functions the default 512 MiB and 29 s', () => {
    for (const route of routes) {
      expect(q.resource(functionBehindRoute(routeKey(route))).Properties, routeKey(route)).toMatchObject({ MemorySize: 512, Timeout: 29 });
    }
  });
});

describe('authorizer', () => {
  it('is a simple-response REQUEST authorizer without identity source or caching', () => {
    // Without an identity source API Gateway calls the authorizer even when Authorization is
    // missing, so the handler can answer with our 401 envelope; caching must then be off.
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
  });

  it('reads the table but not the cursor key', () => {
    const [authorizer] = Object.values(find('AWS::ApiGatewayV2::Authorizer'));
    const uri = authorizer!.Properties.AuthorizerUri as { 'Fn::Join': [string, unknown[]] };
    const functionId = (uri['Fn::Join'][1].find((part) => typeof part === 'object' && part !== null && 'Fn::GetAtt' in part) as FnGetAtt)[
      'Fn::GetAtt'
    ][0];
    const actions = actionsOf(functionId);
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(actions).not.toContain('secretsmanager:GetSecretValue');
  });
});

describe('functions', () => {
  it('has exactly one function per route and per workflow task, plus the authorizer and the not-found function', () => {
    template.resourceCountIs('AWS::Lambda::Function', routes.length + taskCount + 2);
  });

  it('runs every function on nodejs24.x, arm64, with its own log group and the shared configuration', () => {
    for (const fn of Object.values(find('AWS::Lambda::Function'))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.any(String) as unknown } },
        Environment: {
          Variables: {
            TABLE_NAME: { Ref: expect.any(String) as unknown },
            MEDIA_BUCKET: { Ref: expect.any(String) as unknown },
            CURSOR_SECRET_ARN: { Ref: expect.any(String) as unknown },
            LOG_LEVEL: 'INFO',
            MAX_OBSERVATIONS_CAP: '50',
            POWERTOOLS_SERVICE_NAME: 'media-scanner',
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
    }
  });

  it('attaches no managed policies: each role may write only to its own log group', () => {
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
    // One per function, the API access log, one per state machine, one per container task and the
    // container VPC's flow log.
    template.resourceCountIs(
      'AWS::Logs::LogGroup',
      routes.length + taskCount + 2 + 1 + workflowEntries.length + containerTaskCount + (containerTaskCount ? 1 : 0),
    );
  });
});

describe('table', () => {
  it('is built from the shared table definition', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    });
  });
});

describe('media bucket', () => {
  it('is private, encrypted, logged and retained', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        LoggingConfiguration: { DestinationBucketName: Match.anyValue() },
      },
    });
  });

  it('expires workflow artifacts after a day and each retention class a day after it ends', () => {
    const [bucket] = Object.values(find('AWS::S3::Bucket', { LoggingConfiguration: Match.anyValue() }));
    const rules = (bucket!.Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'artifacts/', ExpirationInDays: 1, Status: 'Enabled' }));
    expect(rules).toContainEqual(expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } }));
    const tagged = rules.filter((rule) => rule.TagFilters);
    expect(retentionClasses().length).toBeGreaterThan(0);
    expect(tagged).toEqual(
      retentionClasses().map((days): unknown =>
        expect.objectContaining({ TagFilters: [{ Key: RETENTION_TAG_KEY, Value: String(days) }], ExpirationInDays: days + 1, Status: 'Enabled' }),
      ),
    );
    // A tagged rule with a prefix would miss uploads stored elsewhere.
    for (const rule of tagged) expect(rule.Prefix).toBeUndefined();
  });

  it('refuses requests without TLS on every bucket', () => {
    for (const bucketId of Object.keys(find('AWS::S3::Bucket'))) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });
});

describe('api stage', () => {
  it('auto-deploys the $default stage with JSON access logs that carry the request id', () => {
    const [stage] = Object.values(find('AWS::ApiGatewayV2::Stage'));
    expect(stage!.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } },
    });
    const format = JSON.parse((stage!.Properties.AccessLogSettings as { Format: string }).Format) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
  });
});

describe('cursor secret and outputs', () => {
  it('generates a 64-character key', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });

  it('outputs the API URL, table name, bucket name, event bus name and the state machine ARNs', () => {
    for (const output of ['ApiUrl', 'TableName', 'MediaBucketName']) template.hasOutput(output, {});
    template.hasOutput('EventBusName', { Value: { Ref: Match.stringLikeRegexp('^EventBus') } });
    template.hasOutput('AnalysisStateMachineArn', { Value: { Ref: stateMachineOf('analysis').id } });
  });
});

describe('event bus', () => {
  it('is one custom bus with an archive of everything published to it', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: { 'Fn::GetAtt': [busId(), 'Arn'] },
      EventPattern: { account: [{ Ref: 'AWS::AccountId' }] },
      RetentionDays: 30,
    });
  });
});

const busId = (): string => Object.keys(find('AWS::Events::EventBus'))[0]!;

const stateMachineOf = (name: string) => {
  const workflow = (workflows as Readonly<Record<string, WorkflowDefinition>>)[name]!;
  return stateMachineDeploying(q, readFileSync(new URL(`../../${workflow.definitionFile}`, import.meta.url), 'utf8'));
};

interface Needs {
  readonly ffmpeg: boolean;
  readonly events: boolean;
  readonly workflows: boolean;
}

/** What each function's route or task entry declares, by the function's logical id; others declare nothing. */
function declaredNeeds(): Map<string, Needs> {
  const needs = new Map<string, Needs>();
  for (const route of routes as readonly RouteDefinition[]) {
    needs.set(functionBehindRoute(routeKey(route)), { ffmpeg: !!route.ffprobe, events: !!route.events, workflows: !!route.workflows });
  }
  for (const [name, workflow] of workflowEntries) {
    const { taskFunctionIds } = stateMachineOf(name);
    for (const [placeholder, task] of Object.entries(workflow.tasks)) {
      needs.set(taskFunctionIds[placeholder]!, { ffmpeg: !!task.ffmpeg, events: !!task.events, workflows: false });
    }
  }
  return needs;
}

const none: Needs = { ffmpeg: false, events: false, workflows: false };

describe('needs declared by routes and workflow tasks', () => {
  it('covers every function (routes, tasks, authorizer, not-found)', () => {
    expect(declaredNeeds().size).toBe(routes.length + taskCount);
    expect(q.functionIds()).toEqual(expect.arrayContaining([...declaredNeeds().keys()]));
  });

  it('attaches the one arm64 ffmpeg layer only to functions that run ffprobe or ffmpeg, with both paths', () => {
    const layers = Object.keys(find('AWS::Lambda::LayerVersion'));
    expect(layers).toHaveLength(1);
    template.hasResourceProperties('AWS::Lambda::LayerVersion', { CompatibleArchitectures: ['arm64'] });
    const needs = declaredNeeds();
    expect([...needs.values()].some((n) => n.ffmpeg)).toBe(true);
    for (const functionId of q.functionIds()) {
      const { ffmpeg } = needs.get(functionId) ?? none;
      const environment = q.environmentOf(functionId);
      expect(q.resource(functionId).Properties.Layers, functionId).toEqual(ffmpeg ? [{ Ref: layers[0] }] : undefined);
      expect(environment.FFPROBE_PATH, functionId).toBe(ffmpeg ? '/opt/bin/ffprobe' : undefined);
      expect(environment.FFMPEG_PATH, functionId).toBe(ffmpeg ? '/opt/bin/ffmpeg' : undefined);
    }
  });

  it('lets only functions that publish events put them, on the service bus only, and names the bus', () => {
    const needs = declaredNeeds();
    expect([...needs.values()].some((n) => n.events)).toBe(true);
    for (const functionId of q.functionIds()) {
      const { events } = needs.get(functionId) ?? none;
      const statements = q.statementsOf(functionId);
      expect(q.resourcesGranted(statements, 'events:PutEvents'), functionId).toEqual(events ? [{ 'Fn::GetAtt': [busId(), 'Arn'] }] : []);
      expect(q.actionsOf(functionId).filter((a) => a.startsWith('events:')), functionId).toEqual(events ? ['events:PutEvents'] : []);
      expect(q.environmentOf(functionId).EVENT_BUS_NAME, functionId).toEqual(events ? { Ref: busId() } : undefined);
    }
  });

  it('lets only routes that start workflows start the analysis state machine, and passes its ARN', () => {
    const needs = declaredNeeds();
    expect([...needs.values()].some((n) => n.workflows)).toBe(true);
    const analysis = stateMachineOf('analysis').id;
    for (const functionId of q.functionIds()) {
      const { workflows: starts } = needs.get(functionId) ?? none;
      const statements = q.statementsOf(functionId);
      expect(q.resourcesGranted(statements, 'states:StartExecution'), functionId).toEqual(starts ? [{ Ref: analysis }] : []);
      expect(q.actionsOf(functionId).filter((a) => a.startsWith('states:')), functionId).toEqual(starts ? ['states:StartExecution'] : []);
      expect(q.environmentOf(functionId).ANALYSIS_STATE_MACHINE_ARN, functionId).toEqual(starts ? { Ref: analysis } : undefined);
    }
  });
});
