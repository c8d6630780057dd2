import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryScheduler } from '../../domain/webhooks/ports.js';

/** SQS delays a message by at most 15 minutes. */
const MAX_SQS_DELAY_SECONDS = 900;

/** The message that wakes the sender for one delivery (SQS body, or the Scheduler target's input). */
interface DueDeliveryMessage {
  account_id: string;
  delivery_id: string;
}

export interface AwsSchedulerSettings {
  /** The delivery queue the sender Lambda consumes (WEBHOOK_QUEUE_URL). */
  queueUrl: string;
  /** The same queue's ARN, the one-time schedules' target (WEBHOOK_QUEUE_ARN). */
  queueArn: string;
  /** The role EventBridge Scheduler assumes to send to the queue (WEBHOOK_SCHEDULER_ROLE_ARN). */
  schedulerRoleArn: string;
  /** The schedule group of the one-time schedules (WEBHOOK_SCHEDULE_GROUP). */
  scheduleGroup: string;
}

interface AwsSchedulerClients {
  sqs: () => Promise<SQSClient>;
  /** Only for delays beyond 15 minutes: a function that never waits that long never loads it. */
  scheduler: () => Promise<SchedulerClient>;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the second (never early). */
export const atExpression = (at: Date): string => `at(${new Date(Math.ceil(at.getTime() / 1000) * 1000).toISOString().slice(0, 19)})`;

/** Unique per delivery and due time (at most 64 characters of [0-9A-Za-z-_.]): creating it twice is one schedule. */
export const scheduleName = (deliveryId: string, at: Date): string =>
  `${deliveryId}-${new Date(Math.ceil(at.getTime() / 1000) * 1000).toISOString().slice(0, 19).replace(/[-:]/g, '')}`;

/**
 * Wakes the sender on AWS when a delivery falls due, costing nothing while it waits: up to 15
 * minutes ahead an SQS message with DelaySeconds to the delivery queue; further ahead (the 30 min
 * to 10 h steps of the schedule) a one-time EventBridge Scheduler schedule that sends the same
 * message to the queue at the due time and deletes itself. The delivery is in the table either
 * way, so a wake-up that arrives early only re-arms itself (domain/webhooks/deliveries.ts).
 */
export function awsDeliveryScheduler(clients: AwsSchedulerClients, settings: AwsSchedulerSettings, now: () => Date = () => new Date()): DeliveryScheduler {
  return {
    async schedule(accountId, deliveryId, at) {
      const body = JSON.stringify({ account_id: accountId, delivery_id: deliveryId } satisfies DueDeliveryMessage);
      const delaySeconds = Math.max(0, Math.ceil((at.getTime() - now().getTime()) / 1000));
      if (delaySeconds <= MAX_SQS_DELAY_SECONDS) {
        // Loaded at the first call, like the SDK clients (eventbridge-publisher.ts).
        const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
        await (await clients.sqs()).send(new SendMessageCommand({ QueueUrl: settings.queueUrl, MessageBody: body, DelaySeconds: delaySeconds }));
        return;
      }
      const { ConflictException, CreateScheduleCommand } = await import('@aws-sdk/client-scheduler');
      try {
        await (await clients.scheduler()).send(
          new CreateScheduleCommand({
            Name: scheduleName(deliveryId, at),
            GroupName: settings.scheduleGroup,
            ScheduleExpression: atExpression(at),
            ScheduleExpressionTimezone: 'UTC',
            FlexibleTimeWindow: { Mode: 'OFF' },
            ActionAfterCompletion: 'DELETE',
            Target: { Arn: settings.queueArn, RoleArn: settings.schedulerRoleArn, Input: body },
          }),
        );
      } catch (error) {
        // The same delivery and due time scheduled before (a repeated wake-up): already armed.
        if (!(error instanceof ConflictException)) throw error;
      }
    },
  };
}
