/** The built-in provider list (DESIGN §10): what GET /v1/account shows and what classification matches. */
import { describe, expect, it } from 'vitest';
import { builtInProviders, providerForHost } from '../../../../functions/domain/sources/providers.js';

describe('built-in providers', () => {
  it('have unique ids, a name, and cover every kind with the resolver of that kind', () => {
    expect(new Set(builtInProviders.map((p) => p.id)).size).toBe(builtInProviders.length);
    expect(new Set(builtInProviders.map((p) => p.kind))).toEqual(new Set(['recorded_video', 'social', 'meeting', 'storage']));
    for (const provider of builtInProviders) {
      expect(provider.name).not.toBe('');
      expect(provider.resolver).toBe(provider.kind === 'storage' ? 'storage-link' : 'yt-dlp');
    }
  });

  it('list hostnames in matching form, each owned by exactly one provider', () => {
    for (const provider of builtInProviders) {
      for (const host of provider.hostnames) {
        expect(host).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
        expect(builtInProviders.filter((p) => p.hostnames.includes(host) || p.hostPattern?.test(host))).toEqual([provider]);
        expect(providerForHost(host)).toBe(provider);
      }
    }
  });

  it('patterns are anchored: a matching host with anything around it does not match', () => {
    for (const host of ['bucket.s3.amazonaws.com', 'tenant.sharepoint.com', 'us02web.zoom.us', 'bucket.storage.googleapis.com']) {
      expect(providerForHost(host)).toBeDefined();
      expect(providerForHost(`${host}.attacker.net`)).toBeUndefined();
      expect(providerForHost(`${host}x`)).toBeUndefined();
      expect(providerForHost(`x${host.replace(/^[^.]+\./, '-')}`)).toBeUndefined();
    }
  });
});
