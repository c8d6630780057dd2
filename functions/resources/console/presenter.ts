/** How the console-only routes shape their answers (snake_case, like the API). */
import type { ApiKeyRecord, LedgerEntry } from '../../domain/accounts/model.js';

export const presentApiKey = (key: ApiKeyRecord) => ({
  key_id: key.keyId ?? null,
  name: key.name ?? null,
  prefix: key.prefix ?? null,
  created_at: key.createdAt,
  last_used_at: key.lastUsedAt,
  revoked_at: key.revokedAt,
});

export const presentLedgerEntry = (entry: LedgerEntry) => ({
  entry_id: entry.entryId,
  credits: entry.credits,
  reason: entry.reason,
  created_at: entry.createdAt,
});
