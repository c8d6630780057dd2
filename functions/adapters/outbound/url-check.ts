import type { WebhookUrlCheck } from '../../domain/webhooks/ports.js';
import { OutboundRequestError, type OutboundReason } from './errors.js';
import { systemResolver, type DnsResolver } from './resolver.js';
import { checkUrl, isLocalhostName, resolveTarget, type TargetPolicy } from './target.js';

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
 * (target.ts), nothing sent. A public https name that does not resolve yet is accepted: its
 * receiver may not be set up yet, and delivery resolves and checks it again at every attempt
 * anyway (DNS can change, or be rebound), recording `dns_failed` while it does not resolve.
 * Literal addresses, localhost names and plain http are still decided here, since they need no DNS.
 */
export function outboundUrlCheck(policy: TargetPolicy, resolver: DnsResolver = systemResolver): WebhookUrlCheck {
  const schemeRule = policy.allowLoopback ? 'only https URLs are accepted (plain http for loopback targets only)' : 'only https URLs are accepted';
  // Plain http is for loopback targets, which an unresolved name cannot be shown to be.
  const mayWaitForDns = (url: URL) => url.protocol === 'https:' && !isLocalhostName(url.hostname);
  return async (input) => {
    try {
      const url = checkUrl(input, policy);
      await resolveTarget(url, policy, resolver).catch((error: unknown) => {
        if (!(error instanceof OutboundRequestError && error.reason === 'dns_failed' && mayWaitForDns(url))) throw error;
      });
      return { allowed: true, url: url.href };
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      return { allowed: false, reason: error.reason === 'scheme_not_allowed' ? schemeRule : (explanations[error.reason] ?? 'this URL cannot be reached') };
    }
  };
}
