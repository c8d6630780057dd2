import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { scannerTypes } from '../../domain/scanners/model.js';
import { mediaKinds } from '../../domain/uploads/model.js';
import { evidenceKinds } from '../../domain/engine/observation-types.js';

/** GET /v1/observations: every filter optional, combined with AND. */
export const observationsQuerySchema = z.extend(listQuerySchema, {
  scanner_id: z.optional(idParam),
  scanner_version: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
  run_id: z.optional(idParam),
  type: z.optional(z.enum(scannerTypes)),
  media_kind: z.optional(z.enum(mediaKinds)),
  evidence_kind: z.optional(z.enum([...evidenceKinds.video, ...evidenceKinds.audio])),
  created_after: z.optional(z.iso.datetime({ offset: true })),
});
