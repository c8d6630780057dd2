/**
 * Terminal events on AWS: the table's stream feeds the outbox relay (new outbox items only), the
 * relay publishes to the bus, a rule takes every service event to the delivery queue, and the
 * webhook sender consumes it, waking itself for retries through the queue (delays) or one-time
 * schedules (further ahead).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SOURCE } from '../../functions/adapters/events/eventbridge-publisher.js';
import { outboxEntryEntity } from '../../functions/adapters/table/entities/outbox-entry.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { deadLetterQueueIdsIn, TemplateQueries, type FnGetAtt } from './template.js';

let q: TemplateQueries;
beforeAll(async () => {
  q = new TemplateQueries((await sharedAssembly()).template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const one = <T>(items: T[], what: string): T => {
  expect(items, what).toHaveLength(1);
  return items[0]!;
};
/** By type alone: a resource without properties (the schedule group) matches no `find`. */
const idOf = (type: string): string =>
  one(
    Object.keys(q.resources).filter((id) => q.resources[id]!.Type === type),
    type,
  );
const queueIdOf = (arn: unknown): string => (arn as FnGetAtt)['Fn::GetAtt'][0];

describe('the outbox relay', () => {
  it('reads new images from the table stream, only inserted outbox items, reporting partial failures, with a dead-letter queue', () => {
    const relay = one(q.functionsOnTableStream(), 'stream readers');
    q.template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    const mapping = one(
      Object.values(q.find('AWS::Lambda::EventSourceMapping')).filter((m) => (m.Properties.FunctionName as { Ref: string }).Ref === relay),
      'relay mapping',
    );
    expect(mapping.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
    });
    const pattern = JSON.parse((mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters[0]!.Pattern) as unknown;
    expect(pattern).toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: [outboxEntryEntity.name] } } } });
    const dlq = queueIdOf((mapping.Properties.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure.Destination);
    expect(deadLetterQueueIdsIn(q)).toContain(dlq);
    expect(q.actionsOf(relay)).toEqual(expect.arrayContaining(['events:PutEvents', 'dynamodb:DeleteItem', 'dynamodb:GetItem']));
  });
});

describe('webhook delivery', () => {
  it('sends every service event on the bus to the delivery queue, with a dead-letter queue for what cannot be delivered', () => {
    const rule = one(
      Object.values(q.find('AWS::Events::Rule')).filter((r) => JSON.stringify(r.Properties.EventPattern) === JSON.stringify({ source: [EVENT_SOURCE] })),
      'webhook rule',
    );
    const [target] = rule.Properties.Targets as { Arn: unknown; DeadLetterConfig: { Arn: unknown } }[];
    const sender = one(q.functionsOnQueues(), 'queue consumers');
    const mapping = one(
      Object.values(q.find('AWS::Lambda::EventSourceMapping')).filter((m) => (m.Properties.FunctionName as { Ref: string }).Ref === sender),
      'sender mapping',
    );
    expect(queueIdOf(mapping.Properties.EventSourceArn)).toBe(queueIdOf(target!.Arn));
    expect(mapping.Properties).toMatchObject({ FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const queue = q.resource(queueIdOf(target!.Arn));
    expect(queue.Properties).toMatchObject({ RedrivePolicy: { maxReceiveCount: 5 }, SqsManagedSseEnabled: true });
    expect(deadLetterQueueIdsIn(q)).toEqual(expect.arrayContaining([queueIdOf(target!.DeadLetterConfig.Arn)]));
  });

  it('lets the sender wake itself: messages on its queue, one-time schedules in its own group only, through a role only the scheduler assumes', () => {
    const sender = one(q.functionsOnQueues(), 'queue consumers');
    const environment = q.environmentOf(sender);
    const group = idOf('AWS::Scheduler::ScheduleGroup');
    expect(environment).toMatchObject({
      WEBHOOK_SCHEDULE_GROUP: { Ref: group },
      WEBHOOK_QUEUE_URL: expect.anything() as unknown,
      WEBHOOK_QUEUE_ARN: expect.anything() as unknown,
    });
    const statements = q.statementsOf(sender);
    expect(JSON.stringify(q.resourcesGranted(statements, 'scheduler:CreateSchedule'))).toContain(`{"Ref":"${group}"},"/*"`);
    const roleId = (environment.WEBHOOK_SCHEDULER_ROLE_ARN as FnGetAtt)['Fn::GetAtt'][0];
    expect(q.resourcesGranted(statements, 'iam:PassRole')).toEqual([{ 'Fn::GetAtt': [roleId, 'Arn'] }]);
    expect(q.resource(roleId).Properties).toMatchObject({
      AssumeRolePolicyDocument: { Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } }] },
    });
    expect(q.statementsOfRole(roleId).flatMap((s) => [s.Action].flat())).toEqual(expect.arrayContaining(['sqs:SendMessage']));
  });

  it('gives the delivery queue to the routes that wake the sender, and to no other route', () => {
    const queueUrlHolders = q.functionIds().filter((id) => q.environmentOf(id).WEBHOOK_QUEUE_URL !== undefined);
    const retry = q.functionBehindRoute('POST /v1/webhook-deliveries/{delivery_id}/retry');
    expect(queueUrlHolders.sort()).toEqual([retry, one(q.functionsOnQueues(), 'sender')].sort());
  });
});
