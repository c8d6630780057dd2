import { requireAccount } from '../../domain/accounts/accounts.js';
import { completeUpload } from '../../domain/uploads/complete.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../resources/uploads/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { uploadIdParams } from '../../resources/uploads/request.js';
import { accounts } from '../../composition/accounts.js';
import { uploads } from '../../composition/upload-intake.js';

/** POST /v1/uploads/{upload_id}/complete: probe and settle a pending upload; a terminal one is returned as is. */
export const handler = httpHandler(
  'api/uploads/complete',
  { params: uploadIdParams, query: noQuerySchema },
  () => ({ ...uploads(), accounts: accounts() }),
  async ({ accountId, params }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    const upload = await completeUpload(deps, account, params.upload_id);
    return { status: 200, body: presentUpload(upload, new Date()) };
  },
);
