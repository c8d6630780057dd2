import * as z from '../../shared/zod.js';
import { metadataSchema } from '../../domain/metadata.js';
import { id, timestamp } from '../common/response.js';
import { profiles, scannerTypes } from '../../domain/scanners/model.js';

const scannerOutputSchema = z.object({ labels: z.optional(z.array(z.string())), fields: z.optional(z.array(z.string())) });

export const scannerSchema = z.object({
  object: z.literal('scanner'),
  scanner_id: id('scanner'),
  version: z.int().check(z.minimum(1), z.describe('1 on creation; every PATCH creates the next immutable version.')),
  name: z.string(),
  instructions: z.string(),
  type: z.enum(scannerTypes),
  profile: z.nullable(z.enum(profiles)),
  max_observations: z.nullable(z.int().check(z.minimum(1))).check(z.describe("Null: the account's cap.")),
  min_seconds: z.nullable(z.int()),
  max_seconds: z.nullable(z.int()),
  output: z.nullable(scannerOutputSchema).check(z.describe('Classifier labels or extractor fields.')),
  metadata: metadataSchema,
  created_at: timestamp.check(z.describe('When version 1 was created.')),
  updated_at: timestamp.check(z.describe('When this version was created.')),
});
export type ScannerResource = z.infer<typeof scannerSchema>;
