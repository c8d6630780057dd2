import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { notFoundHandler, routeKey, routes, type RouteDefinition } from '../functions/routes.js';
import { workflows, type WorkflowDefinition, type WorkflowName } from '../functions/workflows/registry.js';
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
import { admissionContext, deploymentContextKeys, emailsContext, operationsContextKeys, positiveNumberContext } from './deployment-context.js';

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

    // One function and one route per entry of the route table; nothing here names a route. Routes
    // whose entries declare the same grants share a role (RouteRoles says why).
    const routeRoles = new RouteRoles(this, 'RouteRoles');
    for (const route of routes as readonly RouteDefinition[]) {
      const id = constructIdFor(route.handler);
      const fn = new ServiceFunction(this, id, {
        contract: lambdaContractOf(units.route(routeKey(route))),
        description: routeKey(route),
        environment,
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
      api.addRoute(id, route.method, route.path, fn.fn);
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
  }
}
