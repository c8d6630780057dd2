/**
 * Source URL classification (SPEC "One-off analysis" source_url, DESIGN §9/§10): decided from the
 * URL alone, before any connection. Each row is one URL and what it must become.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../functions/domain/errors.js';
import { classifySourceUrl } from '../../../../functions/domain/sources/classify.js';

const trusted = ['media.example.com', 'CDN.Example.org', 'localhost', '127.0.0.1', '[::1]'];
const classify = (raw: string, allowLoopback = false) => classifySourceUrl(raw, trusted, { allowLoopback });

function codeOf(raw: string, allowLoopback = false): string {
  try {
    classify(raw, allowLoopback);
    return 'accepted';
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

describe('built-in providers', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'youtube'],
    ['https://youtu.be/dQw4w9WgXcQ', 'youtube'],
    ['https://WWW.YouTube.COM/watch?v=x', 'youtube'],
    ['https://www.youtube.com./watch?v=x', 'youtube'],
    ['https://vimeo.com/76979871', 'vimeo'],
    ['https://clips.twitch.tv/SomeClip', 'twitch'],
    ['https://www.tiktok.com/@user/video/1', 'tiktok'],
    ['https://x.com/user/status/1', 'x'],
    ['https://twitter.com/user/status/1', 'x'],
    ['https://fb.watch/abc/', 'facebook'],
    ['https://www.instagram.com/reel/abc/', 'instagram'],
    ['https://us06web.zoom.us/rec/share/abc', 'zoom'],
    ['https://zoom.us/rec/play/abc', 'zoom'],
    ['https://www.loom.com/share/abc', 'loom'],
    ['https://drive.google.com/file/d/abc/view', 'google_drive'],
    ['https://www.dropbox.com/s/abc/clip.mp4?dl=0', 'dropbox'],
    ['https://1drv.ms/v/s!abc', 'onedrive'],
    ['https://onedrive.live.com/redir?resid=1&authkey=2', 'onedrive'],
    ['https://contoso-my.sharepoint.com/:v:/g/personal/a/b', 'onedrive'],
    ['https://my-bucket.s3.amazonaws.com/clip.mp4?X-Amz-Signature=s', 's3'],
    ['https://my.dotted.bucket.s3.eu-west-1.amazonaws.com/clip.mp4', 's3'],
    ['https://s3.us-east-1.amazonaws.com/my-bucket/clip.mp4', 's3'],
    ['https://s3-us-west-2.amazonaws.com/my-bucket/clip.mp4', 's3'],
    ['https://s3.amazonaws.com/my-bucket/clip.mp4', 's3'],
    ['https://bucket.s3.dualstack.ap-southeast-2.amazonaws.com/clip.mp4', 's3'],
    ['https://bucket.s3-accelerate.amazonaws.com/clip.mp4', 's3'],
    ['https://s3.us-gov-west-1.amazonaws.com/b/clip.mp4', 's3'],
    ['https://storage.googleapis.com/bucket/clip.mp4?X-Goog-Signature=s', 'gcs'],
    ['https://bucket.storage.googleapis.com/clip.mp4', 'gcs'],
  ])('%s -> %s', (raw, id) => {
    const { origin } = classify(raw);
    expect(origin.kind === 'provider' && origin.provider.id).toBe(id);
  });

  it('upgrades plain http to https and drops the fragment and a trailing dot', () => {
    const { url } = classify('http://www.youtube.com./watch?v=x#t=10');
    expect(url.href).toBe('https://www.youtube.com/watch?v=x');
  });

  it('refuses a provider host on another port', () => {
    expect(codeOf('https://www.youtube.com:8443/watch?v=x')).toBe('untrusted_source_url');
  });

  it.each([
    // Suffix and prefix attacks on the S3 and GCS rules.
    'https://evil-s3.amazonaws.com.attacker.net/clip.mp4',
    'https://s3.amazonaws.com.attacker.net/clip.mp4',
    'https://bucket.s3.amazonaws.com.attacker.net/clip.mp4',
    'https://evil-s3.amazonaws.com/clip.mp4',
    'https://evils3.amazonaws.com/clip.mp4',
    'https://s3.evil.amazonaws.com/clip.mp4',
    'https://ec2-1-2-3-4.compute-1.amazonaws.com/clip.mp4',
    'https://amazonaws.com/clip.mp4',
    'https://s3.amazonaws.co/clip.mp4',
    'https://s3.amazonaws.com-attacker.net/clip.mp4',
    'https://attacker.net/s3.amazonaws.com/clip.mp4',
    'https://attacker.net/?host=s3.amazonaws.com',
    'https://storage.googleapis.com.attacker.net/clip.mp4',
    'https://evilstorage.googleapis.com/clip.mp4',
    'https://googleapis.com/clip.mp4',
    // Exact hosts only: no suffix or lookalike matches for the others.
    'https://youtube.com.attacker.net/watch?v=x',
    'https://notyoutube.com/watch?v=x',
    'https://evil.youtube.com/watch?v=x',
    'https://dropbox.com.attacker.net/s/x',
    'https://sharepoint.com/x',
    'https://a.b.sharepoint.com/x',
    'https://zoom.us.attacker.net/rec/share/x',
    'https://evilzoom.us/rec/share/x',
    'https://a.b.zoom.us/rec/share/x',
  ])('refuses %s', (raw) => {
    expect(codeOf(raw)).toBe('untrusted_source_url');
  });
});

describe('trusted hosts', () => {
  it('accepts the exact host over https, case-insensitively', () => {
    expect(classify('https://MEDIA.example.com/clip.mp4').origin).toEqual({ kind: 'trusted_host', host: 'media.example.com' });
    expect(classify('https://cdn.example.org/a/b.mp4?sig=1').origin).toEqual({ kind: 'trusted_host', host: 'cdn.example.org' });
    expect(classify('https://media.example.com.:8443/clip.mp4').url.host).toBe('media.example.com:8443');
  });

  it.each([
    ['a subdomain of a trusted host', 'https://sub.media.example.com/clip.mp4'],
    ['a parent of a trusted host', 'https://example.com/clip.mp4'],
    ['a lookalike suffix', 'https://media.example.com.attacker.net/clip.mp4'],
    ['plain http to a trusted host', 'http://media.example.com/clip.mp4'],
    ['an unknown host', 'https://attacker.net/clip.mp4'],
    ['credentials', 'https://user:pass@media.example.com/clip.mp4'],
    ['a user name alone', 'https://user@media.example.com/clip.mp4'],
    ['credentials on a provider', 'https://user:pass@www.youtube.com/watch?v=x'],
  ])('refuses %s', (_why, raw) => {
    expect(codeOf(raw)).toBe('untrusted_source_url');
  });
});

describe('addresses and loopback', () => {
  it.each([
    'https://10.0.0.1/clip.mp4',
    'https://192.168.1.1/clip.mp4',
    'https://169.254.169.254/latest/meta-data/',
    'https://8.8.8.8/clip.mp4',
    'https://[2001:4860:4860::8888]/clip.mp4',
    'https://[::ffff:127.0.0.1]/clip.mp4',
    'https://[fd00::1]/clip.mp4',
    // Decimal, octal, hex and short IPv4 spellings: the URL parser turns them into dotted quads.
    'https://2130706433/clip.mp4',
    'https://0177.0.0.1/clip.mp4',
    'https://0x7f.0.0.1/clip.mp4',
    'https://0x7f000001/clip.mp4',
    'https://127.1/clip.mp4',
    'https://3232235777/clip.mp4',
    'https://0xa9.0xfe.0xa9.0xfe/clip.mp4',
    'https://localhost/clip.mp4',
    'https://media.localhost/clip.mp4',
    'http://localhost:8080/clip.mp4',
    'http://127.0.0.1:8080/clip.mp4',
    'http://[::1]:8080/clip.mp4',
  ])('refuses %s without allowLoopback', (raw) => {
    expect(codeOf(raw)).toBe('untrusted_source_url');
  });

  it.each([
    'http://localhost:8080/clip.mp4',
    'https://localhost/clip.mp4',
    'http://127.0.0.1:8080/clip.mp4',
    'http://[::1]:8080/clip.mp4',
    'http://2130706433:8080/clip.mp4',
  ])('accepts a trusted loopback host with allowLoopback: %s', (raw) => {
    expect(classify(raw, true).origin.kind).toBe('trusted_host');
  });

  it('still refuses untrusted loopback, private addresses and credentials with allowLoopback', () => {
    expect(() => classifySourceUrl('http://127.0.0.1:8080/clip.mp4', ['media.example.com'], { allowLoopback: true })).toThrow(ApiError);
    expect(codeOf('http://127.0.0.2:8080/clip.mp4', true)).toBe('untrusted_source_url');
    expect(codeOf('http://10.0.0.1/clip.mp4', true)).toBe('untrusted_source_url');
    expect(codeOf('http://user:pass@localhost:8080/clip.mp4', true)).toBe('untrusted_source_url');
  });
});

describe('not a URL', () => {
  it.each([
    '',
    'clip.mp4',
    '/clip.mp4',
    'www.youtube.com/watch?v=x',
    'ftp://media.example.com/clip.mp4',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:video/mp4;base64,AAAA',
    'https://',
  ])('%j is validation_failed on source_url', (raw) => {
    const error = (() => {
      try {
        classify(raw);
      } catch (caught) {
        return caught as ApiError;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'validation_failed', param: 'source_url' });
  });

  it('never repeats the URL in a message', () => {
    for (const raw of ['https://attacker.net/clip.mp4?X-Amz-Signature=SECRET', 'https://u:SECRET@media.example.com/x', 'ht!tp://SECRET']) {
      try {
        classify(raw);
      } catch (error) {
        expect((error as Error).message).not.toContain('SECRET');
      }
    }
  });
});
