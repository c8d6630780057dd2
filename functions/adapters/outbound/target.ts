import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, type AddressPolicy } from './address-policy.js';
import { OutboundRequestFailed, OutboundRequestRefused } from './errors.js';
import { redactUrl } from './redact.js';
import type { DnsResolver, ResolvedAddress } from './resolver.js';

/**
 * Ports refused even on allowed hosts: the Fetch standard's "bad ports" (SMTP, SSH, IRC and the
 * other services a request could be smuggled into), and port 0. Every other port 1-65535 is
 * allowed: storage and webhook receivers do run on 8443, 9000 and the like. The URL parser
 * already rejects ports above 65535.
 */
const badPorts = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export type TargetPolicy = AddressPolicy;

/** A URL that passed every check, with the addresses its connection is pinned to. */
export interface PinnedTarget {
  url: URL;
  /** The name for SNI, certificate verification and Host (brackets of IPv6 literals removed). */
  hostname: string;
  port: number;
  /** Every address of the one DNS answer, all allowed; the connection may use only these. */
  addresses: readonly ResolvedAddress[];
  /** Every address is loopback (then, and only with allowLoopback, plain http is accepted). */
  loopback: boolean;
}

/**
 * The checks that need no DNS: a parseable URL, https (or http, left to `resolveTarget` to
 * confine to loopback), no credentials, an allowed port and a qualified hostname. The WHATWG
 * parser has already turned decimal, octal, hex and short IPv4 spellings (2130706433, 0x7f.1,
 * 0177.0.0.1, 127.1) into dotted quads and rejected names ending in a number that is not an
 * address, so what remains is a dotted quad, a bracketed IPv6 literal or a DNS name.
 */
export function checkUrl(input: string | URL, policy: TargetPolicy): URL {
  let url: URL;
  try {
    // A copy: the caller's URL object is never the one fetched (nor mutated).
    url = new URL(input);
  } catch {
    // The parser's message repeats the input, which may be a signed URL: never pass it on.
    throw new OutboundRequestRefused('invalid_url', '[unparseable URL]', 'not an absolute URL');
  }
  const target = redactUrl(url);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback)) {
    throw new OutboundRequestRefused('scheme_not_allowed', target, `${url.protocol} is not allowed; use https:`);
  }
  if (url.username || url.password) {
    throw new OutboundRequestRefused('credentials_in_url', target, 'credentials in the URL are not allowed');
  }
  if (url.port !== '' && badPorts.has(Number(url.port))) {
    throw new OutboundRequestRefused('port_not_allowed', target, `port ${url.port} is not allowed`);
  }
  const hostname = bareHostname(url);
  // A single-label name is resolved through the resolver's search domains: an intranet name.
  if (isIP(hostname) === 0 && !hostname.replace(/\.$/, '').includes('.') && !isLocalhostName(hostname)) {
    throw new OutboundRequestRefused('host_not_allowed', target, 'the hostname must be a fully qualified public name');
  }
  return url;
}

/**
 * Resolves the URL's host once (IP literals are not looked up) and checks every address: if any
 * is forbidden the target is refused. Refusing the whole answer rather than keeping its allowed
 * part is the safe choice: a public name with a private address in its answer is a rebinding
 * or probing attempt or a misconfiguration, and which address a client tried first must not
 * decide whether a request is accepted. Plain http is accepted only for all-loopback answers
 * under allowLoopback.
 */
export async function resolveTarget(input: string | URL, policy: TargetPolicy, resolver: DnsResolver): Promise<PinnedTarget> {
  const url = checkUrl(input, policy);
  const target = redactUrl(url);
  const hostname = bareHostname(url);
  const literal = isIP(hostname);
  const addresses = literal !== 0 ? [{ address: hostname, family: literal as 4 | 6 }] : await lookupAll(resolver, hostname, target);
  let loopback = true;
  for (const { address } of addresses) {
    const verdict = classifyAddress(address, policy);
    if (!verdict.allowed) {
      // The range, not the address: an internal address is itself information about the network.
      throw new OutboundRequestRefused('forbidden_address', target, `the host resolves to a forbidden address (${verdict.range})`);
    }
    loopback &&= verdict.loopback;
  }
  if (url.protocol === 'http:' && !loopback) {
    throw new OutboundRequestRefused('scheme_not_allowed', target, 'http: is allowed only for loopback targets; use https:');
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { url, hostname, port, addresses, loopback };
}

async function lookupAll(resolver: DnsResolver, hostname: string, target: string): Promise<readonly ResolvedAddress[]> {
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolver.resolve(hostname);
  } catch (error) {
    throw new OutboundRequestFailed('dns_failed', target, 'the hostname did not resolve', { cause: error });
  }
  if (addresses.length === 0) throw new OutboundRequestFailed('dns_failed', target, 'the hostname has no addresses');
  return addresses;
}

/**
 * The `lookup` handed to node:net for a pinned target: it answers with the checked addresses
 * whatever it is asked, so the connection never triggers a second DNS query. With Node's
 * happy-eyeballs (`all: true`) it offers every checked address, each already allowed.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const wanted = addresses.filter((address) => !family || address.family === family);
    const answer: LookupAddress[] = wanted.length > 0 ? wanted : [...addresses];
    const [first] = answer;
    if (options.all) callback(null, answer);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no pinned address'), { code: 'ENOTFOUND' }), '');
  };
}

function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** `localhost` and its subdomains, which name loopback whatever DNS says (RFC 6761 §6.3). */
export function isLocalhostName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}
