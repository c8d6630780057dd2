/** The source's player beside a Timeline (runs and one-off analyses alike). */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { SignedMedia } from '../api.js';
import { Timeline, type TimelineItem } from './Timeline.js';

/** The source's player beside a Timeline: selecting a bar seeks the player; the playhead follows it. */
export function Player({
  kind,
  media,
  durationMs,
  title,
  items,
  detail,
}: {
  kind: 'video' | 'audio';
  /** No player when undefined (a one-off analysis's source is not ours to play). */
  media: SignedMedia | undefined;
  durationMs: number;
  title: string;
  items: TimelineItem[];
  detail: (id: string) => ComponentChildren;
}) {
  const player = useRef<HTMLMediaElement | null>(null);
  const [selected, setSelected] = useState<string>();
  const [preview, setPreview] = useState<string>();
  const [currentMs, setCurrentMs] = useState<number>();
  const shownId = preview ?? selected;
  const Media = kind;
  const follow = (event: Event) => setCurrentMs((event.currentTarget as HTMLMediaElement).currentTime * 1000);
  return (
    <div class="player">
      {media && (
        <Media
          ref={(el: HTMLMediaElement | null) => {
            player.current = el;
          }}
          src={media.url}
          controls
          preload="metadata"
          aria-label={`Source ${kind}`}
          onTimeUpdate={follow}
        />
      )}
      <div>
        <Timeline
          title={title}
          durationMs={durationMs}
          items={items}
          selectedId={selected}
          currentMs={currentMs}
          onPreview={(item) => setPreview(item?.id)}
          onSelect={(item) => {
            setSelected(item.id);
            if (player.current) {
              player.current.currentTime = item.startMs / 1000;
              setCurrentMs(item.startMs);
            }
          }}
        />
        <div class="detail" aria-live="polite">
          {shownId ? detail(shownId) : <p class="muted">Hover or select a bar to see its evidence.</p>}
        </div>
      </div>
    </div>
  );
}
