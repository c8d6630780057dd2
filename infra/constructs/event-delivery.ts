import { Duration, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { OUTBOX_ENTITY } from '../../functions/adapters/table/outbox.js';
import { ServiceFunction } from './service-function.js';
import type { ServiceTable } from './service-table.js';

export interface EventDeliveryProps {
  readonly table: ServiceTable;
  readonly eventBus: IEventBus;
  readonly environment: Readonly<Record<string, string>>;
}

/** An encrypted, TLS-only queue that keeps what failed for 14 days, for inspection and redrive. */
export const deadLetterQueue = (scope: Construct, id: string): Queue =>
  new Queue(scope, id, { enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) });

/**
 * Terminal events from the table to the bus (DESIGN 8). The state change and its announcement are
 * one transaction (functions/domain/outbox.ts); the table's stream hands each new outbox item to
 * the relay function, which publishes the event and deletes the item. Stream records are kept
 * 24 hours and retried in order; a record that keeps failing goes to a dead-letter queue (alarmed
 * like every other) while its item stays in the outbox.
 */
export class EventDelivery extends Construct {
  public readonly relay: ServiceFunction;

  public constructor(scope: Construct, id: string, props: EventDeliveryProps) {
    super(scope, id);

    this.relay = new ServiceFunction(this, 'OutboxRelay', {
      handler: 'events/relay-outbox',
      description: 'Publishes the terminal events written to the table outbox',
      timeout: Duration.seconds(60),
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
        filters: [FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(OUTBOX_ENTITY) } } } })],
      }),
    );
  }
}
