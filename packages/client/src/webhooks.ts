import { Webhook } from 'standardwebhooks';

/** A delivery's body (DESIGN §8): the record as GET returns it, in `data.object`. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: { object: T };
}

/**
 * Verifies a webhook delivery (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature over the raw body, secret `whsec_…`) and returns its event. Throws when the
 * signature is wrong or the timestamp is more than 5 minutes away. Pass the raw body, exactly as
 * received: re-serialized JSON does not verify. Deduplicate by `id` (SPEC Events).
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
): WebhookEvent<T> {
  const get = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return new Webhook(secret).verify(body, {
    'webhook-id': get('webhook-id'),
    'webhook-timestamp': get('webhook-timestamp'),
    'webhook-signature': get('webhook-signature'),
  }) as WebhookEvent<T>;
}
