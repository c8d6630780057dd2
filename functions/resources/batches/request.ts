import * as z from '../../shared/zod.js';
import { idField, idParam, pageSizeParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { metadataSchema } from '../../domain/metadata.js';

/** SPEC Limits: 1 to 100 items (the body's 512 KiB bound is the route's, in routes.ts). */
const MAX_BATCH_ITEMS = 100;
export const MAX_ITEM_PAGE = 100;
const MAX_BATCH_PAGE = 50;

const batchItemSchema = z.strictObject({
  client_id: idField,
  scanner_id: idField,
  upload_id: idField,
  metadata: z.optional(metadataSchema),
});

/** POST /v1/scanner-batches. Each item analyses its full upload: a window needs the single-run endpoint. */
export const batchCreateSchema = z.strictObject({
  items: z.array(batchItemSchema).check(
    z.minLength(1, 'A batch has 1 to 100 items.'),
    z.maxLength(MAX_BATCH_ITEMS, 'A batch has 1 to 100 items.'),
    z.superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        if (seen.has(item.client_id))
          ctx.addIssue({
            code: 'custom',
            path: [index, 'client_id'],
            message: `client_id "${item.client_id}" is used by an earlier item; it must be unique within the batch.`,
          });
        seen.add(item.client_id);
      });
    }),
  ),
});

export const batchIdParams = z.strictObject({ batch_id: idParam });

/** GET /v1/scanner-batches: at most 50 summaries a page (a larger limit is refused, not clamped). */
export const batchListQuerySchema = z.extend(listQuerySchema, { limit: pageSizeParam('limit', MAX_BATCH_PAGE, 20) });

/** GET /v1/scanner-batches/{batch_id}: a page of items by numeric offset. */
export const batchDetailQuerySchema = z.strictObject({
  item_limit: pageSizeParam('item_limit', MAX_ITEM_PAGE, MAX_ITEM_PAGE),
  item_cursor: z._default(
    z.pipe(z.string().check(z.regex(/^\d{1,6}$/, 'item_cursor is the numeric items_next_cursor of the previous page.')), z.transform(Number)),
    0,
  ),
});
