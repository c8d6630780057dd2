import { defineEntity } from '../entity.js';
import type { ConsoleSession } from '../../../domain/console/sessions.js';

/**
 * A console session, by its token's hash (how the authorizer finds it, as keys are found), never the
 * token; DynamoDB's TTL removes it once expired.
 */
export const consoleSessionEntity = defineEntity({
  name: 'console_session',
  keys: { PK: 'CONSOLESESSION#{sessionId}', SK: 'CONSOLESESSION' },
  toItem: (session: ConsoleSession) => ({ fields: session, attributes: session, expiresAt: Math.ceil(session.expiresAt / 1000) }),
  toRecord: (attributes) => attributes as unknown as ConsoleSession,
});

/**
 * A console owner's standing (domain/console/sessions.ts): by owner, not account, since an owner
 * can move between accounts. Written by update expressions only; absent until first changed.
 */
export const consoleOwnerEntity = defineEntity({ name: 'console_owner', keys: { PK: 'CONSOLEOWNER#{owner}', SK: 'CONSOLEOWNER' } });
