import type { NamedChatMomentType } from '../../domain/engine/moment-brief.js';
import type { LevelSpan, SourceSignals, Span, TranscriptSegment } from '../../domain/engine/signals.js';
import { spokenSpans } from '../../domain/engine/speech-cleanup.js';
import type { Grounding, Occurrence } from './vocabulary.js';

/**
 * The chat moment types of one-off analyses (SPEC: chat_moment_types), grounded in what the
 * local analyzer can measure (docs/local-analyzer.md). Four need a transcript (q_and_a, story,
 * opinion, advice), funny needs one too (laughter is a transcript token, or a burst that no word
 * explains), and reaction needs only the audio. A type whose signals do not exist for the source
 * is not grounded (null), so it yields no moments instead of invented ones.
 */

/** How soon after speech or a cut a loud burst must start to be a reaction to it. */
const REACTION_GAP_MS = 2_000;
/** How much of what led up to a burst its moment keeps. */
const REACTION_LEAD_MS = 5_000;
/** The longest gap between a question and its answer, or between the turns of one speaker. */
const TURN_GAP_MS = 5_000;

const QUESTION_OPENING =
  /^(?:(?:who|what|when|where|why|how|which)\s+(?:do|does|did|is|are|was|were|can|could|would|will|should|have|has)|(?:do|does|did|is|are|was|were|can|could|would|will|should|have|has)\s+(?:you|we|they|i|he|she|it|there|that|this))\b/;
const STORY =
  /\b(?:when i was|when we were|remember when|i remember|back when|back in the day|one time|one day|once upon a time|once(?=,)|years ago|the other day|last (?:night|week|month|year|summer|winter)|this one time|so anyway)\b/g;
const PAST_TENSE =
  /\b(?:was|were|had|went|said|told|got|came|saw|thought|took|made|knew|found|gave|left|felt|heard|ran|sat|stood|began|brought|bought|[a-z]{3,}ed)\b/g;
const OPINION =
  /\b(?:i think|i believe|i feel like|i feel that|in my opinion|in my view|personally|to be honest|honestly|i'd say|i would say|my take|i'm convinced|i disagree|i agree|if you ask me|the way i see it)\b/g;
const ADVICE =
  /\b(?:you should|you shouldn't|you need to|you have to|you've got to|my advice|tips?|make sure|don't forget|remember to|i recommend|i'd recommend|the key is|the trick is)\b/g;
const LAUGHTER = /(?:\b(?:ha(?:ha)+h?|he(?:he)+|lol|lmao)\b|[[(](?:laughter|laughs|laughing|chuckles)[\])])/g;

const lower = (segment: TranscriptSegment) => segment.text.toLowerCase().replaceAll('’', "'");
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
const isQuestion = (segment: TranscriptSegment) => segment.text.includes('?') || QUESTION_OPENING.test(lower(segment).trim());

/** The index of the last segment of the turn that starts at `from`: the same (known) speaker, no long gap, no question. */
function turnEnd(segments: readonly TranscriptSegment[], from: number): number {
  const speaker = segments[from]!.speaker;
  let end = from;
  while (speaker !== null) {
    const next = segments[end + 1];
    if (!next || next.speaker !== speaker || next.startMs - segments[end]!.endMs > TURN_GAP_MS || isQuestion(next)) break;
    end += 1;
  }
  return end;
}

/** One moment per turn that a segment matching `opens` starts, scored over the whole turn's text. */
function turnMoments(segments: readonly TranscriptSegment[], opens: (text: string) => boolean, strength: (text: string) => number): Occurrence[] {
  const moments: Occurrence[] = [];
  for (let i = 0; i < segments.length; i += 1) {
    if (!opens(lower(segments[i]!))) continue;
    const end = turnEnd(segments, i);
    const text = segments
      .slice(i, end + 1)
      .map(lower)
      .join(' ');
    moments.push({ startMs: segments[i]!.startMs, endMs: segments[end]!.endMs, strength: Math.min(1, strength(text)) });
    i = end;
  }
  return moments;
}

/** A question and the answer that follows it: stronger with a question mark and when another speaker answers. */
function questionsAndAnswers(segments: readonly TranscriptSegment[]): Occurrence[] {
  return segments.flatMap((question, i) => {
    const answer = segments[i + 1];
    if (!isQuestion(question) || !answer || isQuestion(answer) || answer.startMs - question.endMs > TURN_GAP_MS) return [];
    const otherSpeaker = question.speaker !== null && answer.speaker !== null && answer.speaker !== question.speaker;
    const strength = 0.6 + (question.text.includes('?') ? 0.2 : 0) + (otherSpeaker ? 0.2 : 0);
    return [{ startMs: question.startMs, endMs: segments[turnEnd(segments, i + 1)]!.endMs, strength }];
  });
}

/** Laughter in the transcript, with what was said just before it (the thing that was funny). */
function laughter(segments: readonly TranscriptSegment[]): Occurrence[] {
  return segments.flatMap((segment, i) => {
    const tokens = count(lower(segment), LAUGHTER);
    if (!tokens) return [];
    const setup = segments[i - 1];
    const startMs = setup && segment.startMs - setup.endMs <= TURN_GAP_MS ? setup.startMs : segment.startMs;
    return [{ startMs, endMs: segment.endMs, strength: Math.min(1, 0.5 + 0.25 * tokens), signals: ['transcript'] }];
  });
}

/**
 * The loud bursts that start while a trigger (speech, a cut) lasts or within REACTION_GAP_MS after
 * it, each with up to REACTION_LEAD_MS of the trigger that led to it. A burst inside speech
 * counts: speech-activity detection often hears laughter and cheering as speech.
 */
function burstsAfter(peaks: readonly LevelSpan[], triggers: readonly Span[], signals: string[]): Occurrence[] {
  return peaks.flatMap((peak) => {
    const trigger = triggers.filter((t) => t.startMs <= peak.startMs && peak.startMs - t.endMs <= REACTION_GAP_MS).at(-1);
    return trigger ? [{ startMs: Math.max(trigger.startMs, peak.startMs - REACTION_LEAD_MS), endMs: peak.endMs, strength: peak.level, signals }] : [];
  });
}

/** Loud bursts during or right after what was said that no word overlaps: non-verbal, so laughter-like; weaker evidence than a laughter token. */
function laughterLikeBursts(peaks: readonly LevelSpan[], segments: readonly TranscriptSegment[]): Occurrence[] {
  const spoken = spokenSpans(segments);
  const nonVerbal = peaks.filter((peak) => !spoken.some((w) => w.startMs < peak.endMs && w.endMs > peak.startMs));
  return burstsAfter(nonVerbal, segments, ['loudness', 'transcript']).map((o) => ({ ...o, strength: o.strength / 2 }));
}

const sorted = <T extends Span>(spans: readonly T[]) => [...spans].sort((a, b) => a.startMs - b.startMs);
const grounding = (label: string, signals: string[], occurrences: Occurrence[], fromTranscript = true): Grounding => ({
  label,
  signals,
  occurrences,
  fromTranscript,
});

/** The grounding of one chat moment type in this source's transcript (already cut to the window) and signals; null when it cannot be measured here. */
function groundType(type: NamedChatMomentType, segments: TranscriptSegment[] | null, signals: SourceSignals): Grounding | null {
  const peaks = sorted(signals.audio?.loudPeaks ?? []);
  switch (type) {
    case 'reaction': {
      if (!signals.audio) return null;
      const afterSpeech = burstsAfter(peaks, sorted(signals.audio.speech), ['loudness', 'speech_activity']);
      const cuts = sorted((signals.video?.sceneCuts ?? []).map((c) => ({ startMs: c.atMs, endMs: c.atMs })));
      const afterCut = burstsAfter(peaks, cuts, ['loudness', 'scene_cuts']);
      return grounding(type, ['loudness', 'speech_activity', ...(signals.video ? ['scene_cuts'] : [])], [...afterSpeech, ...afterCut], false);
    }
    case 'funny':
      if (!segments) return null;
      return grounding(type, ['transcript'], [...laughter(segments), ...laughterLikeBursts(peaks, segments)]);
    case 'q_and_a':
      return segments && grounding(type, ['transcript'], questionsAndAnswers(segments));
    case 'story':
      return (
        segments &&
        grounding(
          type,
          ['transcript'],
          turnMoments(
            segments,
            (t) => count(t, STORY) > 0 || count(t, PAST_TENSE) >= 3,
            (t) => 0.4 * count(t, STORY) + 0.1 * count(t, PAST_TENSE),
          ),
        )
      );
    case 'opinion':
      return (
        segments &&
        grounding(
          type,
          ['transcript'],
          turnMoments(
            segments,
            (t) => count(t, OPINION) > 0,
            (t) => 0.4 + 0.2 * count(t, OPINION),
          ),
        )
      );
    case 'advice':
      return (
        segments &&
        grounding(
          type,
          ['transcript'],
          turnMoments(
            segments,
            (t) => count(t, ADVICE) > 0,
            (t) => 0.4 + 0.2 * count(t, ADVICE),
          ),
        )
      );
  }
}

/** The groundings of the requested chat moment types that this source can support, in request order. */
export function chatGroundings(types: readonly NamedChatMomentType[], signals: SourceSignals, inWindow: (span: Span) => boolean): Grounding[] {
  const segments = signals.transcript && sorted(signals.transcript.filter(inWindow));
  return types.flatMap((type) => {
    const found = groundType(type, segments, signals);
    return found ? [{ ...found, occurrences: found.occurrences.filter(inWindow) }] : [];
  });
}
