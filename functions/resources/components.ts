/**
 * The named response schemas of the OpenAPI document (components/schemas), in the order it lists
 * them. Each resource's schemas live in functions/resources/<resource>/response.ts, and its
 * presenter (presenter.ts beside it) allowlists the fields, so nothing internal leaks into a
 * response; it is typed by the schema (z.infer), so it cannot add, drop or retype a field without
 * the document changing too. Nothing parses responses at run time: Lambdas import only
 * the types of response modules (`import type`), never their values.
 */
import * as z from '../shared/zod.js';
import { metadataSchema } from '../domain/metadata.js';
import { errorEnvelopeSchema } from './common/error.js';
import { listSchema } from './common/list.js';
import { accountSchema } from './account/response.js';
import { scannerSchema } from './scanners/response.js';
import { scannerCreateSchema } from './scanners/request.js';
import { uploadSchema } from './uploads/response.js';
import { runSchema } from './runs/response.js';
import { evidenceSchema, observationSchema } from './observations/response.js';
import { analysisProgressSchema, analysisQuoteSchema, analysisSchema, momentListSchema, momentSchema, sourcePreflightSchema } from './analyses/response.js';
import { batchItemSchema, batchSchema, batchSummarySchema } from './batches/response.js';
import { deletedWebhookEndpointSchema, webhookEndpointSchema, webhookEndpointWithSecretSchema, webhookTestSchema } from './webhook-endpoints/response.js';
import { webhookDeliverySchema } from './webhook-deliveries/response.js';
import { renderPresetsSchema, renderSchema } from './renders/response.js';

export const resourceSchemas = {
  ErrorEnvelope: errorEnvelopeSchema,
  Metadata: metadataSchema,
  Account: accountSchema,
  Scanner: scannerSchema,
  ScannerList: listSchema(scannerSchema),
  Upload: uploadSchema,
  UploadList: listSchema(uploadSchema),
  Run: runSchema,
  ScannerDefinition: scannerCreateSchema,
  Observation: observationSchema,
  Evidence: evidenceSchema,
  ObservationList: listSchema(observationSchema),
  Moment: momentSchema,
  MomentList: momentListSchema,
  AnalysisProgress: analysisProgressSchema,
  Analysis: analysisSchema,
  AnalysisList: listSchema(analysisSchema),
  SourcePreflight: sourcePreflightSchema,
  AnalysisQuote: analysisQuoteSchema,
  ScannerBatchSummary: batchSummarySchema,
  ScannerBatchSummaryList: listSchema(batchSummarySchema),
  ScannerBatchItem: batchItemSchema,
  ScannerBatch: batchSchema,
  WebhookEndpoint: webhookEndpointSchema,
  WebhookEndpointWithSecret: webhookEndpointWithSecretSchema,
  WebhookEndpointList: listSchema(webhookEndpointSchema),
  DeletedWebhookEndpoint: deletedWebhookEndpointSchema,
  WebhookTest: webhookTestSchema,
  WebhookDelivery: webhookDeliverySchema,
  WebhookDeliveryList: listSchema(webhookDeliverySchema),
  RenderPresets: renderPresetsSchema,
  Render: renderSchema,
  RenderList: listSchema(renderSchema),
  OpenApiDocument: z.record(z.string(), z.unknown()).check(z.describe('An OpenAPI 3.1 document.')),
} as const;
export type ResourceName = keyof typeof resourceSchemas;
