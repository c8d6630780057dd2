import type { Span } from '../../domain/engine/signals.js';
import type { RawSpan } from './ffmpeg-log.js';
import { clampSpans } from '../../domain/engine/spans.js';

/**
 * Maps times on the analysed stream (seconds from the window start, as ffmpeg reports them) to
 * milliseconds from the start of the source, inside the window.
 */
export class Timeline {
  constructor(readonly window: Span) {}

  get lengthMs(): number {
    return this.window.endMs - this.window.startMs;
  }

  toSourceMs(streamSeconds: number): number {
    const ms = this.window.startMs + Math.round(streamSeconds * 1000);
    return Math.min(this.window.endMs, Math.max(this.window.startMs, ms));
  }

  /**
   * Spans a detector reported. One still open at EOF, or closing within `tailMs` of the window
   * end (detectors stamp the end with the last analysed frame's start), runs to the window end.
   */
  spans(raw: readonly RawSpan[], tailMs: number): Span[] {
    return raw
      .map(({ startS, endS }) => {
        const endMs = endS === null ? this.window.endMs : this.toSourceMs(endS);
        return { startMs: this.toSourceMs(startS), endMs: this.window.endMs - endMs <= tailMs ? this.window.endMs : endMs };
      })
      .filter((span) => span.endMs > span.startMs);
  }

  /** Spans in ms from the window start (measured in this process) as source spans. */
  fromWindowMs(spans: readonly Span[]): Span[] {
    const { startMs } = this.window;
    return clampSpans(
      spans.map((span) => ({ startMs: span.startMs + startMs, endMs: span.endMs + startMs })),
      this.window,
    );
  }
}
