import { submitRender } from '../../domain/renders/create.js';
import { httpHandler } from '../../http/handler.js';
import { presentRender } from '../../resources/renders/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { renderCreateSchema } from '../../resources/renders/request.js';
import { idempotent } from '../../composition/idempotency.js';
import { renderSubmission } from '../../composition/renders.js';

export const handler = httpHandler(
  'api/renders/create',
  { query: noQuerySchema, body: renderCreateSchema },
  () => ({ ...renderSubmission(), idempotent: idempotent() }),
  async ({ accountId, body, idempotencyKey }, deps) => ({ status: 202, body: presentRender(await submitRender(deps, accountId, body, idempotencyKey)) }),
);
