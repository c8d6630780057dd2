import { defineEntity } from '../entity.js';
import type { ApiKeyRecord } from '../../../domain/accounts/model.js';

/** Partitioned by the key's hash, not the account: this is how a request finds its account. */
export const apiKeyEntity = defineEntity({
  name: 'api_key',
  keys: { PK: 'APIKEY#{keyHash}', SK: 'APIKEY' },
  toItem: (key: ApiKeyRecord) => ({ fields: key, attributes: key }),
  toRecord: (attributes) => attributes as unknown as ApiKeyRecord,
});
