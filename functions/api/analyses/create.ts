import { requireAccount } from '../../domain/accounts/accounts.js';
import { submitOneOff } from '../../domain/analyses/one-off.js';
import { httpHandler } from '../../http/handler.js';
import { presentAnalysis } from '../../resources/analyses/presenter.js';
import { analysisCreateSchema } from '../../resources/analyses/request.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { oneOffAnalyses } from '../../composition/analyses.js';
import { idempotent } from '../../composition/idempotency.js';

export const handler = httpHandler(
  'api/analyses/create',
  { query: noQuerySchema, body: analysisCreateSchema },
  () => ({ ...oneOffAnalyses(), idempotent: idempotent() }),
  async ({ accountId, body, idempotencyKey }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    return { status: 202, body: presentAnalysis(await submitOneOff(deps, account, body, idempotencyKey)) };
  },
);
