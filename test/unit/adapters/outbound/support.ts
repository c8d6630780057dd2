/**
 * Test support for the outbound client: a stub DNS resolver, loopback servers and a self-signed
 * certificate made with node:crypto alone. Nothing here sends a packet off this machine.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { DnsResolver, ResolvedAddress } from '../../../../functions/adapters/outbound/resolver.js';

type Answer = readonly string[] | ((call: number) => readonly string[]);

/** A resolver that knows only the names it is given; every call is recorded. */
export function stubResolver(answers: Readonly<Record<string, Answer>>): DnsResolver & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve(name) {
      // As DNS does, a trailing dot (the root) changes nothing.
      const hostname = name.replace(/\.$/, '');
      calls.push(hostname);
      const answer = answers[hostname];
      if (answer === undefined) {
        return Promise.reject(Object.assign(new Error(`stub: no such name ${hostname}`), { code: 'ENOTFOUND' }));
      }
      const addresses = typeof answer === 'function' ? answer(calls.filter((name) => name === hostname).length) : answer;
      return Promise.resolve(addresses.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
    },
  };
}

export interface TestServer {
  port: number;
  /** Requests received, in order. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer; remoteAddress: string }[];
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;

/** An http (or, with TLS options, https) server on 127.0.0.1 and an ephemeral port. */
export async function startServer(handler: Handler, tls?: https.ServerOptions): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        remoteAddress: request.socket.remoteAddress ?? '',
      });
      handler(request, response, body);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- A self-signed X.509 certificate, DER-encoded by hand (Node has no certificate builder). ---

const der = (tag: number, content: Buffer): Buffer => {
  const length = content.length;
  const lengthBytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) lengthBytes.unshift(rest & 0xff);
  const header = length < 0x80 ? [tag, length] : [tag, 0x80 | lengthBytes.length, ...lengthBytes];
  return Buffer.concat([Buffer.from(header), content]);
};
const sequence = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const integer = (bytes: Buffer) => der(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const objectId = (dotted: string) => {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128: number[] = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
};
const utcTime = (date: Date) => der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));
const commonName = (name: string) => sequence(der(0x31, sequence(objectId('2.5.4.3'), der(0x0c, Buffer.from(name)))));
const ecdsaWithSha256 = sequence(objectId('1.2.840.10045.4.3.2'));

/** A P-256 key and a one-day certificate naming `dnsName` only (subjectAltName). */
export function selfSignedCertificate(dnsName: string): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const subjectAltName = sequence(objectId('2.5.29.17'), der(0x04, sequence(der(0x82, Buffer.from(dnsName)))));
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))),
    integer(randomBytes(12)),
    ecdsaWithSha256,
    commonName(dnsName),
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    commonName(dnsName),
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(subjectAltName)),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`,
  };
}
