/** Captions as ASS (functions/domain/renders/captions.ts): time mapping through the cut, line grouping, style, highlight, escaping. */
import { describe, expect, it } from 'vitest';
import {
  assColour,
  assText,
  assTime,
  captionLines,
  captionScript,
  LINE_BREAK_PAUSE_MS,
  MAX_LINE_MS,
  wordsOnOutputTimeline,
  type CaptionWord,
} from '../../../../functions/domain/renders/captions.js';
import type { MomentWord } from '../../../../functions/domain/runs/model.js';

const word = (text: string, start_ms: number, end_ms: number): MomentWord => ({ text, start_ms, end_ms });
const at = (text: string, startMs: number, endMs: number): CaptionWord => ({ text, startMs, endMs });

/** The Dialogue lines of a script as [start, end, text]. */
const dialogues = (script: string) =>
  script
    .split('\n')
    .filter((line) => line.startsWith('Dialogue: '))
    .map((line) => {
      const fields = line.slice('Dialogue: '.length).split(',');
      return [fields[1], fields[2], fields.slice(9).join(',')];
    });

describe('wordsOnOutputTimeline', () => {
  it('continuous: words shift by the moment start, and words outside it are dropped', () => {
    const words = [word('before', 9_000, 9_400), word('hello', 10_200, 10_600), word('world', 10_700, 11_100), word('after', 20_100, 20_500)];
    expect(wordsOnOutputTimeline(words, [{ startMs: 10_000, endMs: 20_000 }])).toEqual([at('hello', 200, 600), at('world', 700, 1_100)]);
  });

  it('subclips: words in removed pauses drop, later words move up by the time cut before them', () => {
    // Kept: 10.0-11.0 s and 12.0-13.0 s; the pause 11.0-12.0 s is cut.
    const segments = [
      { startMs: 10_000, endMs: 11_000 },
      { startMs: 12_000, endMs: 13_000 },
    ];
    const words = [word('one', 10_100, 10_500), word('um', 11_300, 11_600), word('two', 12_200, 12_600), word('edge', 12_800, 13_100)];
    expect(wordsOnOutputTimeline(words, segments)).toEqual([
      at('one', 100, 500),
      // 12.2 s of source is 1.2 s into the clip: 1 s of the first subclip, then 0.2 s.
      at('two', 1_200, 1_600),
      // Clipped to its subclip's end.
      at('edge', 1_800, 2_000),
    ]);
  });

  it('a word straddling a cut belongs to the side holding its middle, clipped to it', () => {
    const segments = [
      { startMs: 0, endMs: 1_000 },
      { startMs: 2_000, endMs: 3_000 },
    ];
    expect(wordsOnOutputTimeline([word('late', 700, 1_200)], segments)).toEqual([at('late', 700, 1_000)]);
    expect(wordsOnOutputTimeline([word('early', 1_800, 2_400)], segments)).toEqual([at('early', 1_000, 1_400)]);
  });
});

describe('captionLines', () => {
  it('breaks after max words, at pauses, and before a line outlasts MAX_LINE_MS', () => {
    const words = [
      at('a', 0, 200),
      at('b', 250, 450),
      at('c', 500, 700),
      at('d', 750, 950),
      // A pause.
      at('e', 950 + LINE_BREAK_PAUSE_MS, 1_800),
      // Slow words: the third would end past MAX_LINE_MS after the line's start.
      at('f', 1_900, 2_800),
      at('g', 2_900, 1_550 + MAX_LINE_MS + 100),
    ];
    const lines = captionLines(words, 3, 10_000);
    expect(lines.map((l) => l.words.map((w) => w.text).join(''))).toEqual(['abc', 'd', 'ef', 'g']);
  });

  it('lines linger briefly after their last word, never into the next line or past the clip', () => {
    const lines = captionLines([at('a', 0, 300), at('b', 1_000, 1_300), at('c', 1_900, 2_000)], 1, 2_100);
    expect(lines.map((l) => [l.startMs, l.endMs])).toEqual([
      [0, 700],
      [1_000, 1_700],
      [1_900, 2_100],
    ]);
  });
});

describe('ASS text and values', () => {
  it('escapes braces and backslashes, flattens line breaks', () => {
    expect(assText('{\\b1}bold')).toBe('\\{\\\u2060b1\\}bold');
    expect(assText('two\nlines\r\nhere')).toBe('two lines here');
    expect(assText('back\\Nslash')).toBe('back\\\u2060Nslash');
    expect(assText('plain')).toBe('plain');
  });

  it('colours as &HAABBGGRR, times as H:MM:SS.cc', () => {
    expect(assColour('#FFD400')).toBe('&H0000D4FF');
    expect(assColour('#4fc3f7')).toBe('&H00F7C34F');
    expect(assTime(0)).toBe('0:00:00.00');
    expect(assTime(61_234)).toBe('0:01:01.23');
    expect(assTime(3_600_000 + 5)).toBe('1:00:00.01');
  });
});

describe('captionScript', () => {
  const words = [at('hello', 0, 400), at('{big}', 450, 800), at('world', 850, 1_200), at('again', 1_250, 1_600)];

  it('bold_pop: the preset font and colours, size scaled to the output, lower third, uppercase, one event per spoken word', () => {
    const script = captionScript(words, 'bold_pop', { width: 540, height: 960 }, 5_000);
    expect(script).toContain('PlayResX: 540\nPlayResY: 960');
    const style = script
      .split('\n')
      .find((l) => l.startsWith('Style: '))!
      .slice('Style: '.length)
      .split(',');
    // Name, font, size (72 at 1080 wide -> 36), primary white, secondary highlight, outline black.
    expect(style.slice(0, 6)).toEqual(['Caption', 'DejaVu Sans', '36', '&H00FFFFFF', '&H0000D4FF', '&H00000000']);
    // Bold; alignment 2 (bottom centre) a quarter of the height up: the lower third.
    expect(style[7]).toBe('-1');
    expect(style[18]).toBe('2');
    expect(style[21]).toBe('240');
    const highlight = '{\\c&H00D4FF&}';
    expect(dialogues(script)).toEqual([
      ['0:00:00.00', '0:00:00.45', `${highlight}HELLO{\\r} \\{BIG\\} WORLD`],
      ['0:00:00.45', '0:00:00.85', `HELLO ${highlight}\\{BIG\\}{\\r} WORLD`],
      ['0:00:00.85', '0:00:01.25', `HELLO \\{BIG\\} ${highlight}WORLD{\\r}`],
      ['0:00:01.25', '0:00:02.00', `${highlight}AGAIN{\\r}`],
    ]);
  });

  it('clean: one event per line, no highlight, bottom, case kept', () => {
    const script = captionScript(words, 'clean', { width: 1080, height: 1920 }, 5_000);
    const style = script
      .split('\n')
      .find((l) => l.startsWith('Style: '))!
      .slice('Style: '.length)
      .split(',');
    expect(style.slice(1, 3)).toEqual(['DejaVu Sans', '56']);
    expect(style[7]).toBe('0');
    expect(dialogues(script)).toEqual([['0:00:00.00', '0:00:02.00', 'hello \\{big\\} world again']]);
  });

  it('headline: centred, in the serif font', () => {
    const script = captionScript(words, 'headline', { width: 1080, height: 1080 }, 5_000);
    const style = script
      .split('\n')
      .find((l) => l.startsWith('Style: '))!
      .slice('Style: '.length)
      .split(',');
    expect(style[1]).toBe('DejaVu Serif');
    expect(style[18]).toBe('5');
  });

  it('every event is one line of the file, whatever the words hold', () => {
    const script = captionScript([at('line\nbreak', 0, 500), at('}{', 500, 900)], 'typewriter', { width: 1080, height: 1920 }, 2_000);
    expect(dialogues(script)).toEqual([['0:00:00.00', '0:00:01.30', 'line break \\}\\{']]);
  });
});
