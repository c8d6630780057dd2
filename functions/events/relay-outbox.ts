import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { outboxEntryEntity } from '../adapters/table/entities/outbox-entry.js';
import { relayAnnouncement } from '../domain/events/outbox.js';
import { outboxRelay } from '../composition/outbox.js';
import { logger } from '../shared/logger.js';

/**
 * The outbox relay on AWS: the table's stream, filtered by its event source mapping to inserted
 * outbox items, invokes this with each new announcement; it publishes the event to the bus and
 * deletes the item. A failed record is reported alone (partial batch response) and retried; a
 * record that keeps failing goes to the relay's dead-letter queue, and stays in the outbox.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const { accountId, announcement } = outboxEntryEntity.record(unmarshall(image as Record<string, AttributeValue>));
    try {
      await relayAnnouncement(outboxRelay(), accountId, announcement);
    } catch (error) {
      logger.error(`Could not relay ${announcement.type} ${announcement.eventId}`, error as Error);
      // Stream records of a shard are in order: everything from the first failure is retried.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}
