import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as z from '../shared/zod.js';
import { attemptDelivery, fanOut, type DeliveryDeps } from '../domain/webhooks/deliveries.js';
import type { ServiceEvent } from '../domain/events/model.js';

/** An event as the rule on the service bus puts it on the queue: `detail` is what the publisher sent. */
const busEventSchema = z.object({
  detail: z.object({
    account_id: z.string().check(z.minLength(1)),
    event: z.looseObject({
      id: z.string().check(z.minLength(1)),
      type: z.string().check(z.minLength(1)),
      created_at: z.string(),
      data: z.object({ object: z.unknown() }),
    }),
  }),
});

/** A pending delivery fallen due (aws-scheduler.ts sends these, directly or through a one-time schedule). */
const dueDeliverySchema = z.object({ account_id: z.string().check(z.minLength(1)), delivery_id: z.string().check(z.minLength(1)) });

type SenderMessage = { kind: 'event'; accountId: string; event: ServiceEvent } | { kind: 'due'; accountId: string; deliveryId: string };

/** What one queue message asks for; throws for anything else (the message then ends in the dead-letter queue). */
export function parseSenderMessage(body: string): SenderMessage {
  const json = JSON.parse(body) as unknown;
  const busEvent = busEventSchema.safeParse(json);
  if (busEvent.success) {
    // The payload exactly as published (key order too): it is what gets signed and sent.
    const event = (json as { detail: { event: ServiceEvent } }).detail.event;
    return { kind: 'event', accountId: busEvent.data.detail.account_id, event };
  }
  const due = dueDeliverySchema.safeParse(json);
  if (due.success) return { kind: 'due', accountId: due.data.account_id, deliveryId: due.data.delivery_id };
  throw new Error('Neither a bus event nor a due delivery');
}

interface SenderLog {
  error(message: string, details: Record<string, unknown>): void;
}

/**
 * One SQS batch of the sender: each message is handled on its own, and only those that failed
 * are reported (partial batch response), so SQS redelivers just them. A failed attempt at the
 * receiver is not a failure here: it is recorded and rescheduled. Failures are the service's own
 * (the table, the scheduler, a message that cannot be read), and handling a message again is
 * safe: fan-out creates each delivery once and a wake-up attempts only what is due.
 */
export async function handleSenderBatch(deps: DeliveryDeps, records: readonly SQSRecord[], log: SenderLog): Promise<SQSBatchResponse> {
  const outcomes = await Promise.allSettled(
    records.map(async (record) => {
      const message = parseSenderMessage(record.body);
      if (message.kind === 'event') await fanOut(deps, message.accountId, message.event);
      else await attemptDelivery(deps, message.accountId, message.deliveryId);
    }),
  );
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    const messageId = records[index]!.messageId;
    log.error('Webhook sender: message failed; SQS will redeliver it', {
      messageId,
      error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
    });
    batchItemFailures.push({ itemIdentifier: messageId });
  });
  return { batchItemFailures };
}
