import * as z from 'zod';
import { listQuerySchema } from './common.js';
import type { DeliveryStatus } from '../domain/webhooks/model.js';

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[];

/**
 * GET /v1/webhook-deliveries: filters combine with AND. Ids are matched as given (a malformed one
 * matches nothing), statuses are checked.
 */
export const deliveryListQuerySchema = listQuerySchema.extend({
  endpoint_id: z.string().min(1).max(200).optional(),
  event_type: z.string().min(1).max(100).optional(),
  status: z.enum(deliveryStatuses, { error: `Must be one of: ${deliveryStatuses.join(', ')}.` }).optional(),
  event_id: z.string().min(1).max(200).optional(),
});
export type DeliveryListQuery = z.infer<typeof deliveryListQuerySchema>;

/** Any string: a malformed id is just an unknown delivery (404), like a foreign one. */
export const deliveryIdParams = z.strictObject({ delivery_id: z.string().max(200) });
