import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { lambdaContractOf, units } from '../../functions/runtime/contracts.js';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '../../functions/adapters/events/eventbridge-publisher.js';
import { outboxEntryEntity } from '../../functions/adapters/table/entities/outbox-entry.js';
import { ServiceFunction } from './service-function.js';
import type { ServiceTable } from './service-table.js';

interface EventDeliveryProps {
  readonly table: ServiceTable;
  readonly eventBus: IEventBus;
  readonly environment: Readonly<Record<string, string>>;
}

/** An encrypted, TLS-only queue that keeps what failed for 14 days, for inspection and redrive. */
const deadLetterQueue = (scope: Construct, id: string): Queue =>
  new Queue(scope, id, { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) });

/** Messages the sender could not handle this many times go to its dead-letter queue. */
const SENDER_MAX_RECEIVES = 5;

/**
 * Terminal events from the table to the bus, and from the bus to webhook endpoints (DESIGN 1, 8).
 *
 * Outbox: the state change and its announcement are one transaction (functions/domain/events/outbox.ts);
 * the table's stream hands each new outbox item to the relay function, which publishes the event
 * and deletes the item. Stream records are kept 24 hours and retried in order; a record that keeps
 * failing goes to a dead-letter queue (alarmed like every other) while its item stays in the outbox.
 *
 * Webhooks: a rule sends every service event on the bus to the delivery queue, whose sender
 * function fans it out to the account's endpoints (one delivery record each) and attempts them.
 * Retries cost nothing while they wait: up to 15 minutes ahead the sender sends itself a delayed
 * message on the same queue, further ahead (30 min to 10 h) a one-time EventBridge Scheduler
 * schedule sends that message at the due time and deletes itself.
 */
export class EventDelivery extends Construct {
  public readonly relay: ServiceFunction;
  public readonly sender: ServiceFunction;
  /** What the sender consumes: bus events, and due-delivery wake-ups. */
  public readonly deliveryQueue: Queue;

  public constructor(scope: Construct, id: string, props: EventDeliveryProps) {
    super(scope, id);

    this.relay = new ServiceFunction(this, 'OutboxRelay', {
      contract: lambdaContractOf(units.outboxRelay),
      description: 'Publishes the terminal events written to the table outbox',
      environment: props.environment,
    });
    // Reads the announced records, deletes the outbox item.
    this.relay.bindTable(props.table, 'readWrite');
    this.relay.bindEventBus(props.eventBus);

    const failedRelays = deadLetterQueue(this, 'FailedRelays');
    Validations.of(failedRelays).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue of the outbox relay.' });
    this.relay.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 50,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 20,
        onFailure: new SqsDlq(failedRelays),
        // Only new outbox items invoke the relay: no other write to the table costs an invocation.
        filters: [FilterCriteria.filter({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: [outboxEntryEntity.name] } } } })],
      }),
    );

    const failedMessages = deadLetterQueue(this, 'FailedWebhookMessages');
    Validations.of(failedMessages).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the webhook delivery queue and of the rule that feeds it.',
    });
    const senderContract = lambdaContractOf(units.webhookSender);
    const senderTimeout = Duration.seconds(senderContract.timeoutSeconds);
    this.deliveryQueue = new Queue(this, 'WebhookDeliveries', {
      enforceSSL: true,
      encryption: QueueEncryption.SQS_MANAGED,
      // Six times the sender's timeout (AWS guidance for Lambda event sources), so a message is never handled twice at once.
      visibilityTimeout: Duration.seconds(senderTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: failedMessages, maxReceiveCount: SENDER_MAX_RECEIVES },
    });
    new Rule(this, 'EventsToWebhooks', {
      eventBus: props.eventBus,
      description: 'Every service event, to the webhook sender',
      eventPattern: { source: [EVENT_SOURCE] },
      targets: [new SqsQueue(this.deliveryQueue, { deadLetterQueue: failedMessages, retryAttempts: 185, maxEventAge: Duration.hours(24) })],
    });

    // One-time schedules of retries further ahead than SQS can delay, in a group of their own.
    const retries = new CfnScheduleGroup(this, 'WebhookRetries', {});
    const schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler sends due webhook retries to the delivery queue',
    });
    this.deliveryQueue.grantSendMessages(schedulerRole);

    this.sender = new ServiceFunction(this, 'WebhookSender', {
      contract: senderContract,
      description: 'Fans events out to webhook endpoints and attempts each delivery',
      environment: {
        ...props.environment,
        WEBHOOK_QUEUE_ARN: this.deliveryQueue.queueArn,
        WEBHOOK_SCHEDULER_ROLE_ARN: schedulerRole.roleArn,
        WEBHOOK_SCHEDULE_GROUP: retries.ref,
      },
    });
    // Endpoints, accounts and delivery records.
    this.sender.bindTable(props.table, 'readWrite');
    this.bindWakesSender(this.sender);
    const stack = Stack.of(this);
    Grant.addToPrincipal({
      grantee: this.sender.fn,
      actions: ['scheduler:CreateSchedule'],
      resourceArns: [stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${retries.ref}/*` })],
    });
    schedulerRole.grantPassRole(this.sender.fn.grantPrincipal);
    Validations.of(this.sender).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<${stack.getLogicalId(retries)}>/*]`,
      reason: "Schedule names are made per delivery and due time; the grant covers only the schedules of the service's retry group.",
    });
    this.sender.fn.addEventSource(new SqsEventSource(this.deliveryQueue, { batchSize: 10, reportBatchItemFailures: true }));
  }

  /** Lets a function wake the sender (a delivery due now or soon) through the delivery queue, and names the queue. */
  public bindWakesSender(fn: ServiceFunction): void {
    this.deliveryQueue.grantSendMessages(fn.fn);
    fn.fn.addEnvironment('WEBHOOK_QUEUE_URL', this.deliveryQueue.queueUrl);
  }
}
