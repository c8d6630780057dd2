import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { awsHost } from '../../../functions/composition/aws-host.js';
import { parseConfig } from '../../../functions/config.js';
import { serviceEnv } from '../../helpers/unit-fixtures.js';

const sqs = mockClient(SQSClient);
const scheduler = mockClient(SchedulerClient);
beforeEach(() => {
  sqs.reset();
  scheduler.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
  scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/g/n' });
});
afterAll(() => {
  sqs.restore();
  scheduler.restore();
});

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries';
const sender = {
  WEBHOOK_QUEUE_URL: QUEUE_URL,
  WEBHOOK_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:123456789012:deliveries',
  WEBHOOK_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
  WEBHOOK_SCHEDULE_GROUP: 'retries',
};

describe("the AWS host's webhook delivery scheduler", () => {
  it('wakes the sender through the delivery queue, and schedules retries beyond 15 minutes in the retry group', async () => {
    const host = awsHost(parseConfig({ ...serviceEnv, ...sender }));
    const wakeUps = await host.deliveryScheduler();
    await wakeUps.schedule('acct_1', 'dlv_1', new Date());
    await wakeUps.schedule('acct_1', 'dlv_1', new Date(Date.now() + 2 * 3_600_000));
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toMatchObject({ QueueUrl: QUEUE_URL, DelaySeconds: 0 });
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toMatchObject({
      GroupName: 'retries',
      Target: { Arn: sender.WEBHOOK_QUEUE_ARN, RoleArn: sender.WEBHOOK_SCHEDULER_ROLE_ARN },
    });
  });

  it('needs only the queue for wake-ups due now (the retry route), and names what a longer delay lacks', async () => {
    const wakeUps = await awsHost(parseConfig({ ...serviceEnv, WEBHOOK_QUEUE_URL: QUEUE_URL })).deliveryScheduler();
    await wakeUps.schedule('acct_1', 'dlv_1', new Date());
    await expect(wakeUps.schedule('acct_1', 'dlv_1', new Date(Date.now() + 3_600_000))).rejects.toThrow(
      /WEBHOOK_(QUEUE_ARN|SCHEDULER_ROLE_ARN|SCHEDULE_GROUP) is not set/,
    );
    await expect(awsHost(parseConfig({ ...serviceEnv })).deliveryScheduler()).rejects.toThrow('WEBHOOK_QUEUE_URL is not set');
  });
});
