import { CfnOutput, Duration, NestedStack, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { HttpNoneAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { Grant, type Role } from 'aws-cdk-lib/aws-iam';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { HttpMethods } from 'aws-cdk-lib/aws-s3';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import {
  consoleRoutes,
  consoleTwins,
  notFoundHandler,
  routeKey,
  routes,
  type AnyRouteDefinition,
  type ConsoleRouteDefinition,
  type RouteDefinition,
} from '../functions/routes.js';
import { workflows, type WorkflowDefinition, type WorkflowName } from '../functions/workflows/registry.js';
import { ConsoleEdge } from './constructs/console-edge.js';
import { ConsoleUsers } from './constructs/console-users.js';
import { ContainerCluster } from './constructs/container-cluster.js';
import { EngineAccess } from './constructs/engine-access.js';
import { EventDelivery } from './constructs/event-delivery.js';
import { MediaBucket } from './constructs/media-bucket.js';
import { RouteRoles } from './constructs/route-roles.js';
import { ServiceFunction } from './constructs/service-function.js';
import { ServiceHttpApi } from './constructs/service-http-api.js';
import { ServiceMonitoring } from './constructs/service-monitoring.js';
import { ServiceTable } from './constructs/service-table.js';
import { serviceStateMachineArn, WorkflowStateMachine } from './constructs/workflow-state-machine.js';
import { lambdaContractOf, units } from '../functions/runtime/contracts.js';
import { admissionContext, consoleContext, deploymentContextKeys, emailsContext, operationsContextKeys, positiveNumberContext } from './deployment-context.js';

interface MediaScannerStackProps extends StackProps {
  /** Deployment-wide cap on observations per run (SPEC: at most 50). @default 50 */
  readonly maxObservationsCap?: number;
}

/** `api/scanners/list-versions` -> `ApiScannersListVersions`: a construct id that follows the handler path. */
const constructIdFor = (handler: string): string =>
  handler
    .split(/[/-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

const pascalCase = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The API's default stage throttling when context sets none: requests per second, and burst. */
export const defaultApiThrottle = { rateLimit: 100, burstLimit: 200 } as const;

/** Powertools Metrics' namespace: the service's custom metrics (functions/) land under it in CloudWatch. */
export const METRICS_NAMESPACE = 'MediaScanner';

/** `analysis` -> `ANALYSIS_STATE_MACHINE_ARN`: the variable functions/config.ts reads a workflow's ARN from. */
export const stateMachineArnVariable = (workflow: string): string => `${workflow.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_STATE_MACHINE_ARN`;

export class MediaScannerStack extends Stack {
  /** Alarms, their topic and the dashboard. */
  public readonly operations: ServiceMonitoring;

  public constructor(scope: Construct, id: string, props: MediaScannerStackProps = {}) {
    super(scope, id, props);

    const table = new ServiceTable(this, 'Table');
    const media = new MediaBucket(this, 'Media');

    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC key that signs list cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Static HMAC key for list cursors: rotating it would invalidate every cursor clients hold, and no credential to a system is behind it.',
    });

    // The analyzer and transcriber chosen with context (`-c analyzer=bedrock ...`, docs/analyzers.md).
    const engines = new EngineAccess(this, 'Engines', { bucket: media.bucket });

    // Admission (DESIGN §6): every function that settles a run may hand its capacity to another.
    const admission = admissionContext(this.node);
    // functions/config.ts validates these at start-up in every function, whatever access it is granted.
    const environment = {
      TABLE_NAME: table.tableName,
      MEDIA_BUCKET: media.bucket.bucketName,
      LOG_LEVEL: 'INFO',
      MAX_OBSERVATIONS_CAP: String(props.maxObservationsCap ?? 50),
      CONTAINER_TASK_LIMIT: String(admission.containerTasks),
      ...(engines.engines.TRANSCRIBER === 'aws-transcribe' ? { TRANSCRIBE_JOB_LIMIT: String(admission.transcribeJobs) } : {}),
      POWERTOOLS_SERVICE_NAME: 'media-scanner',
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      // Event delivery switched off for this deployment (SPEC Events), from context; every function reads the same switch.
      ...(String(this.node.tryGetContext(deploymentContextKeys.eventDeliveryEnabled)) === 'false' ? { EVENT_DELIVERY_ENABLED: 'false' } : {}),
    };

    // Terminal events (DESIGN §8), relayed from the table's outbox; the archive keeps every event for replay.
    const eventBus = new EventBus(this, 'EventBus', { description: 'Media Scanner Service terminal events' });
    eventBus.archive('Archive', {
      description: 'Every event published to the Media Scanner Service bus, for replay',
      eventPattern: { account: [this.account] },
      retention: Duration.days(30),
    });
    const eventDelivery = new EventDelivery(this, 'EventDelivery', { table, eventBus, environment });

    // Created on first use: only workflows with container tasks need the VPC and ECS cluster. (The
    // ffmpeg layer likewise, by the first function that runs ffmpeg: FfmpegLayer.of.)
    let containers: ContainerCluster | undefined;
    const containerCluster = () => (containers ??= new ContainerCluster(this, 'Containers', { taskLimit: admission.containerTasks }));

    // One state machine per entry of the workflow table, with one function per task and one
    // Fargate task definition per container task.
    const stateMachines = Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>).map(([name, workflow]): [string, StateMachine] => {
      const { stateMachine, tasks, containerTasks } = new WorkflowStateMachine(this, `${pascalCase(name)}Workflow`, {
        name,
        workflow,
        environment,
        table,
        bucket: media.bucket,
        eventBus,
        containerCluster,
      });
      if (name === 'analysis') engines.bindAnalysisTasks(tasks, containerTasks);
      new CfnOutput(this, `${pascalCase(name)}StateMachineArn`, { value: stateMachine.stateMachineArn });
      return [name, stateMachine];
    });

    const authorizer = new ServiceFunction(this, 'Authorizer', {
      contract: lambdaContractOf(units.authorizer),
      description: 'Resolves the API key to an account for every request',
      environment,
    });
    authorizer.bindTable(table, 'read');
    // Each request takes a token from its account's request bucket (functions/domain/accounts/request-limits.ts).
    table.grant(authorizer.fn, 'dynamodb:UpdateItem');

    const notFound = new ServiceFunction(this, constructIdFor(notFoundHandler), {
      contract: lambdaContractOf(units.fallback),
      description: 'Answers requests that match no route',
      environment,
    });

    const api = new ServiceHttpApi(this, 'HttpApi', {
      authorizer: authorizer.fn,
      fallback: notFound.fn,
      throttle: {
        rateLimit: positiveNumberContext(this.node, operationsContextKeys.apiThrottleRateLimit, defaultApiThrottle.rateLimit),
        burstLimit: positiveNumberContext(this.node, operationsContextKeys.apiThrottleBurstLimit, defaultApiThrottle.burstLimit, { integer: true }),
      },
    });

    // Provider pages (DESIGN §10) are described with yt-dlp, which Node functions do not carry: one
    // Python function with yt-dlp as a layer, invoked by the routes the route table says resolve them.
    const providerResolver = new ServiceFunction(this, 'ProviderResolver', {
      contract: lambdaContractOf(units.providerResolver),
      description: 'Describes provider page URLs with yt-dlp for preflight, quote and submission',
    });

    // One function and one route per entry of the route tables; nothing here names a route. Routes
    // whose entries declare the same grants share a role (RouteRoles says why).
    const routeRoles = new RouteRoles(this, 'RouteRoles');
    const routeFunction = (route: AnyRouteDefinition, routeEnvironment: Readonly<Record<string, string>> = environment): LambdaFunction => {
      const fn = new ServiceFunction(this, constructIdFor(route.handler), {
        contract: lambdaContractOf(units.route(routeKey(route))),
        description: routeKey(route),
        environment: routeEnvironment,
        role: routeRoles.roleFor(route),
      });
      fn.bindTable(table, route.table);
      if (route.bucket) fn.bindBucket(media.bucket, route.bucket);
      if (route.events) fn.bindEventBus(eventBus);
      for (const [name, stateMachine] of stateMachines) {
        if (route.workflows?.includes(name as WorkflowName)) fn.bindStateMachine(stateMachine, stateMachineArnVariable(name));
      }
      if (route.cursors) fn.bindCursorSecret(cursorSecret);
      if (route.wakesWebhookSender) eventDelivery.bindWakesSender(fn);
      if (route.resolvesProviderPages) fn.bindProviderResolver(providerResolver.fn);
      if (route.wakesWorkflows) fn.bindTaskCallbacks(Object.keys(workflows).map((name) => serviceStateMachineArn(this, name)));
      // Uploads switched off for this deployment (SPEC 503 uploads_unavailable), from context.
      if (route.uploads && String(this.node.tryGetContext(deploymentContextKeys.uploadsEnabled)) === 'false') fn.fn.addEnvironment('UPLOADS_ENABLED', 'false');
      return fn.fn;
    };
    const apiFunctions = new Map<string, LambdaFunction>();
    for (const route of routes as readonly RouteDefinition[]) {
      const fn = routeFunction(route);
      apiFunctions.set(route.handler, fn);
      api.addRoute(constructIdFor(route.handler), route.method, route.path, fn);
    }

    const consoleAccess = this.addConsole(api, media, table, notFound.role, environment);
    // Every API route again under the console's prefix, on the same function and integration, behind the console session
    // (the same Lambda authorizer reads the session on these route keys: functions/authorizer/handler.ts).
    for (const twin of consoleTwins) {
      const fn = apiFunctions.get(twin.route.handler);
      if (!fn) throw new Error(`No function for ${routeKey(twin.route)}`);
      api.addRoute(`Console${constructIdFor(twin.route.handler)}`, twin.method, twin.path, fn, consoleAccess.routeOptions);
    }
    for (const route of consoleRoutes as readonly ConsoleRouteDefinition[]) {
      api.addRoute(constructIdFor(route.handler), route.method, route.path, routeFunction(route, consoleAccess.environment), consoleAccess.routeOptions);
    }

    // Last: it finds what to watch (every function, state machine, dead-letter queue, table and
    // cluster built above) in the construct tree.
    this.operations = new ServiceMonitoring(this, 'Operations', {
      api: api.api,
      alarmEmails: emailsContext(this.node, operationsContextKeys.alarmEmail),
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'MediaBucketName', { value: media.bucket.bucketName });
    new CfnOutput(this, 'EventBusName', { value: eventBus.eventBusName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.operations.alarmTopic.topicArn, description: 'Every alarm notifies this topic (subscribe to it)' });
    new CfnOutput(this, 'AlarmSubscribers', { value: this.operations.alarmSubscribers, description: "Who the alarm topic notifies (alarmEmail's addresses)" });
    new CfnOutput(this, 'DashboardName', { value: this.operations.dashboard.dashboardName });
    new CfnOutput(this, 'ConsoleUrl', { value: `${consoleAccess.origin}/console/`, description: 'Where account owners sign in to the console' });
    new CfnOutput(this, 'ConsoleUserPoolId', {
      value: consoleAccess.users.userPool.userPoolId,
      description: 'Console owners: admin-create-user here (docs/console.md)',
    });
    new CfnOutput(this, 'ConsoleClientId', { value: consoleAccess.users.client.userPoolClientId });
  }

  /**
   * The console on AWS (docs/console.md): CloudFront in front of its bucket and of this API, its
   * owners' user pool, the nested stack of its routes, the sign-in steps (the callback begins a
   * session: a table item the API's authorizer reads), and the media bucket's CORS for the console's origin.
   */
  private addConsole(api: ServiceHttpApi, media: MediaBucket, table: ServiceTable, noGrantsRole: Role, environment: Readonly<Record<string, string>>) {
    const settings = consoleContext(this.node);
    const edge = new ConsoleEdge(this, 'Console', {
      api: api.api,
      accessLogs: media.accessLogs,
      // With a custom domain the CSP names the media bucket itself. Without one it cannot: the
      // bucket's CORS names the distribution, which would then name the bucket (a dependency cycle),
      // so it admits the region's S3 hosts, which signed URLs alone open.
      mediaOrigin: settings.domain ? `https://${media.bucket.bucketRegionalDomainName}` : `https://*.s3.${this.region}.amazonaws.com`,
      domain: settings.domain && {
        name: settings.domain.name,
        certificate: Certificate.fromCertificateArn(this, 'ConsoleCertificate', settings.domain.certificateArn),
      },
    });
    const users = new ConsoleUsers(this, 'ConsoleUsers', {
      consoleOrigin: edge.origin,
      domainPrefix: settings.authDomainPrefix ?? `${this.stackName.toLowerCase().replace(/[^a-z0-9-]/g, '')}-${this.account}`,
    });
    // The console's routes live in a nested stack of their own: API Gateway routes only (their
    // functions stay here), so a twin per API route costs this stack's 500 resources nothing.
    const routeStack = new NestedStack(this, 'ConsoleRoutes', {
      description: 'Media Scanner console routes: the API twins, the console routes and the sign-in steps',
    });
    const signInEnvironment = { ...environment, CONSOLE_URL: edge.origin, COGNITO_DOMAIN: users.domainUrl, COGNITO_CLIENT_ID: users.client.userPoolClientId };
    const signInSteps = [
      { id: 'ConsoleAuthSignIn', unit: units.consoleSignIn, path: '/console/auth/sign-in' },
      { id: 'ConsoleAuthCallback', unit: units.consoleCallback, path: '/console/auth/callback' },
    ];
    for (const { id, unit, path } of signInSteps) {
      // The redirect reads and writes nothing of the service's: it shares the catch-all's role, which holds no grants
      // either (a role and a policy fewer under the stack's 500 resources); the callback has a role of its own.
      const role = unit === units.consoleSignIn ? { role: noGrantsRole } : {};
      const fn = new ServiceFunction(this, id, { contract: lambdaContractOf(unit), description: `GET ${path}`, environment: signInEnvironment, ...role });
      // The callback begins the session: it reads the owner's standing and writes the session's item (no index).
      if (unit === units.consoleCallback)
        Grant.addToPrincipal({ grantee: fn.fn, actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], resourceArns: [table.tableArn] });
      const route = api.addRoute(id, 'GET', path, fn.fn, { scope: routeStack, authorizer: new HttpNoneAuthorizer() });
      Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: `${path} is public: the sign-in steps are how a console session begins.` });
    }

    // Uploads PUT straight to their signed target, and the player GETs the source, from the console's page.
    media.bucket.addCorsRule({
      allowedOrigins: [edge.origin],
      allowedMethods: [HttpMethods.PUT, HttpMethods.GET, HttpMethods.HEAD],
      allowedHeaders: ['*'],
      // Multipart uploads report each part's ETag at completion.
      exposedHeaders: ['ETag'],
      maxAge: 3600,
    });
    // Sign-out ends the managed login's session too, then comes back to the console.
    const signOutUrl = `${users.domainUrl}/logout?client_id=${users.client.userPoolClientId}&logout_uri=${edge.origin}/console/`;
    return { origin: edge.origin, users, routeOptions: { scope: routeStack }, environment: { ...environment, CONSOLE_SIGN_OUT_URL: signOutUrl } };
  }
}
