import { requireAccount } from '../../domain/accounts/accounts.js';
import { createUpload } from '../../domain/uploads/create.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../resources/uploads/presenter.js';
import { uploadCreateSchema } from '../../resources/uploads/request.js';
import { accounts } from '../../composition/accounts.js';
import { uploads } from '../../composition/upload-intake.js';

/** POST /v1/uploads: the record with its signed target(s), returned this once (SPEC: persist it at once). */
export const handler = httpHandler(
  'api/uploads/create',
  { body: uploadCreateSchema },
  () => ({ ...uploads(), accounts: accounts() }),
  async ({ accountId, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    const now = new Date();
    const { upload, targets } = await createUpload(deps, account, body, now);
    return { status: 201, body: presentUpload(upload, now, targets) };
  },
);
