import * as z from '../../shared/zod.js';
import { idField, idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { deliveryStatuses } from '../../domain/webhooks/model.js';

/**
 * GET /v1/webhook-deliveries: filters combine with AND. Ids are matched as given (a malformed one
 * matches nothing), statuses are checked.
 */
export const deliveryListQuerySchema = z.extend(listQuerySchema, {
  endpoint_id: z.optional(idField),
  event_type: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  status: z.optional(z.enum(deliveryStatuses, { error: `Must be one of: ${deliveryStatuses.join(', ')}.` })),
  event_id: z.optional(idField),
});

export const deliveryIdParams = z.strictObject({ delivery_id: idParam });
