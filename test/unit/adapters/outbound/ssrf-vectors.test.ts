/**
 * The SSRF table: every way we know of to point an outbound request at something it must not
 * reach. Direct vectors go through `check` (the very checks each hop of a request runs before it
 * connects) and never open a socket, so no vector can reach the network even if a check were
 * broken; the vectors whose would-be destination is this machine also go through `fetch`.
 * Redirect and rebinding vectors go through `fetch` against a server on 127.0.0.1, with targets
 * that are on this machine too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundRequestFailed, OutboundRequestRefused, type OutboundReason } from '../../../../functions/adapters/outbound/errors.js';
import { createOutboundClient } from '../../../../functions/adapters/outbound/outbound-client.js';
import { sameAddress } from '../../../../functions/adapters/outbound/address-policy.js';
import { pinnedLookup } from '../../../../functions/adapters/outbound/target.js';
import { startServer, stubResolver, type TestServer } from './support.js';

const dns = {
  'public.example.test': ['93.184.216.34'],
  'v6.example.test': ['2606:2800:220:1:248:1893:25c8:1946'],
  'nat64-public.example.test': ['64:ff9b::5db8:d822'],
  'dual.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'loopback.example.test': ['127.0.0.1'],
  'private.example.test': ['10.1.2.3'],
  'metadata.example.test': ['169.254.169.254'],
  'cgnat.example.test': ['100.100.100.100'],
  'ula.example.test': ['fd00::1'],
  'compat.example.test': ['::a00:1'],
  'mapped.example.test': ['::ffff:169.254.169.254'],
  'nat64.example.test': ['64:ff9b::a00:1'],
  'zone.example.test': ['fe80::1%eth0'],
  'garbage.example.test': ['not-an-address'],
  'mixed.example.test': ['93.184.216.34', '10.0.0.7'],
  'mixed-v6.example.test': ['2606:2800:220:1:248:1893:25c8:1946', 'fc00::7'],
  'mixed-loopback.example.test': ['127.0.0.1', '93.184.216.34'],
  'unspecified.example.test': ['0.0.0.0'],
  'empty.example.test': [],
  localhost: ['127.0.0.1', '::1'],
} satisfies Record<string, string[]>;

interface Vector {
  url: string;
  /** The reason expected; `allowed` for targets that must pass. */
  expect: OutboundReason | 'allowed';
  allowLoopback?: boolean;
  /** Its destination, were the checks broken, is this machine: safe to send through `fetch` too. */
  local?: boolean;
}

const forbidden = 'forbidden_address' as const;
const v = (url: string, expected: Vector['expect'], extra: Omit<Vector, 'url' | 'expect'> = {}): Vector => ({ url, expect: expected, ...extra });

const vectors: Record<string, Vector[]> = {
  'IPv4 literals': [
    v('https://127.0.0.1/', forbidden, { local: true }),
    v('https://127.255.255.254/', forbidden, { local: true }),
    v('https://10.0.0.1/', forbidden),
    v('https://172.16.5.4/', forbidden),
    v('https://172.31.255.255/', forbidden),
    v('https://192.168.1.1/', forbidden),
    v('https://169.254.169.254/latest/meta-data/', forbidden),
    v('https://100.64.0.1/', forbidden),
    v('https://100.127.255.254/', forbidden),
    v('https://224.0.0.1/', forbidden),
    v('https://239.255.255.250/', forbidden),
    v('https://0.0.0.0/', forbidden, { local: true }),
    v('https://0.1.2.3/', forbidden),
    v('https://255.255.255.255/', forbidden),
    v('https://240.0.0.1/', forbidden),
    v('https://198.18.0.1/', forbidden),
    v('https://198.19.255.1/', forbidden),
    v('https://192.0.2.1/', forbidden),
    v('https://198.51.100.7/', forbidden),
    v('https://203.0.113.9/', forbidden),
    v('https://192.0.0.8/', forbidden),
    v('https://192.88.99.1/', forbidden),
  ],
  'IPv6 literals': [
    v('https://[::1]/', forbidden, { local: true }),
    v('https://[::]/', forbidden, { local: true }),
    v('https://[fc00::1]/', forbidden),
    v('https://[fd12:3456::1]/', forbidden),
    v('https://[fe80::1]/', forbidden),
    v('https://[fec0::1]/', forbidden),
    v('https://[ff02::1]/', forbidden),
    v('https://[2001:db8::1]/', forbidden),
    v('https://[3fff::1]/', forbidden),
    v('https://[2001:2::1]/', forbidden),
    v('https://[100::1]/', forbidden),
    v('https://[5f00::1]/', forbidden),
    v('https://[4000::1]/', forbidden),
  ],
  'IPv4 inside IPv6': [
    v('https://[::ffff:127.0.0.1]/', forbidden, { local: true }),
    v('https://[0:0:0:0:0:ffff:7f00:1]/', forbidden, { local: true }),
    v('https://[::ffff:10.0.0.1]/', forbidden),
    v('https://[::ffff:169.254.169.254]/', forbidden),
    v('https://[::ffff:8.8.8.8]/', forbidden),
    v('https://[::ffff:0:7f00:1]/', forbidden),
    v('https://[::127.0.0.1]/', forbidden),
    v('https://[::8.8.8.8]/', forbidden),
    v('https://[64:ff9b::127.0.0.1]/', forbidden),
    v('https://[64:ff9b::a9fe:a9fe]/', forbidden),
    v('https://[64:ff9b::10.0.0.1]/', forbidden),
    v('https://[64:ff9b:1::a00:1]/', forbidden),
    v('https://[64:ff9b:1::5db8:d822]/', forbidden),
    v('https://[2002:7f00:1::1]/', forbidden),
    v('https://[2002:a9fe:a9fe::1]/', forbidden),
    v('https://[2002:808:808::1]/', forbidden),
    v('https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', forbidden),
    v('https://[2001::a00:1]/', forbidden),
  ],
  'IPv4 spellings the URL parser normalizes': [
    v('https://2130706433/', forbidden, { local: true }),
    v('https://0x7f.1/', forbidden, { local: true }),
    v('https://0177.0.0.1/', forbidden, { local: true }),
    v('https://0x7f000001/', forbidden, { local: true }),
    v('https://017700000001/', forbidden, { local: true }),
    v('https://0x7f.0x0.0x0.0x1/', forbidden, { local: true }),
    v('https://00000177.0.0.1/', forbidden, { local: true }),
    v('https://127.1/', forbidden, { local: true }),
    v('https://127.0.0.1./', forbidden, { local: true }),
    v('https://0/', forbidden, { local: true }),
    v('https://１２７．０．０．１/', forbidden, { local: true }),
    v('https://%31%32%37.0.0.1/', forbidden, { local: true }),
    v('https://0xa9fea9fe/', forbidden),
    v('https://0251.0376.0251.0376/', forbidden),
    v('https://2852039166/', forbidden),
    v('https://0xa.0.0.1/', forbidden),
    v('https://3232235777/', forbidden),
    v('http://2130706433/', 'scheme_not_allowed', { local: true }),
    v('http://0x7f.1/', 'scheme_not_allowed', { local: true }),
    v('http://0177.0.0.1/', 'scheme_not_allowed', { local: true }),
    v('https://foo.0x7f/', 'invalid_url'),
    v('https://1.2.3.4.5/', 'invalid_url'),
    v('https://4294967296/', 'invalid_url'),
  ],
  'DNS answers': [
    v('https://loopback.example.test/', forbidden, { local: true }),
    v('https://localhost/', forbidden, { local: true }),
    v('https://unspecified.example.test/', forbidden, { local: true }),
    v('https://private.example.test/', forbidden),
    v('https://metadata.example.test/', forbidden),
    v('https://cgnat.example.test/', forbidden),
    v('https://ula.example.test/', forbidden),
    v('https://compat.example.test/', forbidden),
    v('https://mapped.example.test/', forbidden),
    v('https://nat64.example.test/', forbidden),
    v('https://zone.example.test/', forbidden),
    v('https://garbage.example.test/', forbidden),
    v('https://mixed.example.test/', forbidden),
    v('https://mixed-v6.example.test/', forbidden),
    v('https://mixed-loopback.example.test/', forbidden, { local: true }),
    v('https://no-such-name.example.test/', 'dns_failed', { local: true }),
    v('https://empty.example.test/', 'dns_failed', { local: true }),
  ],
  'credentials, schemes, ports, hosts': [
    v('https://user:pass@public.example.test/', 'credentials_in_url'),
    v('https://user@public.example.test/', 'credentials_in_url'),
    v('https://:secret@public.example.test/', 'credentials_in_url'),
    v('https://public.example.test@127.0.0.1/', 'credentials_in_url', { local: true }),
    v('http://public.example.test/', 'scheme_not_allowed'),
    v('http://public.example.test/', 'scheme_not_allowed', { allowLoopback: true }),
    v('http://mixed-loopback.example.test/', 'scheme_not_allowed', { allowLoopback: true }),
    v('ftp://public.example.test/', 'scheme_not_allowed'),
    v('file:///etc/passwd', 'scheme_not_allowed', { local: true }),
    v('gopher://127.0.0.1:70/', 'scheme_not_allowed', { local: true }),
    v('dict://127.0.0.1:11211/', 'scheme_not_allowed', { local: true }),
    v('ws://public.example.test/', 'scheme_not_allowed'),
    v('wss://public.example.test/', 'scheme_not_allowed'),
    v('data:text/plain,hello', 'scheme_not_allowed', { local: true }),
    v('javascript:alert(1)', 'scheme_not_allowed', { local: true }),
    v('https://public.example.test:0/', 'port_not_allowed'),
    v('https://public.example.test:25/', 'port_not_allowed'),
    v('https://public.example.test:22/', 'port_not_allowed'),
    v('https://public.example.test:65536/', 'invalid_url'),
    v('https://intranet/', 'host_not_allowed'),
    v('https://metadata/computeMetadata/v1/', 'host_not_allowed'),
    v('not a url', 'invalid_url'),
    v('/relative/path', 'invalid_url'),
    v('', 'invalid_url'),
  ],
  'allowLoopback admits loopback, nothing else': [
    v('http://127.0.0.1:8080/', 'allowed', { allowLoopback: true }),
    v('http://127.0.0.2/', 'allowed', { allowLoopback: true }),
    v('http://[::1]:8080/', 'allowed', { allowLoopback: true }),
    v('http://localhost:8080/', 'allowed', { allowLoopback: true }),
    v('http://2130706433:8080/', 'allowed', { allowLoopback: true }),
    v('http://loopback.example.test/', 'allowed', { allowLoopback: true }),
    v('https://loopback.example.test/', 'allowed', { allowLoopback: true }),
    v('https://mixed-loopback.example.test/', 'allowed', { allowLoopback: true }),
    v('https://10.0.0.1/', forbidden, { allowLoopback: true }),
    v('https://0xa9fea9fe/', forbidden, { allowLoopback: true }),
    v('http://[::ffff:127.0.0.1]/', forbidden, { allowLoopback: true, local: true }),
    v('http://0.0.0.0/', forbidden, { allowLoopback: true, local: true }),
    v('http://[64:ff9b::7f00:1]/', forbidden, { allowLoopback: true }),
    v('http://[2002:7f00:1::]/', forbidden, { allowLoopback: true }),
    v('http://unspecified.example.test/', forbidden, { allowLoopback: true, local: true }),
    v('http://user:pw@127.0.0.1/', 'credentials_in_url', { allowLoopback: true, local: true }),
  ],
  'public targets pass': [
    v('https://public.example.test/video.mp4?X-Amz-Signature=abc', 'allowed'),
    v('https://PUBLIC.EXAMPLE.TEST./', 'allowed'),
    v('https://public.example.test:8443/', 'allowed'),
    v('https://v6.example.test/', 'allowed'),
    v('https://dual.example.test/', 'allowed'),
    v('https://nat64-public.example.test/', 'allowed'),
    v('https://93.184.216.34/', 'allowed'),
    v('https://[2606:4700:4700::1111]/', 'allowed'),
    v('https://[64:ff9b::8.8.8.8]/', 'allowed'),
  ],
};

const resolver = stubResolver(dns);
const client = createOutboundClient({ resolver });
const loopbackClient = createOutboundClient({ resolver, allowLoopback: true });
const clientFor = (vector: Vector) => (vector.allowLoopback ? loopbackClient : client);
const rows = Object.entries(vectors).flatMap(([group, list]) => list.map((vector) => ({ group, ...vector })));
const refusals = rows.filter((row) => row.expect !== 'allowed');

describe('the SSRF table', () => {
  it('holds well over 40 vectors', () => {
    expect(rows.length).toBeGreaterThan(100);
  });

  it.each(refusals)('$group: $url (allowLoopback: $allowLoopback) -> $expect', async (vector) => {
    const error = await clientFor(vector)
      .check(vector.url)
      .then(
        () => 'allowed',
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ reason: vector.expect });
    expect(error).toBeInstanceOf(vector.expect.startsWith('dns_') ? OutboundRequestFailed : OutboundRequestRefused);
  });

  it.each(rows.filter((row) => row.expect === 'allowed'))('$group: $url (allowLoopback: $allowLoopback) passes', async (vector) => {
    const target = await clientFor(vector).check(vector.url);
    expect(target.addresses.length).toBeGreaterThan(0);
  });

  it.each(refusals.filter((row) => row.local))('fetch refuses it too: $url -> $expect', async (vector) => {
    await expect(clientFor(vector).fetch({ url: vector.url, totalTimeoutMs: 2_000 })).rejects.toMatchObject({ reason: vector.expect });
  });

  it('names the range, never the address, of a forbidden answer', async () => {
    const error = await client.check('https://private.example.test/').catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(OutboundRequestRefused);
    expect((error as Error).message).toContain('private');
    expect((error as Error).message).not.toContain('10.1.2.3');
  });

  it('pins loopback targets to plain http only when every address is loopback', async () => {
    await expect(loopbackClient.check('http://loopback.example.test/')).resolves.toMatchObject({ loopback: true, port: 80 });
    await expect(loopbackClient.check('https://mixed-loopback.example.test/')).resolves.toMatchObject({ loopback: false, port: 443 });
  });
});

describe('pinning: the connection uses the checked answer', () => {
  const pinned = [
    { address: '93.184.216.34', family: 4 as const },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 as const },
  ];
  const ask = (options: Parameters<ReturnType<typeof pinnedLookup>>[1]) =>
    new Promise<unknown[]>((resolve) => pinnedLookup(pinned)('evil.example.test', options, (...args) => resolve(args)));

  it('answers with the checked addresses whatever name it is asked for', async () => {
    expect(await ask({})).toEqual([null, '93.184.216.34', 4]);
    expect(await ask({ all: true })).toEqual([null, pinned]);
    expect(await ask({ family: 6 })).toEqual([null, '2606:2800:220:1:248:1893:25c8:1946', 6]);
  });

  it('compares the socket peer with the checked answer in one spelling per address', () => {
    expect(sameAddress('127.0.0.1', '::ffff:127.0.0.1')).toBe(true);
    expect(sameAddress('2606:2800:220:1:248:1893:25c8:1946', '2606:2800:0220:0001:0248:1893:25C8:1946')).toBe(true);
    expect(sameAddress('127.0.0.1', '127.0.0.2')).toBe(false);
    expect(sameAddress('127.0.0.1', '')).toBe(false);
  });

  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startServer((request, response) => {
      if (request.url?.startsWith('/to?')) {
        response.writeHead(302, { location: new URL(request.url, 'http://x').searchParams.get('u') ?? '/' }).end();
      } else response.end('ok');
    });
    port = server.port;
  });
  afterAll(() => server.close());

  it('a name whose answer turns forbidden after the check still reaches the checked address, with one lookup', async () => {
    // Were the name resolved again at connect, the stub would answer 10.0.0.1 (and the system
    // resolver cannot resolve .test at all): success proves the checked answer was used.
    const rebinding = stubResolver({ 'rebind.example.test': (call) => (call === 1 ? ['127.0.0.1'] : ['10.0.0.1']) });
    const response = await createOutboundClient({ resolver: rebinding, allowLoopback: true }).fetch({ url: `http://rebind.example.test:${port}/` });
    expect(response.body.toString()).toBe('ok');
    expect(rebinding.calls).toEqual(['rebind.example.test']);
    expect(server.requests.at(-1)).toMatchObject({ remoteAddress: '127.0.0.1', headers: { host: `rebind.example.test:${port}` } });
  });

  it('a name whose answer turns reachable after the check is not re-resolved: the checked address is the one dialled', async () => {
    // 127.0.0.2 is allowed (loopback) but nothing listens there; a second lookup would find the server.
    const rebinding = stubResolver({ 'rebind.example.test': (call) => (call === 1 ? ['127.0.0.2'] : ['127.0.0.1']) });
    const before = server.requests.length;
    await expect(
      createOutboundClient({ resolver: rebinding, allowLoopback: true }).fetch({ url: `http://rebind.example.test:${port}/` }),
    ).rejects.toMatchObject({ reason: 'connect_failed' });
    expect(rebinding.calls).toEqual(['rebind.example.test']);
    expect(server.requests.length).toBe(before);
  });

  it('a forbidden first answer is refused even if the next would be allowed', async () => {
    const rebinding = stubResolver({ 'rebind.example.test': (call) => (call === 1 ? ['0.0.0.0'] : ['127.0.0.1']) });
    const before = server.requests.length;
    await expect(
      createOutboundClient({ resolver: rebinding, allowLoopback: true }).fetch({ url: `http://rebind.example.test:${port}/` }),
    ).rejects.toMatchObject({ reason: forbidden });
    expect(server.requests.length).toBe(before);
  });

  it('every redirect hop is resolved and checked again: an answer that changes between hops is refused', async () => {
    const rebinding = stubResolver({ 'rebind.example.test': (call) => (call === 1 ? ['127.0.0.1'] : ['::ffff:127.0.0.1']) });
    const next = encodeURIComponent(`http://rebind.example.test:${port}/`);
    await expect(
      createOutboundClient({ resolver: rebinding, allowLoopback: true }).fetch({ url: `http://rebind.example.test:${port}/to?u=${next}` }),
    ).rejects.toMatchObject({ reason: forbidden });
    expect(rebinding.calls).toEqual(['rebind.example.test', 'rebind.example.test']);
  });

  it('a public name answering 127.0.0.1 is refused unless allowLoopback', async () => {
    const before = server.requests.length;
    const resolverToLoopback = stubResolver({ 'media.example.test': ['127.0.0.1'] });
    const strict = createOutboundClient({ resolver: resolverToLoopback });
    await expect(strict.fetch({ url: `https://media.example.test:${port}/` })).rejects.toMatchObject({ reason: forbidden });
    await expect(strict.fetch({ url: `http://media.example.test:${port}/` })).rejects.toMatchObject({ reason: 'scheme_not_allowed' });
    expect(server.requests.length).toBe(before);
    const local = createOutboundClient({ resolver: resolverToLoopback, allowLoopback: true });
    await expect(local.fetch({ url: `http://media.example.test:${port}/` })).resolves.toMatchObject({ status: 200 });
  });
});

describe('redirects to forbidden targets fail with the forbidden reason', () => {
  let server: TestServer;
  let port: number;
  const redirectResolver = stubResolver({
    'media.example.test': ['127.0.0.1'],
    'mapped.example.test': ['::ffff:127.0.0.1'],
    'half.example.test': ['127.0.0.1', '0.0.0.0'],
  });
  const local = createOutboundClient({ resolver: redirectResolver, allowLoopback: true });

  beforeAll(async () => {
    server = await startServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const location = url.searchParams.get('u');
      if (location !== null) response.writeHead(Number(url.searchParams.get('s') ?? 302), { location }).end();
      else response.end('reached');
    });
    port = server.port;
  });
  afterAll(() => server.close());

  const redirectVectors: [string, (port: number) => string, OutboundReason][] = [
    ['IPv4-mapped loopback', (p) => `http://[::ffff:127.0.0.1]:${p}/`, forbidden],
    ['unspecified 0.0.0.0', (p) => `http://0.0.0.0:${p}/`, forbidden],
    ['unspecified written as 0', (p) => `http://0:${p}/`, forbidden],
    ['unspecified ::', (p) => `http://[::]:${p}/`, forbidden],
    ['a name answering IPv4-mapped', (p) => `http://mapped.example.test:${p}/`, forbidden],
    ['a name with one forbidden answer', (p) => `http://half.example.test:${p}/`, forbidden],
    ['protocol-relative IPv4-mapped', (p) => `//[::ffff:7f00:1]:${p}/`, forbidden],
    ['backslashes', (p) => `http:\\\\0.0.0.0:${p}\\`, forbidden],
    ['file:', () => 'file:///etc/passwd', 'scheme_not_allowed'],
    ['gopher:', (p) => `gopher://127.0.0.1:${p}/`, 'scheme_not_allowed'],
    ['ftp:', () => 'ftp://127.0.0.1/', 'scheme_not_allowed'],
    ['credentials', (p) => `http://user:pw@127.0.0.1:${p}/`, 'credentials_in_url'],
    ['port 0', () => 'http://127.0.0.1:0/', 'port_not_allowed'],
    ['port 25', () => 'http://127.0.0.1:25/', 'port_not_allowed'],
    ['a single-label name', () => 'http://intranet/', 'host_not_allowed'],
    ['a Location that is not a URL', () => 'http://exa mple.test/', 'bad_redirect'],
  ];

  it.each(redirectVectors)('%s', async (_name, location, reason) => {
    const before = server.requests.length;
    for (const status of [301, 302, 303, 307, 308]) {
      const url = `http://media.example.test:${port}/?s=${status}&u=${encodeURIComponent(location(port))}`;
      await expect(local.fetch({ url })).rejects.toMatchObject({ reason });
    }
    // Only the five redirecting requests reached the server, never the forbidden target.
    expect(server.requests.length).toBe(before + 5);
  });

  it('a redirect to an allowed target is followed', async () => {
    const url = `http://media.example.test:${port}/?u=${encodeURIComponent(`http://127.0.0.1:${port}/final`)}`;
    await expect(local.fetch({ url })).resolves.toMatchObject({ status: 200, redirects: 1, target: `http://127.0.0.1:${port}/final` });
  });
});
