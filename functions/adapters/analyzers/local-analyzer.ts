import type { Analyzer } from '../../domain/engine/analyzer.js';
import type { AnalyzerResult } from '../../domain/engine/contract.js';
import { matchTerms, type Meaning, type Word } from '../../domain/engine/meaning.js';
import { namedChatMomentTypes, requestedChatTypes, type MomentBrief } from '../../domain/engine/moment-brief.js';
import type { SourceSignals, Span } from '../../domain/engine/signals.js';
import { subtractSpans } from '../../domain/engine/spans.js';
import type { ScannerDefinition } from '../../domain/scanners/model.js';
import { chatGroundings } from './chat-moments.js';
import { asksForTopic, byLength, conceptsIn, readInstruction, type Grounding, type Occurrence } from './vocabulary.js';

/**
 * The `local` analyzer (DESIGN §7): deterministic, honest, built only on measured signals and
 * on the instructions read against the transcript by meaning (lemmas, word vectors, negation:
 * `meaning`, loaded once and shared). It answers only what its signals support and lists the
 * signals it used; anything else is `unsupported`.
 */
export function localAnalyzer(meaning: () => Promise<Meaning>): Analyzer {
  return {
    name: 'local',
    async analyze({ scanner, signals, brief }) {
      return answer(scanner, signals, brief, await meaning());
    },
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const unsupported = (reason: string): AnalyzerResult => ({ status: 'unsupported', reason });
const inWindow = (o: Span, window: Span) => o.endMs > window.startMs && o.startMs < window.endMs;

/**
 * Every way the text can be grounded in this source: vocabulary concepts ("no music": where
 * none was measured), then, only for a question about what is said, the transcript.
 */
function ground(text: string, signals: SourceSignals, meaning: Meaning): Grounding[] {
  const reading = readInstruction(text, meaning.words(text));
  const groundings: Grounding[] = [];
  for (const concept of conceptsIn(reading.signalText)) {
    const occurrences = concept.occurrences(signals);
    // The concept's signal does not exist for this media (e.g. "black" in audio): not grounded.
    if (!occurrences) continue;
    const found: Grounding = { label: concept.name, signals: concept.signals, occurrences: within(occurrences, signals.window), fromTranscript: false };
    groundings.push(reading.signalWords.some((w) => w.negated && concept.words.test(w.text)) ? absence(found, signals.window) : found);
  }
  if (reading.topic.length) groundings.push(...saidGrounding(reading.topic, reading.negated, signals, meaning));
  return groundings;
}

/** Where a grounding does not occur within the window ("no music", "without talking", "never mentions money"). */
const absence = (g: Grounding, window: Span): Grounding => ({
  ...g,
  label: `no_${g.label}`,
  occurrences: subtractSpans([window], g.occurrences).map((s) => ({ startMs: s.startMs, endMs: s.endMs, strength: byLength(s) })),
});

/**
 * The transcript segments that say the topic: each topic word matched to a said word by lemma or
 * by vector similarity. Cited as `transcript`, plus `transcript:meaning` and `transcript:<topic
 * word>~<said word>` for every match that was not the same lemma. None without a transcript.
 */
function saidGrounding(topic: Word[], negated: boolean, signals: SourceSignals, meaning: Meaning): Grounding[] {
  if (!signals.transcript) return [];
  const occurrences = signals.transcript
    .filter((segment) => inWindow(segment, signals.window))
    .flatMap((segment): Occurrence[] => {
      const matches = matchTerms(meaning, topic, meaning.words(segment.text));
      if (!matches.length) return [];
      const inferred = matches.filter((m) => m.similarity < 1);
      const cited = inferred.length ? ['transcript', 'transcript:meaning', ...inferred.map((m) => `transcript:${m.term}~${m.said}`)] : ['transcript'];
      return [{ startMs: segment.startMs, endMs: segment.endMs, strength: matches.reduce((sum, m) => sum + m.similarity, 0) / topic.length, signals: cited }];
    });
  const said: Grounding = { label: 'transcript', signals: ['transcript'], occurrences, fromTranscript: true };
  return [negated ? absence(said, signals.window) : said];
}

const within = (occurrences: Occurrence[], window: Span) => occurrences.filter((o) => inWindow(o, window));

/**
 * find_moments: what the instructions ground, and the chat moment types of a one-off analysis's
 * brief. `auto` adds every chat type this source can support to that. Named types replace the
 * instructions' own moments (each moment must be of a requested type) and the instructions rank
 * them instead; a named type the source cannot support adds nothing.
 */
function momentGroundings(instructions: string, signals: SourceSignals, brief: MomentBrief | undefined, meaning: Meaning): Grounding[] {
  const instructed = ground(instructions, signals, meaning);
  const named = requestedChatTypes(brief);
  const auto = brief?.chatMomentTypes.includes('auto') ?? false;
  const chat = chatGroundings(named ?? (auto ? namedChatMomentTypes : []), signals, (span) => inWindow(span, signals.window));
  return named ? rankedBy(instructed, chat) : [...instructed, ...chat];
}

/**
 * Chat moments scored half by their own strength and half by the strongest occurrence of the
 * instructions they overlap (whose signals they then cite too), so what was asked for comes first.
 */
function rankedBy(instructed: Grounding[], chat: Grounding[]): Grounding[] {
  if (!instructed.some((g) => g.occurrences.length)) return chat;
  return chat.map((g) => ({
    ...g,
    occurrences: g.occurrences.map((o) => {
      const best = instructed
        .flatMap((i) => i.occurrences.filter((io) => inWindow(io, o)).map((io) => ({ strength: io.strength, signals: io.signals ?? i.signals })))
        .sort((a, b) => b.strength - a.strength)[0];
      return { ...o, strength: (o.strength + (best?.strength ?? 0)) / 2, signals: [...new Set([...(o.signals ?? g.signals), ...(best?.signals ?? [])])] };
    }),
  }));
}

/** The share of the window a grounding covers (0..1): how present the concept is. */
function presence(grounding: Grounding, window: Span): number {
  const covered = grounding.occurrences.reduce((sum, o) => sum + Math.min(o.endMs, window.endMs) - Math.max(o.startMs, window.startMs), 0);
  return Math.min(1, covered / Math.max(1, window.endMs - window.startMs));
}

/** What was said over a span (a Q&A spans a question and its answer), and who said it first. */
function excerptFor(signals: SourceSignals, span: Span): { transcript_excerpt?: string; speaker?: string } {
  const segments = signals.transcript?.filter((s) => inWindow(s, span)) ?? [];
  const first = segments[0];
  return first ? { transcript_excerpt: segments.map((s) => s.text).join(' '), ...(first.speaker ? { speaker: first.speaker } : {}) } : {};
}

function evidenceKind(signals: SourceSignals, fromTranscript: boolean, used: string[] = ['transcript']): string {
  if (signals.mediaKind === 'video') return 'visual';
  if (!fromTranscript) return 'audio';
  return used.some((s) => s !== 'transcript') ? 'audio_and_transcript' : 'transcript';
}

const readable = (label: string) => label.replaceAll('_', ' ');

function occurrenceFindings(groundings: Grounding[], signals: SourceSignals, value: (g: Grounding) => unknown): unknown[] {
  return groundings.flatMap((g) =>
    g.occurrences.map((o) => ({
      value: value(g),
      event_type: g.label,
      relevance_score: o.strength,
      start_ms: o.startMs,
      end_ms: o.endMs,
      title: `${readable(g.label)} at ${seconds(o.startMs)}`,
      summary: `${readable(g.label)} from ${seconds(o.startMs)} to ${seconds(o.endMs)}, strength ${o.strength.toFixed(2)}.`,
      evidence_kind: evidenceKind(signals, g.fromTranscript, o.signals ?? g.signals),
      signals: o.signals ?? g.signals,
      ...(g.fromTranscript ? excerptFor(signals, o) : {}),
    })),
  );
}

function answer(scanner: ScannerDefinition, signals: SourceSignals, brief: MomentBrief | undefined, meaning: Meaning): AnalyzerResult {
  switch (scanner.type) {
    case 'find_moments':
    case 'monitor': {
      // The brief's chat moment types are moments: a monitor has none to find.
      const groundings =
        scanner.type === 'find_moments' ? momentGroundings(scanner.instructions, signals, brief, meaning) : ground(scanner.instructions, signals, meaning);
      if (!groundings.length)
        return unsupported(
          brief
            ? 'Neither the instructions nor the requested chat moment types can be grounded in what was measured.'
            : 'The instructions name nothing the local analyzer can measure.',
        );
      const value = scanner.type === 'monitor' ? () => true : (g: Grounding) => ({ event_type: g.label });
      const findings = occurrenceFindings(groundings, signals, value);
      if (scanner.type === 'monitor' && !findings.length) {
        // Measurable but absent: say so, and cite what was measured.
        const names = groundings.map((g) => readable(g.label)).join(', ');
        findings.push({
          value: false,
          relevance_score: 0,
          title: 'No match',
          summary: `No ${names} was measured in the recording.`,
          signals: groundings.flatMap((g) => g.signals),
        });
      }
      return { status: 'answered', findings };
    }
    case 'scorer': {
      const groundings = ground(scanner.instructions, signals, meaning);
      if (!groundings.length) return unsupported('The instructions name nothing the local analyzer can measure.');
      const best = groundings.map((g) => ({ g, share: presence(g, signals.window) })).sort((a, b) => b.share - a.share)[0]!;
      return {
        status: 'answered',
        findings: [
          {
            value: best.share,
            title: `${readable(best.g.label)} presence`,
            summary: `${readable(best.g.label)} covers ${(best.share * 100).toFixed(0)}% of the analysed range.`,
            evidence_kind: evidenceKind(signals, best.g.fromTranscript),
            signals: best.g.signals,
          },
        ],
      };
    }
    case 'classifier':
      return classify(scanner, signals, meaning);
    case 'summarizer':
      return {
        status: 'answered',
        findings: [{ value: summarize(signals), relevance_score: 1, title: 'Summary of the recording', signals: signalsPresent(signals) }],
      };
    case 'extractor':
      return extract(scanner, signals);
  }
}

/** Labels are grounded like instructions; when the instructions ask what is talked about, each label is a topic of what is said. */
function classify(scanner: ScannerDefinition, signals: SourceSignals, meaning: Meaning): AnalyzerResult {
  const labels = scanner.output?.labels ?? [];
  const topics = asksForTopic(meaning.words(scanner.instructions));
  const scored = labels.flatMap((label) => {
    const groundings = topics
      ? saidGrounding(
          meaning.words(label).filter((w) => w.content),
          false,
          signals,
          meaning,
        )
      : ground(label, signals, meaning);
    if (!groundings.length) return [];
    const best = groundings.map((g) => ({ g, share: presence(g, signals.window) })).sort((a, b) => b.share - a.share)[0]!;
    return [{ label, ...best }];
  });
  if (!scored.length) return unsupported('None of the labels names something the local analyzer can measure.');
  const winner = scored.sort((a, b) => b.share - a.share)[0]!;
  const present = winner.share > 0;
  return {
    status: 'answered',
    findings: [
      {
        value: present ? winner.label : 'other',
        relevance_score: present ? winner.share : 1 - Math.max(...scored.map((s) => s.share)),
        summary: present
          ? `${readable(winner.g.label)} covers ${(winner.share * 100).toFixed(0)}% of the recording.`
          : 'None of the configured labels was observed.',
        evidence_kind: evidenceKind(signals, winner.g.fromTranscript),
        signals: [...new Set(scored.flatMap((s) => s.g.signals))],
      },
    ],
  };
}

function signalsPresent(signals: SourceSignals): string[] {
  return [
    ...(signals.video ? ['scene_cuts', 'motion', 'black', 'frozen', 'dominant_color'] : []),
    ...(signals.audio ? ['loudness', 'silence', 'speech_activity', 'music_tone'] : []),
    ...(signals.transcript ? ['transcript'] : []),
  ];
}

const share = (spans: Span[], total: number) => spans.reduce((sum, s) => sum + (s.endMs - s.startMs), 0) / Math.max(1, total);

/** A factual summary of what was measured, nothing more. */
function summarize(signals: SourceSignals): string {
  const { video, audio, window } = signals;
  const length = window.endMs - window.startMs;
  const parts = [`${seconds(length)} of ${signals.mediaKind}`];
  if (video) {
    parts.push(`${video.width}x${video.height} at ${video.frameRate.toFixed(0)} fps`);
    parts.push(
      video.sceneCuts.length
        ? `${video.sceneCuts.length} scene cut(s) at ${video.sceneCuts
            .slice(0, 10)
            .map((c) => seconds(c.atMs))
            .join(', ')}`
        : 'no scene cuts',
    );
    if (video.black.length) parts.push(`black picture for ${seconds(video.black.reduce((s, b) => s + b.endMs - b.startMs, 0))}`);
    if (video.frozen.length) parts.push(`frozen picture for ${seconds(video.frozen.reduce((s, b) => s + b.endMs - b.startMs, 0))}`);
    if (video.dominantColor) parts.push(`dominant colour ${video.dominantColor}`);
  }
  if (audio) {
    const loudest = loudestMoment(signals);
    if (loudest) parts.push(`loudest moment at ${seconds(loudest.atMs)} (${loudest.lufs.toFixed(1)} LUFS)`);
    if (audio.integratedLufs !== null) parts.push(`integrated loudness ${audio.integratedLufs.toFixed(1)} LUFS`);
    parts.push(`silence ${(share(audio.silence, length) * 100).toFixed(0)}%`, `speech-like activity ${(share(audio.speech, length) * 100).toFixed(0)}%`);
    if (audio.music.length) parts.push(`music-like tone ${(share(audio.music, length) * 100).toFixed(0)}%`);
  }
  if (signals.transcript?.length) parts.push(`transcript of ${signals.transcript.length} segment(s)`);
  return `${parts.join('; ')}.`;
}

function loudestMoment(signals: SourceSignals) {
  return signals.audio?.loudness.reduce<{ atMs: number; lufs: number } | null>((max, l) => (!max || l.lufs > max.lufs ? l : max), null) ?? null;
}

type Measure = (signals: SourceSignals) => string | number | null | undefined;

/** Fields the local analyzer can measure, by the names an integrator is likely to use. */
const measures: [RegExp, Measure][] = [
  [/^(duration|length)(_seconds|_s)?$/, (s) => (s.window.endMs - s.window.startMs) / 1000],
  [/^(duration|length)_ms$/, (s) => s.window.endMs - s.window.startMs],
  [/^(scene_count|scenes|shot_count|shots)$/, (s) => (s.video ? s.video.sceneCuts.length + 1 : null)],
  [/^(cut_count|cuts|scene_cuts|scene_changes)$/, (s) => s.video?.sceneCuts.length],
  [/^(loudest_moment|loudest_moment_ms|peak_time_ms|loudest_time_ms)$/, (s) => loudestMoment(s)?.atMs],
  [
    /^(loudest_moment_seconds|peak_time|peak_time_seconds|loudest_time)$/,
    (s) => {
      const l = loudestMoment(s);
      return l ? l.atMs / 1000 : null;
    },
  ],
  [/^(speech_share|speech_ratio|speech_fraction)$/, (s) => (s.audio ? share(s.audio.speech, s.window.endMs - s.window.startMs) : null)],
  [/^(silence_share|silence_ratio|silence_fraction)$/, (s) => (s.audio ? share(s.audio.silence, s.window.endMs - s.window.startMs) : null)],
  [/^(music_share|music_ratio)$/, (s) => (s.audio ? share(s.audio.music, s.window.endMs - s.window.startMs) : null)],
  [/^(black_share|black_ratio)$/, (s) => (s.video ? share(s.video.black, s.window.endMs - s.window.startMs) : null)],
  [/^(frozen_share|frozen_ratio)$/, (s) => (s.video ? share(s.video.frozen, s.window.endMs - s.window.startMs) : null)],
  [/^(dominant_colou?r|main_colou?r|average_colou?r)$/, (s) => s.video?.dominantColor],
  [/^(loudness|average_loudness|integrated_loudness|loudness_lufs)$/, (s) => s.audio?.integratedLufs],
  [/^width$/, (s) => s.video?.width],
  [/^height$/, (s) => s.video?.height],
  [/^resolution$/, (s) => (s.video ? `${s.video.width}x${s.video.height}` : null)],
  [/^(frame_rate|fps)$/, (s) => s.video?.frameRate],
];

function extract(scanner: ScannerDefinition, signals: SourceSignals): AnalyzerResult {
  const fields = scanner.output?.fields ?? [];
  const value = Object.fromEntries(fields.map((field) => [field, measures.find(([name]) => name.test(field))?.[1](signals) ?? null]));
  const measured = Object.values(value).filter((v) => v !== null).length;
  if (!measured) return unsupported('None of the requested fields is something the local analyzer can measure.');
  return {
    status: 'answered',
    findings: [
      {
        value,
        relevance_score: measured / fields.length,
        title: 'Measured fields',
        summary: `${measured} of ${fields.length} requested fields measured.`,
        signals: signalsPresent(signals),
      },
    ],
  };
}
