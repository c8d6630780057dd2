import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '../../functions/adapters/table/definition.js';
import type { Config } from '../../functions/config.js';
import { RETENTION_TAG_KEY, retentionClasses } from '../../functions/domain/uploads/retention.js';
import { consoleRoutes, routeKey, routes, type AnyRouteDefinition, type RouteDefinition } from '../../functions/routes.js';
import { grantSetId } from '../../infra/constructs/route-roles.js';
import { workflows, type WorkflowDefinition, type WorkflowName } from '../../functions/workflows/registry.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import type { SynthesizedAssembly } from './synth.js';
import { settleFunctionOf, stateMachineDeploying, TemplateQueries, type FnGetAtt } from './template.js';

let synthesized: SynthesizedAssembly;
let template: Template;
let q: TemplateQueries;

// The template's shape is all these tests read, from the run's one synthesis (shared-assembly-setup.ts).
beforeAll(async () => {
  synthesized = await sharedAssembly();
  template = synthesized.template;
  q = new TemplateQueries(template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const workflowEntries = Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>);
const taskCount = workflowEntries.reduce((n, [, workflow]) => n + Object.keys(workflow.tasks).length, 0);
/** Each workflow's onExecutionEnded entry runs on a function of its own. */
const settleCount = workflowEntries.filter(([, workflow]) => workflow.onExecutionEnded).length;
const containerTaskCount = workflowEntries.reduce((n, [, workflow]) => n + Object.keys(workflow.containerTasks ?? {}).length, 0);

/** The variable functions/config.ts reads each workflow's state machine ARN from (typed against it: a rename breaks here). */
const stateMachineArnVariables: Readonly<Record<WorkflowName, keyof Config>> = {
  analysis: 'ANALYSIS_STATE_MACHINE_ARN',
  batch: 'BATCH_STATE_MACHINE_ARN',
  render: 'RENDER_STATE_MACHINE_ARN',
};

/**
 * The project's guard under CloudFormation's 500 resources a stack may hold, and how many more routes
 * must fit under it: 17 since the console took 28 (its routes are in a nested stack: docs/console-aws.md).
 */
const RESOURCE_GUARD = 450;
const ROUTES_OF_HEADROOM = 17;
const resourceCount = (): number => Object.keys(q.resources).length;

const find = (type: string, props: object = {}) => q.find(type, props);
const allRoutes: readonly AnyRouteDefinition[] = [...routes, ...consoleRoutes];
/** The console's sign-in steps: functions outside the route table, described by their route key. */
const signInSteps = ['GET /console/auth/sign-in', 'GET /console/auth/callback'];
/** Logical id of the one function `description` describes (a route's function is described by its route key). */
function functionDescribed(description: string): string {
  const ids = Object.keys(find('AWS::Lambda::Function', { Description: description }));
  expect(ids, description).toHaveLength(1);
  return ids[0]!;
}
/** A route's function: an API route's through its API Gateway route, a console route's by its description (its route is nested). */
const routeFunctionOf = (route: AnyRouteDefinition): string =>
  route.path.startsWith('/v1/') ? q.functionBehindRoute(routeKey(route)) : functionDescribed(routeKey(route));
/** Logical id of the authorizer's function. */
function authorizerFunction(): string {
  const [authorizer] = Object.values(find('AWS::ApiGatewayV2::Authorizer'));
  const uri = authorizer!.Properties.AuthorizerUri as { 'Fn::Join': [string, unknown[]] };
  return (uri['Fn::Join'][1].find((part) => typeof part === 'object' && part !== null && 'Fn::GetAtt' in part) as FnGetAtt)['Fn::GetAtt'][0];
}
const functionBehindRoute = (key: string): string => q.functionBehindRoute(key);
const actionsOf = (functionId: string): string[] => q.actionsOf(functionId);
const descriptionOf = (functionId: string): unknown => q.descriptionOf(functionId);
/** Template values in a stable order, for comparing lists whose order CDK's policy minimization decides. */
const sorted = (values: readonly unknown[]): unknown[] => [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

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

  it('shares a role between two routes (API or console) exactly when their entries declare the same grants, and with no other function', () => {
    const roleOfRoute = (route: AnyRouteDefinition) => q.roleOf(routeFunctionOf(route));
    for (const a of allRoutes) {
      for (const b of allRoutes) {
        expect(roleOfRoute(a) === roleOfRoute(b), `${routeKey(a)} and ${routeKey(b)}`).toBe(grantSetId(a) === grantSetId(b));
      }
    }
    const routeRoles = new Set(allRoutes.map(roleOfRoute));
    const routeFunctions = new Set(allRoutes.map(routeFunctionOf));
    const othersOnRouteRoles = q.functionIds().filter((id) => !routeFunctions.has(id) && routeRoles.has(q.roleOf(id)));
    expect(othersOnRouteRoles).toEqual([]);
    console.log(`Route roles: ${routeRoles.size} for ${allRoutes.length} routes.`);
  });

  it('has API Gateway invoke the route functions and the fallback with one role that may invoke exactly those, and no Lambda permission per route', () => {
    const behindRoutes = [...routes.map(routeKey), '$default'].map((key) => q.routeParts(key));
    const invokers = new Set(behindRoutes.map(({ integrationId }) => (q.resource(integrationId).Properties.CredentialsArn as FnGetAtt)['Fn::GetAtt'][0]));
    expect(invokers.size).toBe(1);
    const [invoker] = [...invokers] as [string];
    expect(q.resource(invoker).Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Action: 'sts:AssumeRole', Principal: { Service: 'apigateway.amazonaws.com' } }],
    });
    const statements = q.statementsOfRole(invoker);
    expect(sorted(statements.flatMap((s) => [s.Action].flat()))).toEqual(['lambda:InvokeFunction']);
    // ... and the console's (its routes are in the nested stack: test/infra/console.test.ts).
    const consoleFunctions = [...consoleRoutes.map(routeFunctionOf), ...signInSteps.map((key) => functionDescribed(key))];
    expect(sorted(q.resourcesGranted(statements, 'lambda:InvokeFunction'))).toEqual(
      sorted([...behindRoutes.map(({ functionId }) => functionId), ...consoleFunctions].map((functionId) => ({ 'Fn::GetAtt': [functionId, 'Arn'] }))),
    );
    // The authorizer's is the one permission API Gateway has.
    const permissions = Object.values(find('AWS::Lambda::Permission', { Principal: 'apigateway.amazonaws.com' }));
    expect(permissions).toHaveLength(1);
    expect(permissions[0]!.Properties.FunctionName).toEqual({ 'Fn::GetAtt': [authorizerFunction(), 'Arn'] });
  });

  it(`keeps the invoking role's policy under IAM's 10,240 characters a role's inline policies may hold with ${ROUTES_OF_HEADROOM} more routes`, () => {
    const [integration] = Object.values(find('AWS::ApiGatewayV2::Integration'));
    const invoker = (integration!.Properties.CredentialsArn as FnGetAtt)['Fn::GetAtt'][0];
    // The longest a function ARN can be: the longest partition and region, a 64-character function name.
    const longestArn = `"arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:${'f'.repeat(64)}"`;
    const documents = q
      .policiesOfRole(invoker)
      .map((id) => JSON.stringify(q.resource(id).Properties.PolicyDocument).replace(/\{"Fn::GetAtt":\["[^"]+","Arn"\]\}/g, longestArn));
    const size = documents.join('').length + ROUTES_OF_HEADROOM * (longestArn.length + 1);
    console.log(`Invoking role's policy: at most ${size} characters with ${ROUTES_OF_HEADROOM} more routes.`);
    expect(size).toBeLessThan(10_240);
  });

  it('grants each route the table and bucket access its entry declares, and the cursor key only to routes that page lists', () => {
    for (const route of routes as readonly RouteDefinition[]) {
      const actions = actionsOf(functionBehindRoute(routeKey(route)));
      const key = routeKey(route);
      expect(actions, key).toContain('dynamodb:Query');
      expect(actions.includes('dynamodb:PutItem'), key).toBe(route.table === 'readWrite');
      expect(actions.includes('s3:GetObject'), key).toBe(route.bucket !== undefined);
      expect(actions.includes('s3:PutObject'), key).toBe(route.bucket === 'readWrite');
      expect(actions.includes('secretsmanager:GetSecretValue'), key).toBe(route.cursors === true);
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
    const actions = actionsOf(authorizerFunction());
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(actions).not.toContain('secretsmanager:GetSecretValue');
  });
});

describe('functions', () => {
  it("has exactly one function per route (API and console), per workflow task and per workflow that settles ended executions, plus the authorizer, the not-found function, the outbox relay, the webhook sender, the provider resolver, the console's two sign-in steps and the handler that deploys the console's build", () => {
    expect(settleCount).toBeGreaterThan(0);
    template.resourceCountIs('AWS::Lambda::Function', routes.length + consoleRoutes.length + taskCount + settleCount + 5 + 2 + 1);
    expect(q.functionIds()).toHaveLength(routes.length + consoleRoutes.length + taskCount + settleCount + 5 + 2);
  });

  it('runs every function but the provider resolver (Python) on nodejs24.x with the shared log group and configuration, without source maps', () => {
    expect(q.nodeFunctionIds()).toHaveLength(q.functionIds().length - 1);
    for (const fn of q.nodeFunctionIds().map((id) => q.resource(id))) {
      // Parsing a bundled source map (--enable-source-maps) would cost every cold start.
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.NODE_OPTIONS).toBeUndefined();
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.any(String) as unknown } },
        Environment: {
          Variables: {
            TABLE_NAME: { Ref: expect.any(String) as unknown },
            MEDIA_BUCKET: { Ref: expect.any(String) as unknown },
            LOG_LEVEL: 'INFO',
            MAX_OBSERVATIONS_CAP: '50',
            POWERTOOLS_SERVICE_NAME: 'media-scanner',
          },
        },
      });
    }
  });

  it('attaches no managed policies: each role may write only to the service function log group', () => {
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
    // The functions' one, the API access log, one per state machine, one per container task and the
    // container VPC's flow log.
    template.resourceCountIs('AWS::Logs::LogGroup', 1 + 1 + workflowEntries.length + containerTaskCount + (containerTaskCount ? 1 : 0));
    // ... all functions share theirs (its streams are named after each function).
    const logGroups = Object.values(find('AWS::Lambda::Function')).map((fn) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref);
    expect(new Set(logGroups).size).toBe(1);
  });

  it("stays well under CloudFormation's 500 resources per stack", () => {
    expect(resourceCount()).toBeLessThan(RESOURCE_GUARD);
  });

  it(`leaves room under the guard for ${ROUTES_OF_HEADROOM} more routes, each with grants no route has yet`, () => {
    const keys = routes.map(routeKey);
    const costs = keys.map((key) => q.resourcesOfRoute(key, keys));
    // The derivation finds at least each route's own route, integration and function (and its role).
    for (const [i, cost] of costs.entries()) {
      expect(
        cost.map((id) => q.resource(id).Type),
        keys[i],
      ).toEqual(expect.arrayContaining(['AWS::ApiGatewayV2::Route', 'AWS::ApiGatewayV2::Integration', 'AWS::Lambda::Function', 'AWS::IAM::Role']));
    }
    const perRoute = Math.max(...costs.map((cost) => cost.length));
    console.log(
      `Headroom: ${resourceCount()} resources; one more route costs at most ${perRoute}; ${ROUTES_OF_HEADROOM} more make ${resourceCount() + ROUTES_OF_HEADROOM * perRoute} of the ${RESOURCE_GUARD} the guard allows.`,
    );
    expect(resourceCount() + ROUTES_OF_HEADROOM * perRoute).toBeLessThan(RESOURCE_GUARD);
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
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
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
    for (const [name] of workflowEntries) {
      template.hasOutput(`${name.charAt(0).toUpperCase()}${name.slice(1)}StateMachineArn`, { Value: { Ref: stateMachineOf(name).id } });
    }
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

/** `<stack>-<workflow>`: every service state machine's name, so that ARNs can be built without referring to it. */
const stateMachineName = (workflow: string): string => `${synthesized.stackName}-${workflow}`;

/** A service state machine's ARN built from its name (what tasks inside the workflows are granted on). */
const namedStateMachineArn = (workflow: string): unknown => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':states:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:stateMachine:${stateMachineName(workflow)}`],
  ],
});

interface Needs {
  readonly ffmpeg: boolean;
  readonly events: boolean;
  /** The state machines the function may start: its ARN, by the variable the function reads it from. */
  readonly starts: Readonly<Partial<Record<keyof Config, unknown>>>;
  /** Wakes executions waiting on a task token, of any service state machine. */
  readonly wakes: boolean;
}

/** What each function's route, task or onExecutionEnded entry declares, by the function's logical id; others declare nothing. */
function declaredNeeds(): Map<string, Needs> {
  const needs = new Map<string, Needs>();
  const add = (functionId: string, need: Needs) => {
    if (needs.has(functionId)) throw new Error(`${functionId} serves two entries`);
    needs.set(functionId, need);
  };
  for (const route of allRoutes) {
    // A route may start exactly the workflows it names, by the state machine's own ARN.
    const starts = Object.fromEntries((route.workflows ?? []).map((name) => [stateMachineArnVariables[name], { Ref: stateMachineOf(name).id }]));
    add(routeFunctionOf(route), { ffmpeg: !!route.ffprobe, events: !!route.events, starts, wakes: !!route.wakesWorkflows });
  }
  for (const [name, workflow] of workflowEntries) {
    const { taskFunctionIds } = stateMachineOf(name);
    const entries = [
      ...Object.entries(workflow.tasks).map(([placeholder, task]) => [taskFunctionIds[placeholder]!, task] as const),
      ...(workflow.onExecutionEnded ? [[settleFunctionOf(q, stateMachineOf(name).id), workflow.onExecutionEnded] as const] : []),
    ];
    for (const [functionId, task] of entries) {
      // A task inside a workflow cannot refer to a state machine (its own would be a cycle): it is granted the named ARN.
      const starts = task.startsAnalyses ? { [stateMachineArnVariables.analysis]: namedStateMachineArn('analysis') } : {};
      add(functionId, { ffmpeg: !!task.ffmpeg, events: !!task.events, starts, wakes: !!task.wakesWorkflows });
    }
  }
  // The outbox relay publishes what the table's stream hands it; the webhook sender publishes nothing.
  for (const functionId of q.functionsOnTableStream()) add(functionId, { ...none, events: true });
  for (const functionId of q.functionsOnQueues()) add(functionId, none);
  return needs;
}

const none: Needs = { ffmpeg: false, events: false, starts: {}, wakes: false };

describe('needs declared by routes and workflow tasks', () => {
  it("covers every function but the authorizer, the not-found function, the provider resolver and the console's sign-in steps", () => {
    const needs = declaredNeeds();
    expect(needs.size).toBe(routes.length + consoleRoutes.length + taskCount + settleCount + 2);
    expect(q.functionIds()).toHaveLength(needs.size + 3 + signInSteps.length);
    expect(q.functionIds()).toEqual(expect.arrayContaining([...needs.keys()]));
  });

  it('attaches the one x86_64 ffmpeg layer only to functions that run ffprobe or ffmpeg, with both paths, and runs exactly those on x86_64, the others on arm64', () => {
    // The other layer is yt-dlp's, for the provider resolver alone (test/infra/provider-resolver.test.ts).
    const layers = Object.keys(find('AWS::Lambda::LayerVersion', { CompatibleArchitectures: ['x86_64'] }));
    expect(layers).toHaveLength(1);
    const needs = declaredNeeds();
    expect([...needs.values()].some((n) => n.ffmpeg)).toBe(true);
    for (const functionId of q.nodeFunctionIds()) {
      const { ffmpeg } = needs.get(functionId) ?? none;
      const environment = q.environmentOf(functionId);
      expect(q.resource(functionId).Properties.Layers, functionId).toEqual(ffmpeg ? [{ Ref: layers[0] }] : undefined);
      expect(q.resource(functionId).Properties.Architectures, functionId).toEqual([ffmpeg ? 'x86_64' : 'arm64']);
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
      expect(
        q.actionsOf(functionId).filter((a) => a.startsWith('events:')),
        functionId,
      ).toEqual(events ? ['events:PutEvents'] : []);
      expect(q.environmentOf(functionId).EVENT_BUS_NAME, functionId).toEqual(events ? { Ref: busId() } : undefined);
    }
  });

  it('names each service state machine <stack>-<workflow>, so that the ARNs built from names are theirs', () => {
    for (const [name] of workflowEntries) {
      expect(stateMachineOf(name).resource.Properties.StateMachineName, name).toBe(stateMachineName(name));
    }
  });

  it('lets routes start exactly the workflows they name, and batch items the analysis one, and passes those ARNs', () => {
    const needs = declaredNeeds();
    // Every workflow has a starter, and none may start them all (the run route has no business with batches).
    for (const variable of Object.values(stateMachineArnVariables))
      expect(
        [...needs.values()].some((n) => variable in n.starts),
        variable,
      ).toBe(true);
    expect([...needs.values()].some((n) => Object.keys(n.starts).length === workflowEntries.length)).toBe(false);
    for (const functionId of q.functionIds()) {
      const { starts } = needs.get(functionId) ?? none;
      const statements = q.statementsOf(functionId);
      expect(sorted(q.resourcesGranted(statements, 'states:StartExecution')), functionId).toEqual(sorted(Object.values(starts)));
      const environment = q.environmentOf(functionId);
      for (const variable of Object.values(stateMachineArnVariables)) {
        expect(environment[variable], `${functionId} ${variable}`).toEqual(starts[variable]);
      }
    }
  });

  it('lets only functions that wake waiting executions send task success, on every service state machine and nothing else', () => {
    const needs = declaredNeeds();
    expect([...needs.values()].some((n) => n.wakes)).toBe(true);
    const every = sorted(workflowEntries.map(([name]) => namedStateMachineArn(name)));
    for (const functionId of q.functionIds()) {
      const { wakes } = needs.get(functionId) ?? none;
      expect(sorted(q.resourcesGranted(q.statementsOf(functionId), 'states:SendTaskSuccess')), functionId).toEqual(wakes ? every : []);
    }
  });

  it('grants no Step Functions action beyond starting and waking', () => {
    const needs = declaredNeeds();
    for (const functionId of q.functionIds()) {
      const { starts, wakes } = needs.get(functionId) ?? none;
      const expected = [...(Object.keys(starts).length ? ['states:StartExecution'] : []), ...(wakes ? ['states:SendTaskSuccess'] : [])];
      expect([...new Set(q.actionsOf(functionId).filter((a) => a.startsWith('states:')))].sort(), functionId).toEqual(expected.sort());
    }
  });
});
