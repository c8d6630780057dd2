/** SPEC "One-off analysis request fields": chat_moment_types. `auto` cannot be combined with another value. */
export const chatMomentTypes = ['auto', 'q_and_a', 'story', 'opinion', 'reaction', 'funny', 'advice'] as const;
export type ChatMomentType = (typeof chatMomentTypes)[number];
/** A chat moment type that names a kind of moment (every one but `auto`). */
export type NamedChatMomentType = Exclude<ChatMomentType, 'auto'>;
const isNamed = (type: ChatMomentType): type is NamedChatMomentType => type !== 'auto';
export const namedChatMomentTypes = chatMomentTypes.filter(isNamed);

/** What a one-off analysis asks beyond the scanner definition (SPEC: for conversation). */
export interface MomentBrief {
  chatMomentTypes: readonly ChatMomentType[];
}

/**
 * The find_moments instructions of a one-off analysis that sends no what_to_find: grounded in the
 * local analyzer's vocabulary (highlights). Every word is either a vocabulary word or a stop word
 * (docs/local-analyzer.md), so the local analyzer grounds it in loud peaks and scene cuts and
 * does not go looking for the words "highlights" or "scene" in the transcript.
 */
export const DEFAULT_WHAT_TO_FIND = 'Find the moments with loud peaks, bursts, cuts or transitions.';

/**
 * The chat moment types a brief asks for by name, or null when the analyzer chooses (no brief,
 * no types, or `auto`).
 */
export function requestedChatTypes(brief: MomentBrief | undefined): NamedChatMomentType[] | null {
  const named = (brief?.chatMomentTypes ?? []).filter(isNamed);
  return named.length ? [...new Set(named)] : null;
}
