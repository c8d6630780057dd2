import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { EventPublisher } from '../../domain/events/ports.js';

/** `source` of every service event on the bus; the webhook rule matches on it. */
export const EVENT_SOURCE = 'media-scanner';

/**
 * Terminal events on AWS: one PutEvents entry per event, `detail-type` = the event type and
 * `detail` = `{account_id, event}` where `event` is the DESIGN §8 payload exactly as it is to be
 * delivered. A refused entry throws, so the caller can retry with the same event id.
 */
export function eventBridgePublisher(client: EventBridgeClient, busName: string): EventPublisher {
  return {
    async publish(accountId, event) {
      // Loaded at the first event: a function that publishes none never loads the client.
      const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      const result = await client.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: busName,
              Source: EVENT_SOURCE,
              DetailType: event.type,
              Detail: JSON.stringify({ account_id: accountId, event }),
              Time: new Date(event.created_at),
            },
          ],
        }),
      );
      const entry = result.Entries?.[0];
      if (result.FailedEntryCount || !entry?.EventId) {
        throw new Error(`EventBridge refused ${event.type} ${event.id}: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim());
      }
    },
  };
}
