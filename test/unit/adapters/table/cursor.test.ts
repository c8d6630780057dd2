import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CursorCodec } from '../../../../functions/adapters/table/cursor.js';
import { accountEntity } from '../../../../functions/adapters/table/entities/account.js';
import { scannerEntity } from '../../../../functions/adapters/table/entities/scanner.js';
import { scannerVersionEntity } from '../../../../functions/adapters/table/entities/scanner-version.js';
import { ApiError } from '../../../../functions/domain/errors.js';
import { ACCOUNT_ID, CURSOR_SECRET, OTHER_ACCOUNT_ID } from '../../../helpers/unit-fixtures.js';

const codec = new CursorCodec(CURSOR_SECRET);
const scanners = scannerEntity.collection({ accountId: ACCOUNT_ID });
const lastKey = scannerEntity.key({ accountId: ACCOUNT_ID, scannerId: 'scn_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b' });
const cursor = codec.encode(ACCOUNT_ID, scanners.prefix, lastKey);

function decodeError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw new Error(`expected ApiError invalid_cursor, got ${String(error)}`);
  }
  throw new Error('expected the cursor to be refused');
}

const expectInvalid = (fn: () => unknown) => {
  const error = decodeError(fn);
  expect(error.code).toBe('invalid_cursor');
  expect(error.status).toBe(400);
  expect(error.param).toBe('cursor');
};

/** Replaces one character of `text` at `index` with another base64url character. */
const flip = (text: string, index: number) => `${text.slice(0, index)}${text[index] === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;

describe('CursorCodec', () => {
  it('round-trips the last key of a page', () => {
    expect(codec.decode(ACCOUNT_ID, scanners, cursor)).toEqual(lastKey);
  });

  it('is opaque: the cursor shows neither the account nor the key in clear text', () => {
    expect(cursor).not.toContain(ACCOUNT_ID);
    expect(cursor).not.toContain('SCN#');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('refuses a tampered payload', () => {
    const [payload = '', signature = ''] = cursor.split('.');
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${flip(payload, 5)}.${signature}`));
    // A payload re-encoded to point somewhere else, keeping the old signature.
    const forged = Buffer.from(JSON.stringify([lastKey.PK, 'SCN#scn_ffffffffffffffffffffffffffffffff'])).toString('base64url');
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${forged}.${signature}`));
  });

  it('refuses a tampered signature', () => {
    const [payload = '', signature = ''] = cursor.split('.');
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${payload}.${flip(signature, 0)}`));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${payload}.${flip(signature, signature.length - 1)}`));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${payload}.${signature.slice(1)}`));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${payload}.`));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, `${payload}.${signature}.x`));
  });

  it('refuses a cursor issued to another account', () => {
    const theirs = codec.encode(
      OTHER_ACCOUNT_ID,
      scannerEntity.collection({ accountId: OTHER_ACCOUNT_ID }).prefix,
      scannerEntity.key({ accountId: OTHER_ACCOUNT_ID, scannerId: 'scn_1' }),
    );
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, theirs));
    // Even when it names our own partition, a cursor signed for another account is refused.
    const borrowed = codec.encode(OTHER_ACCOUNT_ID, scanners.prefix, lastKey);
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, borrowed));
    // And ours is refused on theirs.
    expectInvalid(() => codec.decode(OTHER_ACCOUNT_ID, scannerEntity.collection({ accountId: OTHER_ACCOUNT_ID }), cursor));
  });

  it('refuses a cursor of another collection', () => {
    const versionsA = scannerVersionEntity.collection({ accountId: ACCOUNT_ID, scannerId: 'scn_a' });
    const versionsB = scannerVersionEntity.collection({ accountId: ACCOUNT_ID, scannerId: 'scn_b' });
    const versionCursor = codec.encode(ACCOUNT_ID, versionsA.prefix, scannerVersionEntity.key({ accountId: ACCOUNT_ID, scannerId: 'scn_a', version: 3 }));
    expect(codec.decode(ACCOUNT_ID, versionsA, versionCursor)).toEqual(scannerVersionEntity.key({ accountId: ACCOUNT_ID, scannerId: 'scn_a', version: 3 }));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, versionCursor));
    expectInvalid(() => codec.decode(ACCOUNT_ID, versionsB, versionCursor));
    expectInvalid(() => codec.decode(ACCOUNT_ID, versionsA, cursor));
  });

  it('refuses a correctly signed cursor whose key lies outside the collection', () => {
    // Signed for the scanners list but pointing at the account item: still not a scanners key.
    const outside = codec.encode(ACCOUNT_ID, scanners.prefix, accountEntity.key({ accountId: ACCOUNT_ID }));
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, outside));
  });

  it('refuses a cursor signed with another secret (e.g. another deployment)', () => {
    const foreign = new CursorCodec('another-secret-that-is-also-32-characters!').encode(ACCOUNT_ID, scanners.prefix, lastKey);
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, foreign));
  });

  it.each(['', '.', 'abc', 'a.b', 'a.b.c', '..', '%%%.%%%', 'null.null', '{"PK":1}', cursor.replace('.', '')])('refuses the garbage cursor %j', (garbage) =>
    expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, garbage)),
  );

  /** Any code points, lone surrogates included (cheaper to build than fc.string's binary unit). */
  const anyCodePoints = fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 80 }).map((points) => String.fromCodePoint(...points));
  /** Two base64url-ish halves around a dot: shaped like a cursor, so decoding gets past the split. */
  const nearCursor = fc
    .tuple(fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 60 }))
    .map(([payload, signature]) => `${payload.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}.${signature.replaceAll('=', '')}`);

  it('property: any string is either a cursor it issued or invalid_cursor, never another error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), anyCodePoints, fc.base64String({ maxLength: 120 }), nearCursor), (garbage) => {
        try {
          codec.decode(ACCOUNT_ID, scanners, garbage);
        } catch (error) {
          return error instanceof ApiError && error.code === 'invalid_cursor' && error.param === 'cursor';
        }
        return garbage === cursor;
      }),
      { numRuns: 500 },
    );
  });

  it('property: mutating any single character of a valid cursor makes it invalid', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: cursor.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'),
        (index, char) => {
          fc.pre(cursor[index] !== char);
          const mutated = `${cursor.slice(0, index)}${char}${cursor.slice(index + 1)}`;
          expectInvalid(() => codec.decode(ACCOUNT_ID, scanners, mutated));
        },
      ),
      { numRuns: 300 },
    );
  });
});
