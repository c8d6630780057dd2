import { spawn } from 'node:child_process';
import { requiredSetting, type Config } from '../config.js';
import { instrumentClient } from '../adapters/aws-call-hooks.js';
import { disabledEventPublisher } from '../adapters/events/disabled-publisher.js';
import { eventBridgePublisher } from '../adapters/events/eventbridge-publisher.js';
import { readSecretString } from '../adapters/secrets.js';
import { lambdaProviderResolver } from '../adapters/sources/lambda-provider-resolver.js';
import { sfnBatchWorkflowStarter, sfnRenderWorkflowStarter, sfnWorkflowStarter } from '../adapters/workflows/sfn-starter.js';
import { sfnTaskCallbacks } from '../adapters/workflows/sfn-task-callbacks.js';
import { awsDeliveryScheduler } from '../adapters/webhooks/aws-scheduler.js';
import type { Host, WorkflowHost } from './host.js';
import { once } from '../shared/memo.js';

/**
 * The AWS host's parts. Each loads its SDK client only when first called (the adapters import
 * their commands the same way), so a function that never starts a workflow, publishes an event
 * or reads a secret never loads those clients at cold start.
 */
export function awsHost(cfg: Config): Host {
  return {
    launch: spawn,
    cursorSecret: once(async () => {
      const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      return readSecretString(
        instrumentClient(new SecretsManagerClient({ region: cfg.AWS_REGION })),
        requiredSetting(cfg.CURSOR_SECRET_ARN, 'CURSOR_SECRET_ARN'),
      );
    }),
    workflows: once(async (): Promise<WorkflowHost> => {
      const { SFNClient } = await import('@aws-sdk/client-sfn');
      const sfn = instrumentClient(new SFNClient({ region: cfg.AWS_REGION }));
      // Each ARN is set only on the functions granted to start that workflow: required when used.
      return {
        startAnalysis: async (ref) => sfnWorkflowStarter(sfn, requiredSetting(cfg.ANALYSIS_STATE_MACHINE_ARN, 'ANALYSIS_STATE_MACHINE_ARN')).startAnalysis(ref),
        startBatch: async (ref) => sfnBatchWorkflowStarter(sfn, requiredSetting(cfg.BATCH_STATE_MACHINE_ARN, 'BATCH_STATE_MACHINE_ARN')).startBatch(ref),
        startRender: async (ref) => sfnRenderWorkflowStarter(sfn, requiredSetting(cfg.RENDER_STATE_MACHINE_ARN, 'RENDER_STATE_MACHINE_ARN')).startRender(ref),
        ...sfnTaskCallbacks(sfn),
      };
    }),
    events: once(async () => {
      // SPEC Events: delivery is optional per deployment; with no bus configured events go nowhere.
      if (!cfg.EVENT_BUS_NAME) return disabledEventPublisher;
      const { EventBridgeClient } = await import('@aws-sdk/client-eventbridge');
      return eventBridgePublisher(instrumentClient(new EventBridgeClient({ region: cfg.AWS_REGION })), cfg.EVENT_BUS_NAME);
    }),
    providerResolver: once(async () => {
      // Set only on the routes that resolve provider pages (the route table's resolvesProviderPages).
      const functionName = requiredSetting(cfg.PROVIDER_RESOLVER_FUNCTION, 'PROVIDER_RESOLVER_FUNCTION');
      const { LambdaClient } = await import('@aws-sdk/client-lambda');
      // One attempt: the function answers within its timeout (25 s), and a retry after that would outlast the API's 29 s.
      return lambdaProviderResolver(instrumentClient(new LambdaClient({ region: cfg.AWS_REGION, maxAttempts: 1 })), functionName);
    }),
    deliveryScheduler: once(async () => {
      // The queue is set on the sender and the retry route; the Scheduler settings on the sender only (retries beyond 15 min).
      const queueUrl = requiredSetting(cfg.WEBHOOK_QUEUE_URL, 'WEBHOOK_QUEUE_URL');
      const { SQSClient } = await import('@aws-sdk/client-sqs');
      const sqs = instrumentClient(new SQSClient({ region: cfg.AWS_REGION }));
      const scheduler = once(async () => {
        const { SchedulerClient } = await import('@aws-sdk/client-scheduler');
        return instrumentClient(new SchedulerClient({ region: cfg.AWS_REGION }));
      });
      return awsDeliveryScheduler(
        { sqs: () => Promise.resolve(sqs), scheduler },
        {
          queueUrl,
          get queueArn() {
            return requiredSetting(cfg.WEBHOOK_QUEUE_ARN, 'WEBHOOK_QUEUE_ARN');
          },
          get schedulerRoleArn() {
            return requiredSetting(cfg.WEBHOOK_SCHEDULER_ROLE_ARN, 'WEBHOOK_SCHEDULER_ROLE_ARN');
          },
          get scheduleGroup() {
            return requiredSetting(cfg.WEBHOOK_SCHEDULE_GROUP, 'WEBHOOK_SCHEDULE_GROUP');
          },
        },
      );
    }),
  };
}
