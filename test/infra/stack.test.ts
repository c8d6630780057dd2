import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '../../functions/adapters/table/definition.js';
import { routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { synthesize, type Synthesized } from './synth.js';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

type FnGetAtt = { 'Fn::GetAtt': [string, string] };

let synthesized: Synthesized;
let template: Template;

beforeAll(() => {
  synthesized = synthesize();
  template = synthesized.template;
}, 240_000);

afterAll(() => synthesized?.dispose());

const find = (type: string, props: object = {}): Record<string, Resource> =>
  template.findResources(type, { Properties: props }) as Record<string, Resource>;

const resource = (logicalId: string): Resource =>
  (template.toJSON() as { Resources: Record<string, Resource> }).Resources[logicalId]!;

/** Logical id of the Lambda function a route's integration invokes. */
function functionBehindRoute(key: string): string {
  const [route] = Object.values(find('AWS::ApiGatewayV2::Route', { RouteKey: key }));
  const target = route!.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  const integration = resource(target['Fn::Join'][1][1].Ref);
  return (integration.Properties.IntegrationUri as FnGetAtt)['Fn::GetAtt'][0];
}

/** Every IAM action granted to the role of a function, by the function's logical id. */
function actionsOf(functionId: string): string[] {
  const roleId = (resource(functionId).Properties.Role as FnGetAtt)['Fn::GetAtt'][0];
  return Object.values(find('AWS::IAM::Policy', { Roles: [{ Ref: roleId }] })).flatMap((policy) =>
    (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement.flatMap((s) => s.Action),
  );
}

const descriptionOf = (functionId: string): unknown => resource(functionId).Properties.Description;

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
  it('has exactly one function per route plus the authorizer and the not-found function', () => {
    template.resourceCountIs('AWS::Lambda::Function', routes.length + 2);
  });

  it('runs every function on nodejs24.x, arm64, with its own log group and the shared configuration', () => {
    for (const fn of Object.values(find('AWS::Lambda::Function'))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 512,
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
    template.resourceCountIs('AWS::Logs::LogGroup', routes.length + 2 + 1);
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

  it('outputs the API URL, table name and bucket name', () => {
    for (const output of ['ApiUrl', 'TableName', 'MediaBucketName']) template.hasOutput(output, {});
  });
});
