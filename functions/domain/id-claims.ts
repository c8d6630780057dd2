import { ApiError } from './errors.js';

/** What an idempotent creation makes: runs (with their analysis), one-off analyses, batches, renders. */
type ClaimPurpose = 'run' | 'one_off' | 'batch' | 'render';

/**
 * The ids a creation under an Idempotency-Key uses, claimed before anything is reserved or
 * written: the first attempt's `proposed` ids are stored (put-if-absent) and every later attempt
 * with the same account, purpose and key gets those back. So a retry after a crash writes the
 * same records, whose conditional puts find the first attempt's work: created (and charged) once.
 * Freshly minted ids keep their time order (lists, cursors and the slot queue sort by id).
 */
export interface IdClaims {
  claim<T extends Record<string, string>>(accountId: string, purpose: ClaimPurpose, idempotencyKey: string, proposed: T): Promise<T>;
}

/** The ids to create with: claimed under the key when there is one, else `mint()`'s. */
export const idsFor = <T extends Record<string, string>>(
  claims: IdClaims,
  accountId: string,
  purpose: ClaimPurpose,
  idempotencyKey: string | undefined,
  mint: () => T,
): Promise<T> => (idempotencyKey === undefined ? Promise.resolve(mint()) : claims.claim(accountId, purpose, idempotencyKey, mint()));

/**
 * Work found already created by an earlier attempt under the same key is answered as it is; only
 * a workflow that attempt may not have started is started again (starts are idempotent by name).
 * If that start fails, nothing is refunded (the work may already be running): the client retries.
 */
export async function restartIfUnstarted(unstarted: boolean, start: () => Promise<void>): Promise<void> {
  if (!unstarted) return;
  try {
    await start();
  } catch (cause) {
    throw new ApiError('queue_unavailable', 'The work was accepted but could not be queued. Retry with backoff under the same Idempotency-Key.', undefined, {
      cause,
    });
  }
}
