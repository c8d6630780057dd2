import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsDeliveryScheduler } from '../../../functions/adapters/webhooks/aws-scheduler.js';
import { handleSenderBatch, parseSenderMessage } from '../../../functions/webhooks/sender-batch.js';
import { ACCOUNT_ID } from '../../helpers/unit-fixtures.js';
import { event, harness } from '../domain/webhooks/fakes.js';

const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'eu-west-1' });
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries';

beforeEach(() => sqsMock.reset());
afterAll(() => sqsMock.restore());

const record = (messageId: string, body: unknown): SQSRecord =>
  ({ messageId, body: typeof body === 'string' ? body : JSON.stringify(body), receiptHandle: `rh-${messageId}` }) as unknown as SQSRecord;

/** As the rule on the service bus puts an event on the queue (eventbridge-publisher.ts: detail = {account_id, event}). */
const busMessage = (detail: unknown) => ({
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'run.completed',
  source: 'media-scanner',
  account: '123456789012',
  time: '2026-01-02T00:00:00Z',
  region: 'eu-west-1',
  resources: [],
  detail,
});

function senderHarness(script: (number | string)[]) {
  const h = harness({ script });
  h.deps.scheduler = awsDeliveryScheduler(
    { sqs: () => Promise.resolve(sqs), scheduler: () => Promise.reject(new Error('no schedule needed here')) },
    {
      queueUrl: QUEUE_URL,
      queueArn: 'arn:aws:sqs:eu-west-1:123456789012:webhook-deliveries',
      schedulerRoleArn: 'arn:aws:iam::123456789012:role/s',
      scheduleGroup: 'g',
    },
    h.time.clock,
  );
  const log = { error: vi.fn() };
  return { ...h, log };
}

describe('the webhook sender (SQS batch)', () => {
  it('fans out bus events and attempts due deliveries; a failed POST is recorded and rescheduled, not a message failure', async () => {
    const s = senderHarness([503]);
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
    const sent = event();
    const result = await handleSenderBatch(s.deps, [record('m1', busMessage({ account_id: ACCOUNT_ID, event: sent }))], s.log);

    expect(result).toEqual({ batchItemFailures: [] });
    const [delivery] = s.deliveries.all();
    expect(delivery).toMatchObject({ eventId: sent.id, status: 'pending', payload: JSON.stringify(sent) });
    // The 5 s retry: an SQS message with a delay, naming the delivery.
    expect(sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, DelaySeconds: 5, MessageBody: JSON.stringify({ account_id: ACCOUNT_ID, delivery_id: delivery!.deliveryId }) },
    ]);

    s.time.advance(5_000);
    const due = await handleSenderBatch(s.deps, [record('m2', { account_id: ACCOUNT_ID, delivery_id: delivery!.deliveryId })], s.log);
    expect(due).toEqual({ batchItemFailures: [] });
    expect(s.deliveries.all()[0]!.attempts).toHaveLength(2);
  });

  it('reports only the messages that failed: unreadable ones and those whose work threw (SQS redelivers just them)', async () => {
    const s = senderHarness([200]);
    sqsMock.on(SendMessageCommand).rejects(new Error('SQS is down'));
    const other = event({ id: 'evt_0000000000000000000000000000000b' });
    const failing = event({ id: 'evt_0000000000000000000000000000000c' });
    // The third event's POST fails, and its retry cannot be scheduled: that message fails.
    const transport = s.deps.transport;
    s.deps.transport = {
      post: (url, body, headers) =>
        headers['webhook-id'] === failing.id ? Promise.resolve({ statusCode: 500, durationMs: 1 }) : transport.post(url, body, headers),
    };

    const result = await handleSenderBatch(
      s.deps,
      [
        record('ok', busMessage({ account_id: ACCOUNT_ID, event: other })),
        record('not-json', '{nope'),
        record('unknown-shape', { hello: 'world' }),
        record('schedule-fails', busMessage({ account_id: ACCOUNT_ID, event: failing })),
        record('unknown-delivery', { account_id: ACCOUNT_ID, delivery_id: 'dlv_00000000000000000000000000000000' }),
      ],
      s.log,
    );

    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'not-json' }, { itemIdentifier: 'unknown-shape' }, { itemIdentifier: 'schedule-fails' }]);
    expect(s.log.error).toHaveBeenCalledTimes(3);
    expect(s.deliveries.all().map((d) => [d.eventId, d.status])).toEqual([
      [other.id, 'succeeded'],
      [failing.id, 'pending'],
    ]);

    // Redelivered, the failed message re-arms the pending delivery's wake-up without sending again.
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
    const again = await handleSenderBatch(s.deps, [record('schedule-fails', busMessage({ account_id: ACCOUNT_ID, event: failing }))], s.log);
    expect(again).toEqual({ batchItemFailures: [] });
    expect(s.deliveries.all()).toHaveLength(2);
    expect(s.deliveries.all()[1]!.attempts).toHaveLength(1);
    expect(sqsMock.commandCalls(SendMessageCommand).at(-1)!.args[0].input.DelaySeconds).toBe(5);
  });

  it('keeps the event exactly as published (it is what gets signed), and tells the two kinds of message apart', () => {
    const body = `{"detail":{"account_id":"${ACCOUNT_ID}","event":{"type":"run.completed","id":"evt_1","created_at":"x","data":{"object":{"b":1,"a":2}},"extra":true}}}`;
    const parsed = parseSenderMessage(body);
    expect(parsed.kind).toBe('event');
    expect(parsed.kind === 'event' && JSON.stringify(parsed.event)).toBe(
      '{"type":"run.completed","id":"evt_1","created_at":"x","data":{"object":{"b":1,"a":2}},"extra":true}',
    );
    expect(parseSenderMessage('{"account_id":"acct_1","delivery_id":"dlv_1"}')).toEqual({ kind: 'due', accountId: 'acct_1', deliveryId: 'dlv_1' });
    expect(() => parseSenderMessage('{"detail":{"account_id":"a"}}')).toThrow();
  });

  it('exports only the Lambda handler', async () => {
    const module = await import('../../../functions/webhooks/sender.js');
    expect(Object.keys(module)).toEqual(['handler']);
  });
});
