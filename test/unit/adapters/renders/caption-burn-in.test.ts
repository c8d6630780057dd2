/**
 * Caption burn-in with the real ffmpeg (the npm-shipped static build, with libass): the filter
 * and its escaping, the render command line with captions, and the font libass picks, which must
 * be a bundled file (dejavu-fonts-ttf) whatever fonts the host has.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFontsDir, burnInFilter, filterGraphValue, prepareBurnIn } from '../../../../functions/adapters/renders/caption-burn-in.js';
import { renderArgs } from '../../../../functions/adapters/renders/ffmpeg-render.js';
import { runTool } from '../../../../functions/adapters/signals/ffmpeg-process.js';
import { captionScript } from '../../../../functions/domain/renders/captions.js';
import { CAPTION_PRESETS, FONTS } from '../../../../functions/domain/renders/presets.js';
import { ffmpegPath } from '../../../helpers/ground-truth-media.js';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'caption-burn-in-test-'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('filterGraphValue', () => {
  it('escapes option separators, then graph separators', () => {
    expect(filterGraphValue('/tmp/render-abc/captions.ass')).toBe('/tmp/render-abc/captions.ass');
    // `:` is escaped once for the option list, and that backslash again for the graph.
    expect(filterGraphValue('C:/a')).toBe('C\\\\:/a');
    expect(filterGraphValue('a,b;c[d]')).toBe('a\\,b\\;c\\[d\\]');
  });
});

describe('renderArgs with captions', () => {
  it('draws the script over the framed output and maps the captioned picture', async () => {
    const burnIn = await prepareBurnIn(workDir, 'script', bundledFontsDir());
    const plan = {
      output: { width: 1080, height: 1920 },
      panels: [{ crop: { x: 0, y: 0, width: 202, height: 360 }, place: { x: 0, y: 0, width: 1080, height: 1920 } }],
    };
    const args = renderArgs({ sourceUrl: 'https://example.com/s.mp4', segments: [{ startMs: 0, endMs: 5_000 }] }, plan, true, '/tmp/out.mp4', burnIn);
    const graph = args[args.indexOf('-filter_complex') + 1] ?? '';
    expect(graph.endsWith(`;[vout]${burnInFilter(burnIn)}[vcaptioned]`)).toBe(true);
    expect(args.slice(args.indexOf('-map'), args.indexOf('-map') + 4)).toEqual(['-map', '[vcaptioned]', '-map', '[aout]']);
    const plain = renderArgs({ sourceUrl: 'https://example.com/s.mp4', segments: [{ startMs: 0, endMs: 5_000 }] }, plan, true, '/tmp/out.mp4');
    expect(plain).toContain('[vout]');
    expect(plain.join(' ')).not.toContain('ass=');
  });
});

describe('burning in', () => {
  it.each(CAPTION_PRESETS.map((p) => [p.id, FONTS.find((f) => f.id === p.font_id)!] as const))(
    '%s: libass draws with the bundled font file, never a font of the host',
    async (presetId, font) => {
      const dir = await mkdtemp(join(workDir, `${presetId}-`));
      const script = captionScript([{ text: 'Hello world', startMs: 0, endMs: 900 }], presetId, { width: 540, height: 960 }, 1_000);
      const burnIn = await prepareBurnIn(dir, script, bundledFontsDir());
      const run = await runTool(
        ffmpegPath(),
        ['-v', 'debug', '-hide_banner', '-f', 'lavfi', '-i', 'color=c=gray:s=540x960:d=1', '-vf', burnInFilter(burnIn), '-frames:v', '1', '-f', 'null', '-'],
        { timeoutMs: 60_000, maxOutputBytes: 16 * 1024 * 1024, env: { FONTCONFIG_FILE: burnIn.fontconfigFile } },
      );
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      // libass names the face it chose: a font given through fontsdir (a memory font, named by its
      // PostScript name alone) or one under the bundled directory; a host font would show its path.
      const selections = run.stderr.split('\n').filter((line) => line.includes('fontselect:'));
      expect(selections.length, run.stderr.slice(-2000)).toBeGreaterThan(0);
      const postscriptName = font.file.replace(/\.ttf$/, '');
      for (const line of selections) {
        expect(line).toContain(`(${font.family}, ${font.style === 'Bold' ? 700 : 400}, 0)`);
        const chosen = line.split('->')[1]?.trim() ?? '';
        expect(chosen.startsWith(`${postscriptName},`) || chosen.startsWith(join(bundledFontsDir(), font.file)), line).toBe(true);
      }
      expect(run.stderr).not.toMatch(/\/usr\/share\/fonts|Fontconfig warning/);
    },
    60_000,
  );
});
