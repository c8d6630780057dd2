import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Which IP addresses an outbound request may connect to (DESIGN §9). The ranges are ipaddr.js's
 * classification: an address is allowed only when its range is `unicast`, and for IPv6 only
 * inside global unicast space (2000::/3). Everything else is refused by name: loopback, private,
 * link-local, carrier-grade NAT, multicast, unspecified, broadcast, reserved (which in ipaddr.js
 * holds benchmarking and documentation space), unique-local, site-local, IPv4-mapped, 6to4,
 * Teredo and the rest.
 *
 * Special cases, each decided toward refusal unless a real deployment needs otherwise:
 * - IPv4-compatible (::a.b.c.d) addresses fall outside 2000::/3: refused whatever they embed.
 * - IPv4-mapped (::ffff:a.b.c.d): refused whatever they embed, loopback too.
 * - 6to4 (2002::/16) and Teredo (2001::/32): refused whatever they embed. Both are deprecated
 *   tunnels reached through relays we do not control; no source or webhook host needs them.
 * - NAT64 well-known prefix (64:ff9b::/96): allowed only when the embedded IPv4 address is
 *   itself allowed (never loopback), because an IPv6-only network with DNS64 (e.g. an IPv6-only
 *   Lambda subnet) answers every IPv4-only host in that form. The local-use prefix
 *   64:ff9b:1::/48 embeds at a network-chosen offset we cannot check: refused.
 * - Scoped addresses (a zone id, `%eth0`): refused.
 * - `allowLoopback` (local host only) admits 127.0.0.0/8 and ::1, nothing else.
 */
export interface AddressPolicy {
  allowLoopback: boolean;
}

type AddressVerdict = { allowed: true; loopback: boolean } | { allowed: false; range: string };

const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

export function classifyAddress(address: string, policy: AddressPolicy): AddressVerdict {
  if (isIP(address) === 0) return { allowed: false, range: 'not an IP address' };
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? classifyIPv4(parsed as ipaddr.IPv4, policy) : classifyIPv6(parsed as ipaddr.IPv6, policy);
}

function classifyIPv4(ip: ipaddr.IPv4, { allowLoopback }: AddressPolicy): AddressVerdict {
  const range = ip.range();
  if (range === 'unicast') return { allowed: true, loopback: false };
  if (range === 'loopback' && allowLoopback) return { allowed: true, loopback: true };
  return { allowed: false, range };
}

function classifyIPv6(ip: ipaddr.IPv6, policy: AddressPolicy): AddressVerdict {
  if (ip.zoneId !== undefined) return { allowed: false, range: 'scoped' };
  const range = ip.range();
  if (range === 'loopback' && policy.allowLoopback) return { allowed: true, loopback: true };
  if (range === 'rfc6052' && ip.match(nat64WellKnown)) {
    const embedded = classifyIPv4(embeddedIPv4(ip), { allowLoopback: false });
    return embedded.allowed ? embedded : { allowed: false, range: `NAT64 of ${embedded.range}` };
  }
  if (range !== 'unicast') return { allowed: false, range };
  if (!ip.match(globalUnicast)) {
    return { allowed: false, range: ip.parts.slice(0, 6).every((part) => part === 0) ? 'ipv4Compatible' : 'reserved' };
  }
  return { allowed: true, loopback: false };
}

/** The IPv4 address in the last 32 bits. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 {
  const [high = 0, low = 0] = ip.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** One spelling per address (IPv4-mapped folded to IPv4), to compare a socket's peer with the checked answer. */
export function sameAddress(a: string, b: string): boolean {
  if (!ipaddr.isValid(a) || !ipaddr.isValid(b)) return false;
  return ipaddr.process(a).toNormalizedString() === ipaddr.process(b).toNormalizedString();
}
