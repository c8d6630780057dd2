/**
 * Observations or moments on a time axis (issue 28): one lane per event or scanner type, each a bar
 * from its start to its end whose height is its relevance. The geometry, lane colours and ticks are
 * the CLI's `media-scanner timeline` (packages/cli/src/timeline.ts), so the console and the SVG the
 * CLI writes draw the same picture. Bars are buttons: click or Enter selects (the page seeks its
 * player there); hover or focus previews.
 */
import { layout, mmss, palette, tickStepSeconds, xOf } from '../../../packages/cli/src/timeline.js';

export interface TimelineItem {
  id: string;
  lane: string;
  startMs: number;
  endMs: number;
  /** 0..1: the bar's height. */
  height: number;
  label: string;
}

interface TimelineProps {
  title: string;
  durationMs: number;
  items: readonly TimelineItem[];
  selectedId?: string | undefined;
  /** The player's position, drawn as a line. */
  currentMs?: number | undefined;
  onSelect: (item: TimelineItem) => void;
  onPreview?: (item: TimelineItem | undefined) => void;
}

const plotRight = layout.width - layout.right;

export function Timeline({ title, durationMs, items, selectedId, currentMs, onSelect, onPreview }: TimelineProps) {
  const duration = Math.max(1, durationMs);
  const lanes = [...new Set(items.map((item) => item.lane))].sort();
  const laneY = (lane: string) => layout.top + lanes.indexOf(lane) * (layout.laneHeight + layout.laneGap);
  const axisY = layout.top + Math.max(1, lanes.length) * (layout.laneHeight + layout.laneGap);
  const height = axisY + layout.axisHeight;
  const step = tickStepSeconds(duration) * 1000;
  const ticks: number[] = [];
  for (let ms = 0; ms <= duration; ms += step) ticks.push(ms);

  return (
    <figure class="timeline">
      <svg viewBox={`0 0 ${layout.width} ${height}`} role="group" aria-label={title}>
        {lanes.map((lane, i) => (
          <g key={lane}>
            <line x1={layout.left} y1={laneY(lane) + layout.laneHeight} x2={plotRight} y2={laneY(lane) + layout.laneHeight} class="lane-line" />
            <text x={layout.left - 8} y={laneY(lane) + layout.laneHeight / 2 + 4} text-anchor="end" class="lane-name">
              {lane.length > 22 ? `${lane.slice(0, 21)}…` : lane}
            </text>
            <title>{`${lane}: lane ${i + 1}`}</title>
          </g>
        ))}
        {items.length === 0 && (
          <text x={(layout.left + plotRight) / 2} y={layout.top + layout.laneHeight / 2} text-anchor="middle" class="lane-name">
            Nothing on the timeline
          </text>
        )}
        {items.map((item) => {
          const x = xOf(item.startMs, duration);
          const width = Math.max(2, xOf(item.endMs, duration) - x);
          const barHeight = Math.max(3, Math.min(1, Math.max(0, item.height)) * (layout.laneHeight - 16));
          const bottom = laneY(item.lane) + layout.laneHeight;
          const select = () => onSelect(item);
          return (
            <g
              key={item.id}
              role="button"
              tabIndex={0}
              class={item.id === selectedId ? 'bar selected' : 'bar'}
              aria-pressed={item.id === selectedId}
              aria-label={`${item.label}, ${item.lane}, ${mmss(item.startMs)} to ${mmss(item.endMs)}, relevance ${item.height.toFixed(2)}`}
              onClick={select}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  select();
                }
              }}
              onMouseEnter={() => onPreview?.(item)}
              onMouseLeave={() => onPreview?.(undefined)}
              onFocus={() => onPreview?.(item)}
              onBlur={() => onPreview?.(undefined)}
            >
              <rect x={x} y={bottom - barHeight} width={width} height={barHeight} fill={palette[lanes.indexOf(item.lane) % palette.length]} />
            </g>
          );
        })}
        <line x1={layout.left} y1={axisY} x2={plotRight} y2={axisY} class="axis" />
        {ticks.map((ms) => (
          <g key={ms}>
            <line x1={xOf(ms, duration)} y1={axisY} x2={xOf(ms, duration)} y2={axisY + 5} class="axis" />
            <text x={xOf(ms, duration)} y={axisY + 18} text-anchor="middle" class="tick">
              {mmss(ms)}
            </text>
          </g>
        ))}
        {currentMs !== undefined && <line x1={xOf(currentMs, duration)} y1={layout.top} x2={xOf(currentMs, duration)} y2={axisY} class="playhead" />}
      </svg>
      <figcaption class="muted">Bar height is relevance; select a bar to seek the player and see its evidence.</figcaption>
    </figure>
  );
}
