import { performance } from 'node:perf_hooks';
import { OutboundRequestFailed, OutboundRequestRefused } from '../outbound/errors.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { ATTEMPT_TIMEOUT_MS } from '../../domain/webhooks/schedule.js';
import type { WebhookTransport } from '../../domain/webhooks/ports.js';

/** What a delivery report keeps of the receiver's answer. */
const RESPONSE_BODY_BYTES = 1024;

/** The `error` of an attempt whose URL breaks the outbound rules now (a private address, plain http, ...). */
const TARGET_REFUSED = 'target_refused';

interface TransportLog {
  warn(message: string, details: Record<string, unknown>): void;
}

/**
 * One webhook POST through the shared outbound client (DESIGN 9, 10): the URL is checked and
 * resolved again at every attempt (DNS may have changed since the endpoint was created), the
 * connection is pinned to the checked address, a 3xx is the answer (never followed), and the
 * whole exchange is bounded by 15 s. Every outcome is an attempt, never an exception: a refused
 * target is `target_refused`, a failed exchange its reason (`timeout`, `connect_failed`, ...).
 */
export function httpWebhookTransport(outbound: OutboundClient, log?: TransportLog): WebhookTransport {
  return {
    async post(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const response = await outbound.fetch({
          url,
          method: 'POST',
          headers,
          body: Buffer.from(body, 'utf8'),
          redirect: 'manual',
          totalTimeoutMs: ATTEMPT_TIMEOUT_MS,
          headersTimeoutMs: ATTEMPT_TIMEOUT_MS,
          maxBytes: RESPONSE_BODY_BYTES,
          overflow: 'truncate',
        });
        const text = response.body.toString('utf8');
        return { statusCode: response.status, durationMs: response.durationMs, ...(text ? { responseBody: text } : {}) };
      } catch (error) {
        if (error instanceof OutboundRequestRefused) return { error: TARGET_REFUSED, durationMs: elapsed() };
        if (error instanceof OutboundRequestFailed) return { error: error.reason, durationMs: elapsed() };
        // Not the receiver's doing (a bug here): still an attempt, so the schedule goes on.
        log?.warn('Webhook POST failed unexpectedly', { error: error instanceof Error ? error.message : String(error) });
        return { error: 'network_error', durationMs: elapsed() };
      }
    },
  };
}
