/**
 * The console on AWS (docs/console.md): the owners' user pool and app client, the API's own Lambda
 * authorizer on every console route and API twin (it reads the session there), the sign-in steps
 * (the callback begins sessions in the table), the distribution in front of the private console
 * bucket and the API, its headers and viewer-request function, and the media bucket's CORS, read
 * from the run's shared synthesis (the routes from its nested stack).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes, routeKey, routes, type ConsoleRouteDefinition, type RouteDefinition } from '../../functions/routes.js';
import { consoleContext, consoleContextKeys } from '../../infra/deployment-context.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { synthesize } from './synth.js';
import { TemplateQueries, type FnGetAtt, type Resource } from './template.js';

let q: TemplateQueries;
/** The nested stack of the console's routes, and what its parameters are given in the parent. */
let nested: TemplateQueries;
let nestedParameters: Record<string, unknown>;

beforeAll(async () => {
  const assembly = await sharedAssembly();
  q = new TemplateQueries(assembly.template);
  const [file, ...others] = readdirSync(assembly.assemblyDirectory).filter((name) => name.endsWith('.nested.template.json'));
  expect(others).toEqual([]);
  nested = new TemplateQueries(Template.fromJSON(JSON.parse(readFileSync(join(assembly.assemblyDirectory, file!), 'utf8')) as Record<string, unknown>));
  const [stackResource] = Object.values(q.find('AWS::CloudFormation::Stack'));
  nestedParameters = stackResource!.Properties.Parameters as Record<string, unknown>;
}, SHARED_ASSEMBLY_TIMEOUT_MS);

/** What a `{ Ref: <parameter> }` of the nested template stands for in the parent. */
const inParent = (value: unknown): unknown => nestedParameters[(value as { Ref: string }).Ref];
const one = (queries: TemplateQueries, type: string): Resource => {
  const found = Object.values(queries.find(type));
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const idOf = (queries: TemplateQueries, type: string): string => Object.keys(queries.find(type))[0]!;
const distribution = () => one(q, 'AWS::CloudFront::Distribution').Properties.DistributionConfig as Record<string, unknown>;
const distributionDomain = () => ({ 'Fn::GetAtt': [idOf(q, 'AWS::CloudFront::Distribution'), 'DomainName'] });

function nestedRoute(key: string): Resource {
  const [route, ...others] = Object.values(nested.find('AWS::ApiGatewayV2::Route', { RouteKey: key }));
  expect(route, key).toBeDefined();
  expect(others).toEqual([]);
  return route!;
}
/** The integration a nested route targets: `{ Ref }` of a nested integration, or of a parameter naming the parent's. */
const targetOf = (route: Resource): { Ref: string } => (route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] })['Fn::Join'][1][1];

describe('user pool', () => {
  it('admits no sign-up, signs in by email with a strong password and optional TOTP, and carries each owner account as a custom attribute', () => {
    expect(one(q, 'AWS::Cognito::UserPool').Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      Policies: { PasswordPolicy: { MinimumLength: 12, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true } },
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Schema: expect.arrayContaining([
        { AttributeDataType: 'String', Name: 'account_id', Mutable: true, StringAttributeConstraints: { MinLength: '1', MaxLength: '64' } },
      ]) as unknown,
    });
  });

  it('has a managed-login domain', () => {
    expect(one(q, 'AWS::Cognito::UserPoolDomain').Properties).toMatchObject({ ManagedLoginVersion: 2, Domain: expect.anything() as unknown });
    expect(one(q, 'AWS::Cognito::ManagedLoginBranding').Properties).toMatchObject({ UseCognitoProvidedValues: true });
  });

  it("has the console's client: authorization code (PKCE, no secret), callback and sign-out on the console's origin, tokens as short as Cognito allows (read once, at the callback), and no write to account_id", () => {
    const client = one(q, 'AWS::Cognito::UserPoolClient').Properties;
    expect(client).toMatchObject({
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      IdTokenValidity: 5,
      AccessTokenValidity: 5,
      RefreshTokenValidity: 60,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
      GenerateSecret: false,
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', distributionDomain(), '/console/auth/callback']] }],
      LogoutURLs: [{ 'Fn::Join': ['', ['https://', distributionDomain(), '/console/']] }],
    });
    expect(client.ReadAttributes).toContain('custom:account_id');
    expect(client.WriteAttributes).toEqual(['email']);
  });
});

describe('routes', () => {
  it("puts every /console route in the nested stack, behind the API's one authorizer (the Lambda that reads API keys, and sessions on these routes)", () => {
    expect(nested.find('AWS::ApiGatewayV2::Authorizer')).toEqual({});
    expect(Object.values(q.find('AWS::ApiGatewayV2::Authorizer')).map((a) => a.Properties.AuthorizerType)).toEqual(['REQUEST']);
    expect(Object.keys(nested.find('AWS::ApiGatewayV2::Route'))).toHaveLength(routes.length + consoleRoutes.length + 2);
  });

  it.each((routes as readonly RouteDefinition[]).map(routeKey))('%s has a twin at /console/api on the same integration, behind the same authorizer', (key) => {
    const [method, path] = key.split(' ');
    const twin = nestedRoute(`${method} /console/api${path}`);
    expect(twin.Properties.AuthorizationType).toBe('CUSTOM');
    expect(inParent(twin.Properties.AuthorizerId)).toEqual({ Ref: idOf(q, 'AWS::ApiGatewayV2::Authorizer') });
    // The API route's own integration, so the same function; no integration of its own.
    expect(inParent(targetOf(twin))).toEqual({ Ref: q.routeParts(key).integrationId });
    // ... and the API route itself stays behind the API-key authorizer.
    expect(q.resource(q.routeParts(key).routeId).Properties.AuthorizationType).toBe('CUSTOM');
  });

  it.each((consoleRoutes as readonly ConsoleRouteDefinition[]).map(routeKey))('%s runs its own function behind the console session', (key) => {
    const route = nestedRoute(key);
    expect(route.Properties.AuthorizationType).toBe('CUSTOM');
    const integration = nested.resource(targetOf(route).Ref).Properties;
    const functionId = (inParent(integration.IntegrationUri) as FnGetAtt)['Fn::GetAtt'][0];
    expect(q.descriptionOf(functionId)).toBe(key);
    // Sign-out sends the browser to Cognito's logout, back to the console.
    expect(JSON.stringify(q.environmentOf(functionId).CONSOLE_SIGN_OUT_URL)).toMatch(/\/logout\?client_id=.*&logout_uri=https:\/\/.*\/console\//);
  });

  it('leaves the sign-in steps public: the redirect reads and writes nothing of the service, the callback only reads owners and writes sessions', () => {
    const tableId = Object.keys(q.find('AWS::DynamoDB::Table'))[0]!;
    const grants = { '/console/auth/sign-in': [], '/console/auth/callback': ['dynamodb:GetItem', 'dynamodb:PutItem'] };
    for (const [path, actions] of Object.entries(grants)) {
      const route = nestedRoute(`GET ${path}`);
      expect(route.Properties.AuthorizationType).toBe('NONE');
      const functionId = (inParent(nested.resource(targetOf(route).Ref).Properties.IntegrationUri) as FnGetAtt)['Fn::GetAtt'][0];
      expect(q.descriptionOf(functionId)).toBe(`GET ${path}`);
      expect(
        q
          .actionsOf(functionId)
          .filter((action) => !action.startsWith('logs:') && !action.startsWith('xray:'))
          .sort(),
      ).toEqual(actions);
      if (actions.length) expect(JSON.stringify(q.statementsOf(functionId).filter((st) => JSON.stringify(st.Action).includes('dynamodb')))).toContain(tableId);
      expect(q.environmentOf(functionId)).toMatchObject({
        CONSOLE_URL: { 'Fn::Join': ['', ['https://', distributionDomain()]] },
        COGNITO_CLIENT_ID: { Ref: idOf(q, 'AWS::Cognito::UserPoolClient') },
        COGNITO_DOMAIN: expect.anything() as unknown,
      });
    }
  });

  it('adds no route to the API-key side of the API', () => {
    for (const route of Object.values(q.find('AWS::ApiGatewayV2::Route'))) expect(route.Properties.RouteKey).not.toMatch(/ \/console\//);
  });
});

describe('edge', () => {
  it('keeps the console bucket private, encrypted and TLS-only', () => {
    const bucketId = Object.keys(q.find('AWS::S3::Bucket')).find((id) => id.startsWith('ConsoleBucket'))!;
    expect(q.resource(bucketId).Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    q.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('serves the bucket through origin access control, and /console/api/* and /console/auth/* from the API uncached with every viewer header but Host', () => {
    const config = distribution();
    const [bucketOrigin, apiOrigin, ...others] = config.Origins as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(bucketOrigin).toMatchObject({ OriginAccessControlId: expect.anything() as unknown, S3OriginConfig: { OriginAccessIdentity: '' } });
    expect(apiOrigin).toMatchObject({ CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] } });
    const behaviours = config.CacheBehaviors as Record<string, unknown>[];
    expect(behaviours.map((b) => b.PathPattern)).toEqual(['/console/api/*', '/console/auth/*']);
    for (const behaviour of behaviours) {
      expect(behaviour).toMatchObject({
        TargetOriginId: apiOrigin!.Id,
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: expect.arrayContaining(['POST', 'DELETE', 'PATCH']) as unknown,
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
        OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
      });
    }
    const functionId = idOf(q, 'AWS::CloudFront::Function');
    const associated = (behaviour: unknown) => (behaviour as { FunctionAssociations?: unknown[] }).FunctionAssociations ?? [];
    const viewerRequest = [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } }];
    expect(associated(config.DefaultCacheBehavior)).toEqual(viewerRequest);
    // The API paths reach the API as sent: its authorizer reads the session cookie itself.
    expect(behaviours.map(associated)).toEqual([[], []]);
  });

  it("answers every page with the console's CSP, HSTS, nosniff and no framing", () => {
    const policy = one(q, 'AWS::CloudFront::ResponseHeadersPolicy').Properties.ResponseHeadersPolicyConfig as {
      SecurityHeadersConfig: Record<string, Record<string, unknown>>;
    };
    const headers = policy.SecurityHeadersConfig;
    const csp = JSON.stringify(headers.ContentSecurityPolicy!.ContentSecurityPolicy);
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) {
      expect(csp).toContain(directive);
    }
    // Without a custom domain, the region's S3 hosts (the media bucket cannot be named: docs/console.md).
    expect(csp).toMatch(/connect-src 'self' https:\/\/\*\.s3\.", *\{"Ref":"AWS::Region"\}, *"\.amazonaws\.com/);
    expect(headers.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31_536_000, Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    const config = distribution();
    const policyId = { Ref: idOf(q, 'AWS::CloudFront::ResponseHeadersPolicy') };
    expect((config.DefaultCacheBehavior as Record<string, unknown>).ResponseHeadersPolicyId).toEqual(policyId);
    for (const behaviour of config.CacheBehaviors as Record<string, unknown>[]) expect(behaviour.ResponseHeadersPolicyId).toEqual(policyId);
  });

  it("lets only the console's origin PUT to and GET from the media bucket", () => {
    const media = Object.entries(q.find('AWS::S3::Bucket')).find(([id]) => id.startsWith('MediaBucket'))![1];
    expect(media.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedOrigins: [{ 'Fn::Join': ['', ['https://', distributionDomain()]] }],
          AllowedMethods: ['PUT', 'GET', 'HEAD'],
          AllowedHeaders: ['*'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3600,
        },
      ],
    });
  });

  it('deploys the built console under console/: hashed assets cached for a year, index.html revalidated', () => {
    const deployments = Object.values(q.find('Custom::CDKBucketDeployment')).map((d) => d.Properties);
    expect(deployments.map((d) => [d.DestinationBucketKeyPrefix, d.Prune, d.Exclude, d.Include, d.SystemMetadata])).toEqual([
      ['console/', false, ['index.html'], undefined, { 'cache-control': 'public, max-age=31536000, immutable' }],
      ['console/', false, ['*'], ['index.html'], { 'cache-control': 'no-cache' }],
    ]);
  });

  it('names the console, its user pool and its client in the outputs', () => {
    q.template.hasOutput('ConsoleUrl', { Value: { 'Fn::Join': ['', ['https://', distributionDomain(), '/console/']] } });
    q.template.hasOutput('ConsoleUserPoolId', { Value: { Ref: idOf(q, 'AWS::Cognito::UserPool') } });
    q.template.hasOutput('ConsoleClientId', { Value: { Ref: idOf(q, 'AWS::Cognito::UserPoolClient') } });
  });
});

describe('viewer-request function', () => {
  type Request = { uri: string; headers: Record<string, { value: string }>; cookies: Record<string, { value: string }> };
  const run = (uri: string, headers: Request['headers'] = {}, cookies: Request['cookies'] = {}) => {
    const code = one(q, 'AWS::CloudFront::Function').Properties.FunctionCode as string;
    // CloudFront's cloudfront-js-2.0 runtime calls the code's `handler(event)`.
    const handler = runInNewContext(`${code}\nhandler;`) as (event: { request: Request }) => Request | { statusCode: number; headers: unknown };
    return handler({ request: { uri, headers, cookies } });
  };

  it("serves the single-page app's index.html for /console/ paths without an extension, assets as they are, and sends / to /console/", () => {
    expect((run('/console/') as Request).uri).toBe('/console/index.html');
    expect((run('/console/runs/run_0123') as Request).uri).toBe('/console/index.html');
    expect((run('/console/assets/main-ABC123.js') as Request).uri).toBe('/console/assets/main-ABC123.js');
    expect(run('/')).toMatchObject({ statusCode: 302, headers: { location: { value: '/console/' } } });
    expect(run('/console')).toMatchObject({ statusCode: 302 });
  });
});

describe('custom domain', () => {
  const settings = { consoleDomainName: 'console.example.com', consoleCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123' };

  it('serves the console at the domain with TLS 1.2 at least, and names the media bucket itself in the CSP', () => {
    const synthesized = synthesize({ cdkJson: settings, bundle: false });
    try {
      const custom = new TemplateQueries(synthesized.template);
      const config = one(custom, 'AWS::CloudFront::Distribution').Properties.DistributionConfig as Record<string, unknown>;
      expect(config).toMatchObject({
        Aliases: ['console.example.com'],
        ViewerCertificate: { AcmCertificateArn: settings.consoleCertificateArn, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      });
      const mediaId = Object.keys(custom.find('AWS::S3::Bucket')).find((id) => id.startsWith('MediaBucket'))!;
      const csp = JSON.stringify(one(custom, 'AWS::CloudFront::ResponseHeadersPolicy').Properties);
      expect(csp).toContain(JSON.stringify({ 'Fn::GetAtt': [mediaId, 'RegionalDomainName'] }));
      expect(csp).not.toContain('*.s3.');
      expect(custom.find('AWS::Cognito::UserPoolClient')).toSatisfy((clients: Record<string, Resource>) =>
        Object.values(clients).every((c) => JSON.stringify(c.Properties.CallbackURLs) === '["https://console.example.com/console/auth/callback"]'),
      );
    } finally {
      synthesized.dispose();
    }
  }, 300_000);

  it('refuses a domain without its certificate, a certificate outside us-east-1 and a reserved auth prefix', () => {
    const contextOf = (context: Record<string, string>) => () => consoleContext(new App({ context }).node);
    expect(contextOf({ consoleDomainName: 'console.example.com' })).toThrow(/go together/);
    expect(contextOf({ ...settings, consoleCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' })).toThrow(/us-east-1/);
    expect(contextOf({ [consoleContextKeys.consoleAuthDomainPrefix]: 'my-cognito-login' })).toThrow(/consoleAuthDomainPrefix/);
    expect(contextOf({ ...settings, consoleAuthDomainPrefix: 'media-scanner-prod' })()).toEqual({
      domain: { name: 'console.example.com', certificateArn: settings.consoleCertificateArn },
      authDomainPrefix: 'media-scanner-prod',
    });
  });
});
