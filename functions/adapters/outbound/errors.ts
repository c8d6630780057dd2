/**
 * Typed failures of outbound requests (DESIGN §9, §10). Two kinds, so callers can map them to
 * API errors without reading messages:
 * - `OutboundRequestRefused`: the target breaks the outbound policy (a forbidden address, scheme,
 *   port, credentials in the URL). Nothing was sent to that target. A source URL refused here
 *   is the client's to fix: 422 `untrusted_source_url`.
 * - `OutboundRequestFailed`: the target was allowed but the exchange did not complete within its
 *   bounds (DNS, connection, TLS, timeouts, too many bytes or redirects). For a source: it is
 *   unreadable (`source_unreadable`); for a webhook: a failed attempt.
 *
 * Messages and the `target` field name the URL only as `redactUrl` prints it (no credentials,
 * no query string, no fragment): signed URLs are secrets.
 */

/** Why a target was refused before anything was sent to it. */
type RefusalReason = 'invalid_url' | 'scheme_not_allowed' | 'credentials_in_url' | 'port_not_allowed' | 'host_not_allowed' | 'forbidden_address';

/** Why an allowed exchange did not complete. */
type FailureReason =
  | 'dns_failed'
  | 'connect_failed'
  | 'tls_failed'
  | 'network_error'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'aborted';

export type OutboundReason = RefusalReason | FailureReason;

export abstract class OutboundRequestError extends Error {
  abstract readonly reason: OutboundReason;
  /** The URL concerned, redacted (scheme://host/path). */
  readonly target: string;

  protected constructor(message: string, target: string, options?: ErrorOptions) {
    super(message, options);
    this.target = target;
  }
}

export class OutboundRequestRefused extends OutboundRequestError {
  override readonly name = 'OutboundRequestRefused';
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, target: string, detail: string) {
    super(`Outbound request to ${target} refused (${reason}): ${detail}`, target);
    this.reason = reason;
  }
}

export class OutboundRequestFailed extends OutboundRequestError {
  override readonly name = 'OutboundRequestFailed';
  readonly reason: FailureReason;

  constructor(reason: FailureReason, target: string, detail: string, options?: ErrorOptions) {
    super(`Outbound request to ${target} failed (${reason}): ${detail}`, target, options);
    this.reason = reason;
  }
}
