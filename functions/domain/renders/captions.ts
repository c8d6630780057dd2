/**
 * Burned-in captions (DESIGN 10): a moment's words, as the transcriber timed them, mapped to the
 * rendered clip's time, grouped into short lines, and written as an ASS script in a caption
 * preset's style for libass to draw. Pure: the renderer adapter burns the script in.
 */
import type { MomentWord } from '../runs/model.js';
import { CAPTION_PRESETS, FONTS, type CaptionPresetId } from './presets.js';

/** A word on the rendered clip's timeline (milliseconds from its first frame). */
export interface CaptionWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** One caption line: shown from its first word's start to `endMs`. */
interface CaptionLine {
  words: CaptionWord[];
  startMs: number;
  endMs: number;
}

/** A line never stays up longer than this, however few its words: reading pace, not a subtitle block. */
export const MAX_LINE_MS = 2_500;
/** A silence this long between two words ends the line: captions follow the speaker's phrasing. */
export const LINE_BREAK_PAUSE_MS = 600;
/** A line stays this long after its last word (unless the next line starts sooner), so it can be read. */
const LINGER_MS = 400;

/** Preset sizes are in pixels of a 1080-wide output. */
const REFERENCE_WIDTH = 1080;

/**
 * The moment's words on the output timeline: the clip is its segments (the moment's span, or the
 * subclips `speech_cleanup: tight` kept) played back to back. A word belongs to the segment that
 * holds its middle, is clipped to that segment and shifted by the time cut before it; a word
 * whose middle fell in a removed pause is dropped (it was cut from the audio too).
 */
export function wordsOnOutputTimeline(words: readonly MomentWord[], segments: readonly { startMs: number; endMs: number }[]): CaptionWord[] {
  const placed: CaptionWord[] = [];
  let offsetMs = 0;
  const starts = segments.map((segment) => {
    const start = offsetMs;
    offsetMs += segment.endMs - segment.startMs;
    return start;
  });
  for (const word of [...words].sort((a, b) => a.start_ms - b.start_ms)) {
    const middle = (word.start_ms + word.end_ms) / 2;
    const index = segments.findIndex((s) => middle >= s.startMs && middle < s.endMs);
    const segment = segments[index];
    if (!segment) continue;
    const shift = (starts[index] ?? 0) - segment.startMs;
    const startMs = Math.max(word.start_ms, segment.startMs) + shift;
    const endMs = Math.min(word.end_ms, segment.endMs) + shift;
    const text = word.text.trim();
    if (text && endMs > startMs) placed.push({ text, startMs, endMs });
  }
  return placed;
}

/**
 * Words grouped into lines: a new line after `maxWords` words, when the line would pass
 * MAX_LINE_MS, or after a pause of LINE_BREAK_PAUSE_MS. A line ends LINGER_MS after its last word
 * or where the next one starts, whichever is first, and never past the clip.
 */
export function captionLines(words: readonly CaptionWord[], maxWords: number, clipMs: number): CaptionLine[] {
  const groups: CaptionWord[][] = [];
  for (const word of words) {
    const line = groups.at(-1);
    const previous = line?.at(-1);
    const fits =
      line && previous && line.length < maxWords && word.endMs - line[0]!.startMs <= MAX_LINE_MS && word.startMs - previous.endMs < LINE_BREAK_PAUSE_MS;
    if (fits) line.push(word);
    else groups.push([word]);
  }
  // Lines never overlap: libass would stack two lines shown at once, one above the other.
  return groups.map((group, i) => {
    const nextStart = Math.min(groups[i + 1]?.[0]?.startMs ?? clipMs, clipMs);
    return { words: group, startMs: group[0]!.startMs, endMs: Math.min(group.at(-1)!.endMs + LINGER_MS, nextStart) };
  });
}

/** `#RRGGBB` as ASS writes colours: `&HAABBGGRR` (alpha 00: opaque). */
export function assColour(hex: string): string {
  const [, r = '00', g = '00', b = '00'] = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex) ?? [];
  return `&H00${b}${g}${r}`.toUpperCase();
}

/** Inline colour override (`\c`): `&HBBGGRR&`. */
const inlineColour = (hex: string) => `&H${assColour(hex).slice(4)}&`;

/** ASS timestamps: H:MM:SS.cc (centiseconds). */
export function assTime(ms: number): string {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360_000);
  const m = Math.floor((cs % 360_000) / 6_000);
  const s = Math.floor((cs % 6_000) / 100);
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(cs % 100).padStart(2, '0')}`;
}

/**
 * A word as literal ASS text. libass reads `{...}` as override tags and `\N`, `\n`, `\h` as
 * breaks and spaces: braces are escaped (`\{`, `\}`), a backslash is followed by a word joiner
 * (U+2060, invisible) so it can start no sequence, and line breaks or tabs inside a word become
 * spaces (an ASS event is one line of the file).
 */
export function assText(text: string): string {
  return text
    .replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ')
    .replace(/\\/g, '\\\u2060')
    .replace(/[{}]/g, (brace) => `\\${brace}`)
    .trim();
}

/** The output frame the captions are drawn on. */
interface CaptionCanvas {
  width: number;
  height: number;
}

/** Where a preset puts its lines: ASS numpad alignment and the vertical margin as a share of the height. */
const PLACEMENT = {
  bottom: { alignment: 2, marginShare: 0.08 },
  lower_third: { alignment: 2, marginShare: 0.25 },
  center: { alignment: 5, marginShare: 0 },
} as const;

/**
 * The ASS script of a moment's captions in a preset's style (the caller renders a moment
 * without words without captions). Sizes scale with the output width;
 * the font is named by the family of the preset's bundled font (the renderer gives libass only
 * the bundled fonts). Presets with `word_highlight` get one event per word: the line with the
 * word being spoken in the highlight colour, from its start to the next word's.
 */
export function captionScript(words: readonly CaptionWord[], presetId: CaptionPresetId, canvas: CaptionCanvas, clipMs: number): string {
  const preset = CAPTION_PRESETS.find((p) => p.id === presetId);
  const font = preset && FONTS.find((f) => f.id === preset.font_id);
  if (!preset || !font) throw new Error(`Unknown caption preset ${presetId}`);
  const lines = captionLines(words, preset.max_words_per_line, clipMs);

  const scale = canvas.width / REFERENCE_WIDTH;
  const placement = PLACEMENT[preset.position];
  const bold = font.style === 'Bold' ? -1 : 0;
  const style = [
    'Caption',
    font.family,
    Math.round(preset.font_size * scale),
    assColour(preset.text_color),
    assColour(preset.highlight_color ?? preset.text_color),
    assColour(preset.outline_color),
    '&H80000000',
    bold,
    0,
    0,
    0,
    100,
    100,
    0,
    0,
    // BorderStyle 1: outline (no box), no shadow.
    1,
    Math.max(1, Math.round(preset.outline_width * scale * 10) / 10),
    0,
    placement.alignment,
    Math.round(canvas.width * 0.06),
    Math.round(canvas.width * 0.06),
    Math.round(canvas.height * placement.marginShare),
    1,
  ].join(',');

  const shown = (word: CaptionWord) => assText(preset.uppercase ? word.text.toUpperCase() : word.text);
  const dialogue = (startMs: number, endMs: number, text: string) => `Dialogue: 0,${assTime(startMs)},${assTime(endMs)},Caption,,0,0,0,,${text}`;
  // Events of one line follow each other without overlap (each word's lasts until the next
  // word starts), for the reason lines do; an event that would last no time is left out.
  const events = lines.flatMap((line) => {
    if (!preset.word_highlight || !preset.highlight_color)
      return line.endMs > line.startMs ? [dialogue(line.startMs, line.endMs, line.words.map(shown).join(' '))] : [];
    const highlight = inlineColour(preset.highlight_color);
    return line.words.flatMap((word, i) => {
      const endMs = Math.min(line.words[i + 1]?.startMs ?? line.endMs, line.endMs);
      const text = line.words.map((w, j) => (j === i ? `{\\c${highlight}}${shown(w)}{\\r}` : shown(w))).join(' ');
      return endMs > word.startMs ? [dialogue(word.startMs, endMs, text)] : [];
    });
  });

  return [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${canvas.width}`,
    `PlayResY: ${canvas.height}`,
    // 0: smart wrapping, should a line be wider than the frame (long words at large sizes).
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    'YCbCr Matrix: TV.709',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    `Style: ${style}`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...events,
    '',
  ].join('\n');
}
