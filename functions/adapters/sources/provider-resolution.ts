import { ApiError } from '../../domain/errors.js';
import type { ProviderPageResolver, SourceFacts } from '../../domain/sources/ports.js';
import * as z from '../../shared/zod.js';
import { unreadable } from './verify-video.js';
import { factsOf, providerMessage } from './yt-dlp-info.js';
import { ytDlpUnavailable } from './yt-dlp-process.js';

/** The provider-resolver function's event (functions/provider-resolver/handler.py). */
interface ProviderResolverEvent {
  readonly url: string;
}

/**
 * Runs the provider-resolver function once, however the host runs it (a Lambda invocation on AWS,
 * a child process locally: composition/host.ts), and gives its answer, or undefined when the
 * function itself failed (it timed out, crashed or could not be reached; the invoker logs why).
 */
export type ProviderResolverInvoker = (event: ProviderResolverEvent) => Promise<unknown>;

/** The handler's printed or returned JSON; undefined when it is not JSON (factsOfAnswer then answers 503). */
export function answerOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The handler's answer as the facts of the page or the error DESIGN §4 gives for it. Judging the
 * info dict stays here (factsOf), where the container's downloads are judged too: the handler
 * only reduces it to the fields factsOf reads.
 */
const answerSchema = z.union([
  z.object({ info: z.record(z.string(), z.unknown()) }),
  z.object({ error: z.literal('failed'), message: z.string() }),
  z.object({ error: z.literal('timed_out'), seconds: z.number() }),
  z.object({ error: z.literal('unavailable') }),
]);

/** Not in time, or the function failed: the page may well resolve on a retry (503, not the source's fault). */
const notResolved = (why: string) => new ApiError('provider_unavailable', `The provider page could not be resolved now (${why}); try again later.`);

function factsOfAnswer(answer: unknown): SourceFacts {
  const parsed = answerSchema.safeParse(answer);
  if (!parsed.success) throw notResolved('the resolver failed');
  const result = parsed.data;
  if ('info' in result) return factsOf(result.info);
  switch (result.error) {
    case 'failed':
      // A page the provider refuses or does not have: the source's fault, as for a download.
      throw unreadable(providerMessage(result.message));
    case 'timed_out':
      throw notResolved(`the provider did not describe the video within ${result.seconds} seconds`);
    case 'unavailable':
      throw ytDlpUnavailable();
  }
}

/** Provider pages through the provider-resolver function, invoked as the host does. */
export const providerPageResolver = (invoke: ProviderResolverInvoker): ProviderPageResolver => ({
  describe: async (url) => factsOfAnswer(await invoke({ url: url.href })),
});
