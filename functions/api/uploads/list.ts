import { listUploads } from '../../domain/uploads/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentUpload } from '../../resources/uploads/presenter.js';
import { presentList } from '../../resources/common/list.js';
import { uploadListQuerySchema } from '../../resources/uploads/request.js';
import { uploadStore } from '../../composition/uploads.js';

/** GET /v1/uploads: newest first, optionally one status, to reconcile an ambiguous upload (SPEC Upload flow). */
export const handler = httpHandler(
  'api/uploads/list',
  { query: uploadListQuerySchema },
  () => ({ uploads: uploadStore() }),
  async ({ accountId, query }, deps) => {
    const now = new Date();
    const { status, ...page } = query;
    const uploads = await listUploads(deps, accountId, page, status, now);
    return { status: 200, body: presentList(uploads, (upload) => presentUpload(upload, now)) };
  },
);
