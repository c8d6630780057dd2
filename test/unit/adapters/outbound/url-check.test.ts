import { describe, expect, it } from 'vitest';
import { outboundUrlCheck } from '../../../../functions/adapters/outbound/url-check.js';
import { stubResolver } from './support.js';

const resolver = stubResolver({
  'hooks.example.com': ['93.184.215.14'],
  'internal.example.com': ['10.0.0.7'],
  'mixed.example.com': ['93.184.215.14', '192.168.1.1'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'loopback.example.com': ['127.0.0.1'],
  localhost: ['127.0.0.1', '::1'],
});
const strict = outboundUrlCheck({ allowLoopback: false }, resolver);
const local = outboundUrlCheck({ allowLoopback: true }, resolver);

describe('outboundUrlCheck (webhook URLs, DESIGN 9)', () => {
  it('allows https on public addresses and answers the normalized URL', async () => {
    await expect(strict('https://Hooks.Example.com')).resolves.toEqual({ allowed: true, url: 'https://hooks.example.com/' });
    await expect(strict('https://hooks.example.com:8443/in?token=x')).resolves.toEqual({ allowed: true, url: 'https://hooks.example.com:8443/in?token=x' });
    await expect(strict('https://v6.example.com/in')).resolves.toMatchObject({ allowed: true });
    await expect(strict('https://93.184.215.14/in')).resolves.toMatchObject({ allowed: true });
  });

  it.each([
    ['http://hooks.example.com/in', /only https/],
    ['ftp://hooks.example.com/in', /only https/],
    ['https://user:pw@hooks.example.com/in', /credentials/],
    ['https://hooks.example.com:25/in', /port/],
    ['https://intranet/in', /fully qualified/],
    ['https://internal.example.com/in', /public addresses only/],
    ['https://mixed.example.com/in', /public addresses only/],
    ['https://10.0.0.1/in', /public addresses only/],
    ['https://127.0.0.1/in', /public addresses only/],
    ['https://[::1]/in', /public addresses only/],
    ['https://[::ffff:7f00:1]/in', /public addresses only/],
    ['https://169.254.169.254/latest', /public addresses only/],
    ['https://app.localhost/in', /does not resolve/],
    ['not a url', /absolute URL/],
  ])('refuses %s', async (url, reason) => {
    const verdict = await strict(url);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) {
      expect(verdict.reason).toMatch(reason);
      // Never the address a name resolved to: that is information about the network.
      expect(verdict.reason).not.toMatch(/10\.0\.0\.7|192\.168/);
    }
  });

  it('accepts a public https name that does not resolve yet: delivery resolves and checks it at every attempt', async () => {
    await expect(strict('https://Nowhere.Example.com/in')).resolves.toEqual({ allowed: true, url: 'https://nowhere.example.com/in' });
    await expect(local('https://nowhere.example.com/in')).resolves.toMatchObject({ allowed: true });
    // Plain http is for loopback targets: a name that does not resolve cannot be shown to be one.
    await expect(local('http://nowhere.example.com/in')).resolves.toEqual({ allowed: false, reason: 'the hostname does not resolve' });
    await expect(local('https://app.localhost/in')).resolves.toEqual({ allowed: false, reason: 'the hostname does not resolve' });
  });

  it('with loopback allowed (local host), admits loopback over plain http, and nothing else new', async () => {
    await expect(local('http://127.0.0.1:4000/hook')).resolves.toEqual({ allowed: true, url: 'http://127.0.0.1:4000/hook' });
    await expect(local('http://localhost:4000/hook')).resolves.toMatchObject({ allowed: true });
    await expect(local('http://loopback.example.com/hook')).resolves.toMatchObject({ allowed: true });
    await expect(local('http://hooks.example.com/in')).resolves.toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/loopback targets only/) as string,
    });
    await expect(local('http://10.0.0.1/in')).resolves.toMatchObject({ allowed: false });
    await expect(local('https://user:pw@127.0.0.1/in')).resolves.toMatchObject({ allowed: false, reason: expect.stringMatching(/credentials/) as string });
  });
});
