import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { ApiKeyRecord } from '../../../domain/accounts/model.js';

type StoredKey = Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { lastUsedAt?: string; revokedAt?: string; revoked?: boolean };

/**
 * Partitioned by the key's hash, not the account: this is how a request finds its account. A named
 * key is also on GSI1 under its account by id (newest first), so the console lists and revokes it
 * by id, and a revocation is a write to this very item, which the authorizer reads.
 */
export const apiKeyEntity = defineEntity({
  name: 'api_key',
  keys: { PK: 'APIKEY#{keyHash}', SK: 'APIKEY', GSI1PK: `${ACCOUNT_PARTITION}#APIKEYS`, GSI1SK: '{keyId}' },
  // Absent times are not stored, so "recorded before" conditions read attribute_not_exists.
  toItem: ({ lastUsedAt, revokedAt, ...key }: ApiKeyRecord) => {
    const attributes = { ...key, ...(lastUsedAt ? { lastUsedAt } : {}), ...(revokedAt ? { revokedAt } : {}) };
    return { fields: { ...key, keyId: key.keyId ?? null }, attributes };
  },
  toRecord: (attributes): ApiKeyRecord => {
    // Keys revoked before revocations had a time carry only `revoked`: their creation time stands in.
    const { lastUsedAt, revokedAt, revoked, ...key } = attributes as StoredKey;
    return { ...key, lastUsedAt: lastUsedAt ?? null, revokedAt: revokedAt ?? (revoked ? key.createdAt : null) };
  },
});
