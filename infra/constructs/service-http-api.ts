import { Duration } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpIntegrationType,
  HttpMethod,
  HttpRoute,
  HttpRouteIntegration,
  HttpRouteKey,
  IntegrationCredentials,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type CfnAuthorizer,
  type IHttpRouteAuthorizer,
  type HttpRouteIntegrationConfig,
  type HttpStage,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { HttpMethod as RouteMethod } from '../../functions/routes.js';

interface ServiceHttpApiProps {
  /** Lambda REQUEST authorizer attached to every route, the catch-all included. */
  readonly authorizer: IFunction;
  /** Answers every request that matches no route (the `$default` route). */
  readonly fallback: IFunction;
  /** Requests per second and burst the default stage admits; beyond them API Gateway answers 429. */
  readonly throttle: ThrottleSettings;
}

export interface RouteOptions {
  /** Instead of the API's Lambda authorizer. */
  readonly authorizer?: IHttpRouteAuthorizer;
  /** Where the route (and an integration it is the first to use) is created. @default the API's construct */
  readonly scope?: Construct;
}

/** One access-log line per request, as JSON so it can be queried with CloudWatch Logs Insights. */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    authorizerError: '$context.authorizer.error',
    accountId: '$context.authorizer.accountId',
  }),
);

/**
 * A Lambda proxy integration (payload 2.0, as HttpLambdaIntegration's) that API Gateway calls with
 * the credentials of `invoker`, which may invoke the function by its own ARN (unqualified, as the
 * integration names it). HttpLambdaIntegration instead adds a resource-based permission to the
 * function for each route: one more CloudFormation resource per route, and a permission can only
 * ever name one function, so no single one can serve every route.
 */
class InvokeWithRoleIntegration extends HttpRouteIntegration {
  public constructor(
    id: string,
    private readonly handler: IFunction,
    private readonly invoker: Role,
  ) {
    super(id);
  }

  public bind(): HttpRouteIntegrationConfig {
    Grant.addToPrincipal({ grantee: this.invoker, actions: ['lambda:InvokeFunction'], resourceArns: [this.handler.functionArn] });
    return {
      type: HttpIntegrationType.AWS_PROXY,
      uri: this.handler.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      credentials: IntegrationCredentials.fromRole(this.invoker),
    };
  }
}

/** The public HTTP API: every route behind the Lambda authorizer, with JSON access logs. */
export class ServiceHttpApi extends Construct {
  public readonly api: HttpApi;
  private readonly stage: HttpStage;
  /** The one role API Gateway invokes every route's function (and the fallback) with: see InvokeWithRoleIntegration. */
  private readonly invoker: Role;
  /** One integration per function: a console twin shares its API route's (one resource fewer per twin). */
  private readonly integrations = new Map<IFunction, InvokeWithRoleIntegration>();

  public constructor(scope: Construct, id: string, props: ServiceHttpApiProps) {
    super(scope, id);

    /*
     * The authorizer never rejects: it always answers isAuthorized=true with a context of either
     * {accountId} or {authError}, and the route handler turns authError into our 401 JSON error
     * envelope (API Gateway's own 401/403 bodies are not). With an identity source configured,
     * API Gateway itself answers 401 without calling the authorizer when that source (the
     * Authorization header) is missing, so there is none: for a REQUEST authorizer it is optional.
     * Identity sources are also the cache key, so results cannot be cached without one: the TTL
     * is 0 and every request is authorized afresh. The request limit relies on that: the authorizer
     * takes each request's token from its account's bucket, and reads keys at most 5 s old.
     */
    const authorizer = new HttpLambdaAuthorizer('Authorizer', props.authorizer, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });

    this.invoker = new Role(this, 'InvokeRole', { assumedBy: new ServicePrincipal('apigateway.amazonaws.com') });
    this.api = new HttpApi(this, 'Api', {
      description: 'Media Scanner Service public API',
      defaultAuthorizer: authorizer,
      // The $default route catches whatever no route matches, so it too answers with our envelope.
      defaultIntegration: new InvokeWithRoleIntegration('FallbackIntegration', props.fallback, this.invoker),
      // Created below instead, since the default stage offers no access log settings.
      createDefaultStage: false,
    });
    // HttpLambdaAuthorizer renders `IdentitySource: []`; leave the property out instead, which is how
    // CloudFormation and API Gateway document a REQUEST authorizer without identity source.
    const cfnAuthorizer = this.api.node.findChild('Authorizer').node.defaultChild as CfnAuthorizer;
    cfnAuthorizer.addPropertyDeletionOverride('IdentitySource');

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat },
      throttle: props.throttle,
    });
  }

  /**
   * Routes `method path` to `handler`, behind the API's authorizer unless `options.authorizer` says
   * otherwise (the console's; a none authorizer for public paths), in `options.scope` (a nested
   * stack, for the console's routes). Routes to the same function share its integration.
   */
  public addRoute(id: string, method: RouteMethod, path: string, handler: IFunction, options: RouteOptions = {}): HttpRoute {
    let integration = this.integrations.get(handler);
    if (!integration) {
      integration = new InvokeWithRoleIntegration(`${id}Integration`, handler, this.invoker);
      this.integrations.set(handler, integration);
    }
    return new HttpRoute(options.scope ?? this, id, {
      httpApi: this.api,
      routeKey: HttpRouteKey.with(path, HttpMethod[method]),
      integration,
      ...(options.authorizer ? { authorizer: options.authorizer } : {}),
    });
  }

  public get url(): string {
    return this.stage.url;
  }
}
