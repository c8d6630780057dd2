import { createApiKey } from '../../domain/accounts/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { keyCreateSchema } from '../../resources/console/request.js';
import { presentApiKey } from '../../resources/console/presenter.js';
import { accounts } from '../../composition/table.js';

/** POST /console/api/keys: a new named key; `api_key` is shown this once (only its hash is stored). */
export const handler = httpHandler(
  'console/keys/create',
  { body: keyCreateSchema },
  () => ({ accounts: accounts() }),
  async ({ accountId, body }, deps) => {
    const { key, apiKey } = await createApiKey(deps.accounts, accountId, body.name.trim());
    return { status: 201, body: { ...presentApiKey(key), api_key: apiKey } };
  },
);
