/**
 * Signed URLs are secrets: neither `redactUrl` nor any outbound error may carry a query string,
 * credentials or a fragment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundRequestError } from '../../../../functions/adapters/outbound/errors.js';
import { createOutboundClient } from '../../../../functions/adapters/outbound/outbound-client.js';
import { redactUrl } from '../../../../functions/adapters/outbound/redact.js';
import { startServer, stubResolver, type TestServer } from './support.js';

describe('redactUrl', () => {
  it.each([
    ['https://bucket.s3.amazonaws.com/media/v.mp4?X-Amz-Signature=SECRET&X-Amz-Credential=AKIA', 'https://bucket.s3.amazonaws.com/media/v.mp4'],
    ['https://alice:hunter2@example.com/a#frag', 'https://example.com/a'],
    ['https://example.com:8443/p/q?x=1', 'https://example.com:8443/p/q'],
    ['https://example.com:443/', 'https://example.com/'],
    ['HTTPS://EXAMPLE.COM', 'https://example.com/'],
    ['https://[::1]:8080/x?y', 'https://[::1]:8080/x'],
    ['https://0x7f.1/?sig=SECRET', 'https://127.0.0.1/'],
    ['data:text/plain,SECRET', 'data:[opaque]'],
    ['mailto:SECRET@example.com', 'mailto:[opaque]'],
    ['not a url SECRET', '[unparseable URL]'],
    ['https://exa mple.com/?sig=SECRET', '[unparseable URL]'],
  ])('%s -> %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
    expect(redactUrl(input)).not.toMatch(/SECRET|hunter2|alice|AKIA|frag/);
  });

  it('takes URL objects too', () => {
    expect(redactUrl(new URL('https://u:p@example.com/x?y=1#z'))).toBe('https://example.com/x');
  });
});

describe('outbound errors never carry the secret parts of a URL', () => {
  const secrets = /SECRET|hunter2|alice/;
  let server: TestServer;
  let base: string;
  const client = createOutboundClient({
    resolver: stubResolver({ 'media.example.test': ['127.0.0.1'], 'private.example.test': ['10.0.0.1'] }),
    allowLoopback: true,
  });

  beforeAll(async () => {
    server = await startServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/to') response.writeHead(302, { location: url.searchParams.get('u') ?? '/' }).end();
      else if (url.pathname === '/big') response.end(Buffer.alloc(2048));
      // anything else: never answers
    });
    base = `http://media.example.test:${server.port}`;
  });
  afterAll(() => server.close());

  const leaks = (error: unknown) => {
    expect(error).toBeInstanceOf(OutboundRequestError);
    const shown = [String(error), (error as Error).stack, JSON.stringify(error), (error as OutboundRequestError).target].join('\n');
    expect(shown).not.toMatch(secrets);
    return error as OutboundRequestError;
  };

  it.each([
    ['credentials', 'https://alice:hunter2@media.example.test/v.mp4?sig=SECRET', 'credentials_in_url'],
    ['a forbidden address', 'https://private.example.test/v.mp4?X-Amz-Signature=SECRET#SECRET', 'forbidden_address'],
    ['an unparseable URL', 'https://exa mple.test/?sig=SECRET', 'invalid_url'],
    ['a scheme', 'ftp://alice:hunter2@media.example.test/?SECRET', 'scheme_not_allowed'],
    ['DNS', 'https://unknown.example.test/x?sig=SECRET', 'dns_failed'],
  ])('refusal or failure on %s', async (_what, url, reason) => {
    const error = leaks(await client.fetch({ url }).catch((e: unknown) => e));
    expect(error.reason).toBe(reason);
  });

  it('a timeout names scheme, host and path only', async () => {
    const error = leaks(await client.fetch({ url: `${base}/slow?X-Amz-Signature=SECRET`, headersTimeoutMs: 100 }).catch((e: unknown) => e));
    expect(error).toMatchObject({ reason: 'timeout', target: `${base}/slow` });
    expect(error.message).toContain(`${base}/slow`);
  });

  it('too_large, and a redirect to a forbidden target whose query is secret', async () => {
    leaks(await client.fetch({ url: `${base}/big?sig=SECRET`, maxBytes: 1024 }).catch((e: unknown) => e));
    const location = encodeURIComponent('https://private.example.test/x?sig=SECRET');
    const error = leaks(await client.fetch({ url: `${base}/to?u=${location}&sig=SECRET` }).catch((e: unknown) => e));
    expect(error).toMatchObject({ reason: 'forbidden_address', target: 'https://private.example.test/x' });
  });
});
