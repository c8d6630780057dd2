import * as z from '../../shared/zod.js';
import { errorCatalog } from '../../domain/errors.js';

// ---- Errors (DESIGN §4) --------------------------------------------------------------------

const errorCodes = Object.keys(errorCatalog) as [keyof typeof errorCatalog, ...(keyof typeof errorCatalog)[]];
const errorTypes = [...new Set(Object.values(errorCatalog).map((entry) => entry.type))] as [string, ...string[]];

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      type: z.enum(errorTypes).check(z.describe('The family of the error.')),
      code: z.enum(errorCodes).check(z.describe('Stable, machine-readable reason; each operation lists the codes it can answer.')),
      message: z.string().check(z.describe('For people; may change at any time.')),
      param: z.optional(z.string()).check(z.describe('The request field at fault, as a path such as `items[3].upload_id`.')),
      request_id: z.string().check(z.describe('Equal to the x-request-id header; quote it when asking for help.')),
    }),
  })
  .check(z.describe('Every error answers in this envelope, with `content-type: application/json`.'));
