/**
 * Burning captions in with libass (ffmpeg's `ass` filter), with the fonts the service ships and
 * nothing else: `fontsdir` hands libass the bundled TTFs, and the ffmpeg process gets a
 * fontconfig configuration whose only font directory is that same one, so neither a family
 * lookup nor a glyph fallback can reach the host's fonts (which differ between a laptop, CI and
 * the task image, and may be none at all).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { FONT_PACKAGE, FONTS } from '../../domain/renders/presets.js';

/** The ttf/ directory of the bundled font package (presets.ts names its files). */
export function bundledFontsDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${FONT_PACKAGE}/package.json`)), 'ttf');
}

/** The files a deployment carries as its fonts directory: the fonts presets name and their licence, from the pinned package. */
export function shippedFontFiles(): { name: string; source: string }[] {
  const packageDir = join(bundledFontsDir(), '..');
  return [...FONTS.map((font) => ({ name: font.file, source: join(packageDir, 'ttf', font.file) })), { name: 'LICENSE', source: join(packageDir, 'LICENSE') }];
}

/** Every font a preset can name must be in the directory: a missing one would be a silent fallback. */
function checkFontsDir(fontsDir: string): void {
  const missing = FONTS.filter((font) => !existsSync(join(fontsDir, font.file))).map((font) => font.file);
  if (missing.length) throw new Error(`the caption fonts directory ${fontsDir} lacks ${missing.join(', ')}`);
}

/**
 * A value inside a filter graph, escaped for both levels ffmpeg parses it at: the filter's
 * option list (`:` separates options) and the graph (`,` `;` `[` `]` separate filters and labels).
 */
export function filterGraphValue(value: string): string {
  const option = value.replace(/[\\':]/g, (c) => `\\${c}`);
  return option.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** What the render's ffmpeg needs to burn captions in. */
export interface CaptionBurnIn {
  /** The ASS script. */
  scriptPath: string;
  fontsDir: string;
  /** The fontconfig file of the ffmpeg process (FONTCONFIG_FILE). */
  fontconfigFile: string;
}

/** The `ass` filter that draws the script over the framed picture. */
export const burnInFilter = (burnIn: CaptionBurnIn): string =>
  `ass=filename=${filterGraphValue(burnIn.scriptPath)}:fontsdir=${filterGraphValue(burnIn.fontsDir)}`;

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Writes the script and a fontconfig file that knows only `fontsDir` (its cache beside it, in the render's scratch directory). */
export async function prepareBurnIn(workDir: string, script: string, fontsDir: string): Promise<CaptionBurnIn> {
  checkFontsDir(fontsDir);
  const scriptPath = join(workDir, 'captions.ass');
  const fontconfigFile = join(workDir, 'fonts.conf');
  await writeFile(scriptPath, script, 'utf8');
  await writeFile(
    fontconfigFile,
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      `<fontconfig><dir>${xmlText(fontsDir)}</dir><cachedir>${xmlText(join(workDir, 'fontconfig-cache'))}</cachedir></fontconfig>`,
      '',
    ].join('\n'),
    'utf8',
  );
  return { scriptPath, fontsDir, fontconfigFile };
}
