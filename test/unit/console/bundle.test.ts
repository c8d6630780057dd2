/** The console's build (console/build.ts): what index.html loads, the CSP it allows, and the first page's gzipped budget (issue 28: <= 150 KB). */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildConsole } from '../../../console/build.js';

describe('buildConsole', () => {
  it('writes index.html around one hashed script and stylesheet, nothing inline, within 150 KB gzipped', async () => {
    const assets = await buildConsole();
    const index = assets.find((a) => a.path === 'index.html');
    expect(index?.contentType).toMatch(/^text\/html/);
    const html = new TextDecoder().decode(index?.body);
    // Under script-src 'self' / style-src 'self' an inline script, handler or style would be blocked.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    const loaded = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(loaded).toEqual([expect.stringMatching(/^assets\/main-[A-Z0-9]{8}\.css$/), expect.stringMatching(/^assets\/main-[A-Z0-9]{8}\.js$/)]);
    const firstPage = loaded.map((path) => {
      const asset = assets.find((a) => a.path === path);
      if (!asset) throw new Error(`index.html loads ${path}, which the build did not produce`);
      return asset;
    });
    const gzipped = firstPage.reduce((sum, asset) => sum + gzipSync(asset.body, { level: 9 }).byteLength, 0);
    console.log(`Console first page: ${firstPage.map((a) => `${a.path} ${a.body.byteLength} B`).join(', ')}; ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
  });
});
