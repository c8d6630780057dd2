import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { atExpression, awsDeliveryScheduler, scheduleName } from '../../../../functions/adapters/webhooks/aws-scheduler.js';
import { ACCOUNT_ID } from '../../../helpers/unit-fixtures.js';

const sqsMock = mockClient(SQSClient);
const schedulerMock = mockClient(SchedulerClient);
const settings = {
  queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:webhook-deliveries',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/webhook-scheduler',
  scheduleGroup: 'media-scanner-webhooks',
};
const DELIVERY = 'dlv_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
const NOW = Date.parse('2026-01-02T03:04:05.678Z');
const body = JSON.stringify({ account_id: ACCOUNT_ID, delivery_id: DELIVERY });

let schedulerLoads = 0;
const scheduler = () =>
  awsDeliveryScheduler(
    {
      sqs: () => Promise.resolve(new SQSClient({ region: 'eu-west-1' })),
      scheduler: () => {
        schedulerLoads++;
        return Promise.resolve(new SchedulerClient({ region: 'eu-west-1' }));
      },
    },
    settings,
    () => new Date(NOW),
  );

beforeEach(() => {
  sqsMock.reset();
  schedulerMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
  schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/g/n' });
  schedulerLoads = 0;
});
afterAll(() => {
  sqsMock.restore();
  schedulerMock.restore();
});

describe('awsDeliveryScheduler', () => {
  it('wakes the sender through an SQS message delayed (rounded up) to the due time, up to 15 minutes ahead', async () => {
    const s = scheduler();
    await s.schedule(ACCOUNT_ID, DELIVERY, new Date(NOW - 10_000)); // overdue: at once
    await s.schedule(ACCOUNT_ID, DELIVERY, new Date(NOW + 4_001));
    await s.schedule(ACCOUNT_ID, DELIVERY, new Date(NOW + 300_000));
    await s.schedule(ACCOUNT_ID, DELIVERY, new Date(NOW + 900_000));
    expect(sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual(
      [0, 5, 300, 900].map((DelaySeconds) => ({ QueueUrl: settings.queueUrl, MessageBody: body, DelaySeconds })),
    );
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    expect(schedulerLoads).toBe(0);
  });

  it('further ahead, creates a one-time schedule that sends the same message to the queue at the due time and deletes itself', async () => {
    const at = new Date(NOW + 30 * 60_000 + 250);
    await scheduler().schedule(ACCOUNT_ID, DELIVERY, at);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(schedulerMock.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input)).toEqual([
      {
        Name: `${DELIVERY}-20260102T033406`,
        GroupName: settings.scheduleGroup,
        ScheduleExpression: 'at(2026-01-02T03:34:06)',
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: settings.queueArn, RoleArn: settings.schedulerRoleArn, Input: body },
      },
    ]);
  });

  it('takes a schedule that already exists (the same delivery and due time, armed again) as done', async () => {
    schedulerMock.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    await expect(scheduler().schedule(ACCOUNT_ID, DELIVERY, new Date(NOW + 2 * 3_600_000))).resolves.toBeUndefined();
    schedulerMock.on(CreateScheduleCommand).rejects(new Error('throttled'));
    await expect(scheduler().schedule(ACCOUNT_ID, DELIVERY, new Date(NOW + 2 * 3_600_000))).rejects.toThrow('throttled');
  });

  it("names schedules within Scheduler's limits and writes at() in UTC seconds, never early", () => {
    const name = scheduleName(DELIVERY, new Date('2026-12-31T23:59:59.001Z'));
    expect(name).toBe(`${DELIVERY}-20270101T000000`);
    expect(name).toMatch(/^[0-9A-Za-z_.-]{1,64}$/);
    expect(atExpression(new Date('2026-01-02T03:04:05.000Z'))).toBe('at(2026-01-02T03:04:05)');
    expect(atExpression(new Date('2026-01-02T03:04:05.001Z'))).toBe('at(2026-01-02T03:04:06)');
  });
});
