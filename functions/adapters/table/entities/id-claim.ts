import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';

/** What an idempotent creation claimed (`purpose`: what it creates; `keyHash`: sha256 of the Idempotency-Key). */
interface IdClaimKey {
  accountId: string;
  purpose: string;
  keyHash: string;
}

/** The ids an idempotent creation claimed, kept as long as idempotency records. */
export const idClaimEntity = defineEntity({
  name: 'id_claim',
  keys: { PK: ACCOUNT_PARTITION, SK: 'IDCLAIM#{purpose}#{keyHash}' },
  toItem: (claim: IdClaimKey, ids: Record<string, string>, expiresAt: number) => ({ fields: claim, attributes: { ids }, expiresAt }),
  toRecord: ({ ids }) => ids as Record<string, string>,
});
