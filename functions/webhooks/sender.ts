import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { webhookDelivery } from '../composition/webhook-delivery.js';
import { logger } from '../shared/logger.js';
import { handleSenderBatch } from './sender-batch.js';

/**
 * The webhook sender Lambda (DESIGN 1): consumes the delivery queue, which carries the service
 * bus's events (rule -> SQS) and due-delivery wake-ups, with partial batch failure reporting
 * (the event source mapping needs ReportBatchItemFailures).
 */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => handleSenderBatch(webhookDelivery(), event.Records, logger);
