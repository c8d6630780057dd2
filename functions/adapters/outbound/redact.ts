/**
 * A URL as it may appear in a message or a log: `scheme://host[:port]/path`. Credentials, the
 * query string (signatures of signed URLs) and the fragment are dropped. Input that does not
 * parse is never echoed back: it may be a secret URL with a typo.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '[unparseable URL]';
  }
  // Non-special schemes (mailto:, data:, javascript:) have no host: their whole body is opaque.
  if (!parsed.host) return `${parsed.protocol}[opaque]`;
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
