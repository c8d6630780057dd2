import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { keyAttributesOf, type Collection } from './keys.js';

/** The key attributes of the last item read (table keys, plus index keys on an index). */
export type ResumeKey = Record<string, string>;

/**
 * Opaque list cursors: the last key read, signed with HMAC over the account and the collection,
 * so a cursor cannot be edited, replayed on another account, or used on another list.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(accountId: string, collection: string, lastKey: ResumeKey): string {
    const payload = Buffer.from(JSON.stringify(lastKey)).toString('base64url');
    return `${payload}.${this.sign(accountId, collection, payload)}`;
  }

  /** The key to resume after; 400 invalid_cursor for anything this codec did not issue. */
  decode(accountId: string, collection: Collection, cursor: string): ResumeKey {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor();
    const expected = Buffer.from(this.sign(accountId, collection.prefix, payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();
    const key = parseJson(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof key !== 'object' || key === null || Array.isArray(key) || !Object.values(key).every((v) => typeof v === 'string')) {
      throw invalidCursor();
    }
    const resume = key as ResumeKey;
    const { partition, sort } = keyAttributesOf(collection);
    if (resume[partition] !== collection.PK || !resume[sort]?.startsWith(collection.prefix)) throw invalidCursor();
    return resume;
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

const invalidCursor = (): ApiError => new ApiError('invalid_cursor', 'This cursor was not issued for this list; start again without it.', 'cursor');
