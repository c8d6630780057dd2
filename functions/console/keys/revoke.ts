import { revokeApiKeyById } from '../../domain/accounts/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { keyIdParams } from '../../resources/console/request.js';
import { presentApiKey } from '../../resources/console/presenter.js';
import { accounts } from '../../composition/table.js';

/** DELETE /console/api/keys/{key_id}: revoked at once (the authorizer reads the key's item); another account's key is 404. */
export const handler = httpHandler(
  'console/keys/revoke',
  { params: keyIdParams },
  () => ({ accounts: accounts() }),
  async ({ accountId, params }, deps) => ({ status: 200, body: presentApiKey(await revokeApiKeyById(deps.accounts, accountId, params.key_id)) }),
);
