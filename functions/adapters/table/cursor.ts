import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import type { TableKey } from './keys.js';

/**
 * Opaque list cursors: the last key read, signed with HMAC over the account and the collection,
 * so a cursor cannot be edited, replayed on another account, or used on another list.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(accountId: string, collection: string, lastKey: TableKey): string {
    const payload = Buffer.from(JSON.stringify([lastKey.PK, lastKey.SK])).toString('base64url');
    return `${payload}.${this.sign(accountId, collection, payload)}`;
  }

  /** The key to resume after; 400 invalid_cursor for anything this codec did not issue. */
  decode(accountId: string, collection: { PK: string; prefix: string }, cursor: string): TableKey {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor();
    const expected = Buffer.from(this.sign(accountId, collection.prefix, payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();
    const key = parseJson(Buffer.from(payload, 'base64url').toString('utf8'));
    const [pk, sk] = Array.isArray(key) ? (key as unknown[]) : [];
    if (pk !== collection.PK || typeof sk !== 'string' || !sk.startsWith(collection.prefix)) throw invalidCursor();
    return { PK: pk, SK: sk };
  }

  private sign(accountId: string, collection: string, payload: string): string {
    return createHmac('sha256', this.secret).update(`${accountId}\n${collection}\n${payload}`).digest('base64url');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidCursor();
  }
}

const invalidCursor = (): ApiError =>
  new ApiError('invalid_cursor', 'This cursor was not issued for this list; start again without it.', 'cursor');
