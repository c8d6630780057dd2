import { isIP } from 'node:net';
import { ApiError } from '../errors.js';
import { providerForHost } from './providers.js';
import type { SourceOrigin } from './ports.js';

/**
 * Which sources a one-off analysis may read (SPEC "One-off analysis" source_url, DESIGN §9/§10),
 * decided from the URL alone, before any connection:
 * - a built-in provider's exact host (or its anchored host pattern): its page or storage link;
 *   plain http is upgraded to https, a non-default port is refused;
 * - an exact trusted host of the account (case-insensitive, no subdomains), over HTTPS only;
 * - with `allowLoopback` (local host, LOCAL_ALLOW_LOOPBACK_TARGETS=1) a trusted `localhost`,
 *   127.x.y.z or `[::1]`, over http or https, so tests and demos serve media from this machine.
 * Everything else is 422 untrusted_source_url: IP literals in any spelling (the URL parser has
 * already turned decimal, octal and hex forms into dotted quads), credentials, other hosts.
 * Where the host then resolves is checked again at connection time by the outbound client.
 */
export function classifySourceUrl(raw: string, trustedHosts: readonly string[], options: { allowLoopback: boolean }): { url: URL; origin: SourceOrigin } {
  const url = parseSourceUrl(raw);
  if (url.username || url.password) throw untrusted('A source URL may not carry credentials; use a signed or shared link instead.');
  const host = normalizeHost(url.hostname);
  // A trailing dot names the same host; drop it so that matching and later requests agree.
  if (!url.hostname.startsWith('[') && url.hostname !== host) url.hostname = host;
  const trusted = trustedHosts.some((candidate) => normalizeHost(candidate) === host);

  if (options.allowLoopback && trusted && isLoopbackHost(host)) return { url, origin: { kind: 'trusted_host', host } };
  if (isIP(host) !== 0) throw untrusted('IP addresses are not accepted as sources; use the hostname of a built-in provider or a trusted host.');
  if (host === 'localhost' || host.endsWith('.localhost')) throw untrusted('Loopback hosts are not accepted as sources.');

  const provider = providerForHost(host);
  if (provider) {
    if (url.port !== '') throw untrusted(`${provider.name} links are accepted on the standard port only.`);
    if (url.protocol === 'http:') url.protocol = 'https:';
    return { url, origin: { kind: 'provider', provider } };
  }
  if (trusted) {
    if (url.protocol !== 'https:') throw untrusted(`Media on the trusted host ${host} is fetched over HTTPS only; use an https:// URL.`);
    return { url, origin: { kind: 'trusted_host', host } };
  }
  throw untrusted(`${host} is neither a built-in provider (see GET /v1/account) nor a trusted host of this account.`);
}

function parseSourceUrl(raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    // Never echo the input: it may be a signed URL with a typo.
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) {
    throw new ApiError('validation_failed', 'source_url must be an absolute http(s) URL.', 'source_url');
  }
  url.hash = '';
  return url;
}

/** Lower case, without IPv6 brackets or a trailing dot: how hosts are compared. */
const normalizeHost = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

const isLoopbackHost = (host: string): boolean => host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

const untrusted = (message: string): ApiError => new ApiError('untrusted_source_url', message, 'source_url');
