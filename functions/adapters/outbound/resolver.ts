import { lookup } from 'node:dns/promises';

/** One address a hostname resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * The DNS port of the outbound module: every address of a hostname, in the order to try them.
 * Called exactly once per request hop; the connection is then pinned to the checked answer.
 * Tests hand in a stub so that no test depends on (or sends anything to) the network.
 */
export interface DnsResolver {
  resolve(hostname: string): Promise<readonly ResolvedAddress[]>;
}

/**
 * The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), IPv4 answers first: a
 * Lambda function without IPv6 egress must not start with an address it cannot reach.
 */
export const systemResolver: DnsResolver = {
  async resolve(hostname) {
    const answers = await lookup(hostname, { all: true, order: 'ipv4first' });
    return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  },
};
