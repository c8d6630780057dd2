/**
 * `media-scanner timeline`: a run's observations on a time axis over the source duration, as SVG
 * (and an HTML page around the same SVG, with a legend). One lane per event type (find_moments:
 * value.event_type) or else per scanner type; each observation a bar from evidence.start_ms to
 * end_ms whose height is its relevance_score; moments labelled with their title. Pure functions:
 * the CLI reads the run and its observations and writes what these return.
 */
import type { Observation, Run } from '../../client/src/schema.js';

/** What the timeline reads of a run. */
export type TimelineRun = Pick<Run, 'run_id' | 'scanner_id' | 'scanner_version' | 'source' | 'window'>;
/** What the timeline reads of an observation (every Observation is one). */
export type TimelineObservation = Pick<Observation, 'type' | 'title' | 'relevance_score'> & {
  value: unknown;
  evidence: Pick<Observation['evidence'], 'start_ms' | 'end_ms'>;
};

/** Geometry of the drawing, in SVG user units. */
export const layout = { width: 960, left: 140, right: 20, top: 30, laneHeight: 64, laneGap: 8, axisHeight: 30 } as const;
const plotWidth = layout.width - layout.left - layout.right;

export const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** Text for XML content and attribute values. */
export const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** `m:ss` (minutes unbounded: 75:00 for an hour and a quarter). */
export function mmss(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/** A tick step (seconds) that puts at most 10 ticks on the axis. */
export function tickStepSeconds(durationMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  return steps.find((step) => durationMs / 1000 / step <= 10) ?? Math.ceil(durationMs / 1000 / 10 / 3600) * 3600;
}

/** The lane of an observation: its event type for find_moments, else its scanner type. */
export function laneOf(observation: TimelineObservation): string {
  const { value } = observation;
  if (observation.type === 'find_moments' && typeof value === 'object' && value !== null && 'event_type' in value) return String(value.event_type);
  return observation.type;
}

/** Lane names in alphabetical order, with their colours. */
export function lanesOf(observations: readonly TimelineObservation[]): { name: string; color: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const observation of observations) counts.set(laneOf(observation), (counts.get(laneOf(observation)) ?? 0) + 1);
  return [...counts.keys()].sort().map((name, i) => ({ name, color: palette[i % palette.length] ?? '#888', count: counts.get(name) ?? 0 }));
}

const round = (n: number) => Math.round(n * 100) / 100;
const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));
const cut = (text: string, max = 48) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The x coordinate of `ms` on an axis of `durationMs`. */
export const xOf = (ms: number, durationMs: number): number => round(layout.left + (clamp(ms, 0, durationMs) / Math.max(1, durationMs)) * plotWidth);

/** The run's observations over its source duration, as a standalone SVG document. */
export function renderTimeline(run: TimelineRun, observations: readonly TimelineObservation[]): string {
  const duration = Math.max(1, run.source.duration_ms);
  const lanes = lanesOf(observations);
  const laneIndex = new Map(lanes.map((lane, i) => [lane.name, i]));
  const lanesHeight = Math.max(1, lanes.length) * (layout.laneHeight + layout.laneGap);
  const axisY = layout.top + lanesHeight;
  const height = axisY + layout.axisHeight;
  const parts: string[] = [];

  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${height}" viewBox="0 0 ${layout.width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(`Run ${run.run_id}: ${observations.length} observation(s) over ${mmss(duration)}`)}</title>`,
    `<text x="${layout.left}" y="18" font-size="13">${escapeXml(`${run.run_id} · ${run.scanner_id} v${run.scanner_version} · ${mmss(duration)}`)}</text>`,
  );
  if (run.window) {
    const x1 = xOf(run.window.analysis_start_seconds * 1000, duration);
    const x2 = xOf(run.window.analysis_end_seconds * 1000, duration);
    parts.push(`<rect class="window" x="${x1}" y="${layout.top}" width="${round(x2 - x1)}" height="${lanesHeight}" fill="#f3f3f3"/>`);
  }
  lanes.forEach((lane, i) => {
    const y = layout.top + i * (layout.laneHeight + layout.laneGap);
    parts.push(
      `<g class="lane" data-lane="${escapeXml(lane.name)}">`,
      `<line x1="${layout.left}" y1="${y + layout.laneHeight}" x2="${layout.width - layout.right}" y2="${y + layout.laneHeight}" stroke="#ccc"/>`,
      `<text x="${layout.left - 8}" y="${y + layout.laneHeight / 2 + 4}" text-anchor="end">${escapeXml(cut(lane.name, 22))}</text>`,
      '</g>',
    );
  });
  if (!observations.length)
    parts.push(`<text x="${layout.left + plotWidth / 2}" y="${layout.top + layout.laneHeight / 2}" text-anchor="middle" fill="#666">No observations</text>`);

  for (const observation of observations) {
    const lane = laneIndex.get(laneOf(observation)) ?? 0;
    const color = lanes[lane]?.color ?? '#888';
    const x1 = xOf(observation.evidence.start_ms, duration);
    const barWidth = Math.max(1, round(xOf(observation.evidence.end_ms, duration) - x1));
    const score = clamp(observation.relevance_score, 0, 1);
    // At least 2 units high, so a score of 0 still shows where it happened.
    const barHeight = Math.max(2, round(score * (layout.laneHeight - 16)));
    const bottom = layout.top + lane * (layout.laneHeight + layout.laneGap) + layout.laneHeight;
    const tip = `${observation.title} (${mmss(observation.evidence.start_ms)}-${mmss(observation.evidence.end_ms)}, score ${observation.relevance_score.toFixed(2)})`;
    parts.push(
      `<rect class="observation" x="${x1}" y="${round(bottom - barHeight)}" width="${barWidth}" height="${barHeight}" fill="${color}" fill-opacity="0.8" data-start-ms="${observation.evidence.start_ms}" data-end-ms="${observation.evidence.end_ms}" data-score="${observation.relevance_score}"><title>${escapeXml(tip)}</title></rect>`,
    );
    if (observation.type === 'find_moments') {
      parts.push(`<text class="label" x="${x1}" y="${round(bottom - barHeight - 3)}" font-size="10">${escapeXml(cut(observation.title))}</text>`);
    }
  }

  parts.push(`<line x1="${layout.left}" y1="${axisY}" x2="${layout.width - layout.right}" y2="${axisY}" stroke="#333"/>`);
  const step = tickStepSeconds(duration) * 1000;
  for (let ms = 0; ms <= duration; ms += step) {
    const x = xOf(ms, duration);
    parts.push(
      `<line class="tick" x1="${x}" y1="${axisY}" x2="${x}" y2="${axisY + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${axisY + 18}" text-anchor="middle">${mmss(ms)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** A minimal HTML page: a heading, a legend (lane colours and counts) and the same SVG. */
export function renderTimelineHtml(run: TimelineRun, observations: readonly TimelineObservation[]): string {
  const legend = lanesOf(observations)
    .map((lane) => `<li><span class="swatch" style="background:${lane.color}"></span>${escapeXml(lane.name)} (${lane.count})</li>`)
    .join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeXml(`Timeline of ${run.run_id}`)}</title>`,
    '<style>body{font-family:sans-serif;margin:1.5rem}ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:1rem}.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.35em;vertical-align:middle}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeXml(`Timeline of ${run.run_id}`)}</h1>`,
    `<p>${escapeXml(`${observations.length} observation(s) over ${mmss(run.source.duration_ms)}; bar height is the relevance score.`)}</p>`,
    `<ul class="legend">\n${legend}\n</ul>`,
    renderTimeline(run, observations).trimEnd(),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
