import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { Announcement } from '../../../domain/events/model.js';

/**
 * A terminal event not yet relayed (functions/domain/events/outbox.ts), keyed by its deterministic id,
 * and on GSI1 the relay's view of every account's pending announcements, oldest first.
 */
export const outboxEntryEntity = defineEntity({
  name: 'outbox',
  keys: { PK: ACCOUNT_PARTITION, SK: 'OUTBOX#{eventId}', GSI1PK: 'OUTBOX', GSI1SK: '{createdAt}#{eventId}' },
  toItem: (accountId: string, pending: Announcement) => ({ fields: { accountId, ...pending }, attributes: { accountId, ...pending } }),
  toRecord: (attributes): { accountId: string; announcement: Announcement } => {
    const { eventId, type, subject, createdAt, accountId } = attributes as unknown as Announcement & { accountId: string };
    return { accountId, announcement: { eventId, type, subject, createdAt } };
  },
});
