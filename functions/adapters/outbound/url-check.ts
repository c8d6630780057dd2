import type { WebhookUrlCheck } from '../../domain/webhooks/ports.js';
import { OutboundRequestError, type OutboundReason } from './errors.js';
import { systemResolver, type DnsResolver } from './resolver.js';
import { resolveTarget, type TargetPolicy } from './target.js';

/** What an integrator is told for each refusal; never the address the host resolved to. */
const explanations: Partial<Record<OutboundReason, string>> = {
  invalid_url: 'not an absolute URL',
  credentials_in_url: 'credentials in the URL (user:password@) are not accepted',
  port_not_allowed: 'this port is not accepted',
  host_not_allowed: 'the hostname must be a fully qualified public name',
  forbidden_address: 'the host must resolve to public addresses only (not private, loopback, link-local or reserved ones)',
  dns_failed: 'the hostname does not resolve',
};

/**
 * The outbound rules (DESIGN 9) applied now to a URL that will be fetched later (a webhook
 * endpoint): the same checks and the same DNS resolution as every outbound request
 * (target.ts), nothing sent. Delivery checks again at every attempt, since DNS can change.
 */
export function outboundUrlCheck(policy: TargetPolicy, resolver: DnsResolver = systemResolver): WebhookUrlCheck {
  const schemeRule = policy.allowLoopback ? 'only https URLs are accepted (plain http for loopback targets only)' : 'only https URLs are accepted';
  return async (input) => {
    try {
      const { url } = await resolveTarget(input, policy, resolver);
      return { allowed: true, url: url.href };
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      return { allowed: false, reason: error.reason === 'scheme_not_allowed' ? schemeRule : (explanations[error.reason] ?? 'this URL cannot be reached') };
    }
  };
}
