/** renderTimeline (packages/cli/src/timeline.ts): well-formed SVG, bars placed by time and scaled by score, lanes, ticks, escaping. */
import { describe, expect, it } from 'vitest';
import {
  escapeXml,
  laneOf,
  layout,
  mmss,
  renderTimeline,
  renderTimelineHtml,
  tickStepSeconds,
  xOf,
  type TimelineObservation,
  type TimelineRun,
} from '../../../packages/cli/src/timeline.js';

const run: TimelineRun = {
  run_id: 'run_0193a4b1c2d37e8f9a0b1c2d3e4f5a63',
  scanner_id: 'scn_0193a4b1c2d37e8f9a0b1c2d3e4f5a61',
  scanner_version: 2,
  source: { kind: 'upload', upload_id: 'upl_0193a4b1c2d37e8f9a0b1c2d3e4f5a62', media_kind: 'video', duration_ms: 120_000 },
  window: null,
};

const moment = (start_ms: number, end_ms: number, relevance_score: number, title: string, event_type = 'scene_change'): TimelineObservation => ({
  type: 'find_moments',
  value: { event_type, moment_id: 'mom_x' },
  title,
  relevance_score,
  evidence: { start_ms, end_ms },
});

/**
 * A simple well-formedness check: tags nest and close, attributes are quoted and unique, and text
 * and attribute values hold no raw `<` and only the five XML entities or numeric references.
 * Throws on the first problem.
 */
function checkXml(xml: string): void {
  const entity = /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i;
  const stack: string[] = [];
  let at = 0;
  for (const match of xml.matchAll(/<[^>]*>/g)) {
    const text = xml.slice(at, match.index);
    if (text.includes('<') || text.includes('>') || entity.test(text)) throw new Error(`bad text before offset ${match.index}: ${text}`);
    at = match.index + match[0].length;
    const tag = match[0];
    const close = /^<\/([\w:-]+)\s*>$/.exec(tag);
    if (close) {
      if (stack.pop() !== close[1]) throw new Error(`</${close[1]}> closes nothing open at offset ${match.index}`);
      continue;
    }
    const open = /^<([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>$/.exec(tag);
    if (!open) throw new Error(`malformed tag at offset ${match.index}: ${tag}`);
    const names = [...(open[2] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)].map((attribute) => {
      if (entity.test(attribute[2] ?? '')) throw new Error(`bad attribute value in ${tag}`);
      return attribute[1];
    });
    if (new Set(names).size !== names.length) throw new Error(`duplicate attribute in ${tag}`);
    if (!open[3]) stack.push(open[1] ?? '');
  }
  if (xml.slice(at).trim()) throw new Error('text after the root element');
  if (stack.length) throw new Error(`unclosed: ${stack.join(', ')}`);
}

const bars = (svg: string) =>
  [...svg.matchAll(/<rect class="observation" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*data-start-ms="(\d+)"/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    width: Number(m[3]),
    height: Number(m[4]),
    start: Number(m[5]),
  }));

describe('renderTimeline', () => {
  it('is well-formed XML with one bar per observation, and the checker catches what is not', () => {
    const svg = renderTimeline(run, [
      moment(0, 10_000, 0.9, 'Cut'),
      moment(30_000, 45_000, 0.5, 'Another'),
      { type: 'summarizer', value: 'text', title: 'Gist', relevance_score: 0.7, evidence: { start_ms: 0, end_ms: 120_000 } },
    ]);
    expect(() => checkXml(svg)).not.toThrow();
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(bars(svg)).toHaveLength(3);
    expect(() => checkXml('<svg><text>a < b</text></svg>')).toThrow();
    expect(() => checkXml('<svg><g></svg>')).toThrow();
    expect(() => checkXml('<svg><text x="1" x="2">R&D</text></svg>')).toThrow();
  });

  it('positions bars by time over the source duration and scales their height by score', () => {
    const svg = renderTimeline(run, [moment(0, 12_000, 1, 'Start'), moment(60_000, 90_000, 0.5, 'Middle'), moment(108_000, 120_000, 0.25, 'End')]);
    const [start, middle, end] = bars(svg);
    const plot = layout.width - layout.left - layout.right;
    expect(start?.x).toBe(layout.left);
    expect(middle?.x).toBeCloseTo(layout.left + plot / 2, 1);
    expect(middle?.width).toBeCloseTo(plot / 4, 1);
    expect(end?.x).toBeCloseTo(layout.left + plot * 0.9, 1);
    expect((end?.x ?? 0) + (end?.width ?? 0)).toBeCloseTo(layout.width - layout.right, 1);
    // Same lane: bottoms align; heights follow the scores.
    expect(middle?.height).toBeCloseTo((start?.height ?? 0) / 2, 1);
    expect(end?.height).toBeCloseTo((start?.height ?? 0) / 4, 1);
    expect((start?.y ?? 0) + (start?.height ?? 0)).toBeCloseTo((end?.y ?? 0) + (end?.height ?? 0), 1);
    expect(xOf(60_000, 120_000)).toBe(middle?.x);
  });

  it('draws one lane per event type (find_moments) or scanner type, sorted, with moments labelled', () => {
    const svg = renderTimeline(run, [
      moment(0, 5_000, 0.8, 'Laugh', 'funny'),
      moment(10_000, 15_000, 0.6, 'Cut', 'scene_change'),
      moment(20_000, 25_000, 0.4, 'Giggle', 'funny'),
    ]);
    expect([...svg.matchAll(/data-lane="([^"]+)"/g)].map((m) => m[1])).toEqual(['funny', 'scene_change']);
    const [laugh, cut, giggle] = bars(svg);
    // funny is lane 0, scene_change lane 1: its bar's bottom is one lane lower.
    expect((cut?.y ?? 0) + (cut?.height ?? 0) - ((laugh?.y ?? 0) + (laugh?.height ?? 0))).toBe(layout.laneHeight + layout.laneGap);
    expect((giggle?.y ?? 0) + (giggle?.height ?? 0)).toBe((laugh?.y ?? 0) + (laugh?.height ?? 0));
    expect(svg.match(/<text class="label"[^>]*>([^<]*)<\/text>/g)?.map((t) => t.replace(/<[^>]+>/g, ''))).toEqual(['Laugh', 'Cut', 'Giggle']);
    expect(laneOf({ type: 'monitor', value: true, title: 't', relevance_score: 1, evidence: { start_ms: 0, end_ms: 1 } })).toBe('monitor');
    // Only moments carry labels; other types keep their title as a tooltip.
    const monitor = renderTimeline(run, [{ type: 'monitor', value: true, title: 'Alarm', relevance_score: 1, evidence: { start_ms: 0, end_ms: 1000 } }]);
    expect(monitor).not.toContain('class="label"');
    expect(monitor).toContain('<title>Alarm (0:00-0:01, score 1.00)</title>');
  });

  it('escapes titles and event types holding <, &, " and \'', () => {
    const title = `<script>alert("x")</script> & 'more'`;
    const svg = renderTimeline(run, [moment(0, 10_000, 0.5, title, 'a<b&"c"')]);
    expect(() => checkXml(svg)).not.toThrow();
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;');
    expect(svg).toContain('data-lane="a&lt;b&amp;&quot;c&quot;"');
    expect(escapeXml('a&b<c>d"e\'f')).toBe('a&amp;b&lt;c&gt;d&quot;e&#39;f');
    const html = renderTimelineHtml(run, [moment(0, 10_000, 0.5, title, 'a<b&"c"')]);
    expect(html).not.toContain('<script>');
    expect(html).toContain('a&lt;b&amp;&quot;c&quot; (1)');
  });

  it('ticks the axis in m:ss at a step that keeps ten ticks or fewer', () => {
    expect(mmss(0)).toBe('0:00');
    expect(mmss(65_000)).toBe('1:05');
    expect(mmss(4_500_000)).toBe('75:00');
    expect(tickStepSeconds(120_000)).toBe(15);
    expect(tickStepSeconds(30_000)).toBe(5);
    expect(tickStepSeconds(3 * 3600_000)).toBe(1800);
    const svg = renderTimeline(run, []);
    const ticks = [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="middle">(\d+:\d\d)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toEqual(['0:00', '0:15', '0:30', '0:45', '1:00', '1:15', '1:30', '1:45', '2:00']);
  });

  it('an empty run still draws its axis, says so, and shades the analysed window', () => {
    const svg = renderTimeline({ ...run, window: { analysis_start_seconds: 30, analysis_end_seconds: 90 } }, []);
    expect(() => checkXml(svg)).not.toThrow();
    expect(svg).toContain('No observations');
    const window = /<rect class="window" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg);
    expect(Number(window?.[1])).toBeCloseTo(xOf(30_000, 120_000), 1);
    expect(Number(window?.[2])).toBeCloseTo(xOf(90_000, 120_000) - xOf(30_000, 120_000), 1);
  });

  it('the HTML page wraps the same SVG with a legend of lanes and counts', () => {
    const observations = [moment(0, 5_000, 0.8, 'Laugh', 'funny'), moment(10_000, 15_000, 0.6, 'Cut')];
    const html = renderTimelineHtml(run, observations);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(renderTimeline(run, observations).trimEnd());
    expect(html).toMatch(/<li><span class="swatch" style="background:#[0-9a-f]{6}"><\/span>funny \(1\)<\/li>/);
    expect(html).toContain('scene_change (1)');
    expect(() => checkXml(html.replace('<!doctype html>', '').replace('<meta charset="utf-8">', '<meta charset="utf-8"/>'))).not.toThrow();
  });
});
