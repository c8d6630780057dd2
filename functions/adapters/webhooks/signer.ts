import { Webhook } from 'standardwebhooks';
import type { WebhookSigner } from '../../domain/webhooks/ports.js';

/**
 * Standard Webhooks signatures with the reference library (DESIGN 8): HMAC-SHA256 over
 * `{id}.{timestamp}.{body}` with each secret (`whsec_<base64>`), one `v1,<base64>` each. During a
 * rotation both secrets sign, so a receiver verifying with either one accepts the delivery.
 */
export const standardWebhooksSigner: WebhookSigner = {
  sign: (messageId, timestamp, payload, secrets) => secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, payload)).join(' '),
};
