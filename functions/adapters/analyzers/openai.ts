import * as z from '../../shared/zod.js';
import type { Analyzer } from '../../domain/engine/analyzer.js';
import { modelAnalyzer } from './llm-prompt.js';

export interface OpenAiAnalyzerOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** The bearer token, read when first needed; undefined for servers that want none. */
  apiKey: () => Promise<string | undefined>;
  /** Per request. @default 90 s */
  timeoutMs?: number;
}

/**
 * The endpoint answered with an error status or with something that is not a chat completion.
 * A task failure, so Step Functions retries (429 and 5xx are usually passing).
 */
export class OpenAiRequestFailed extends Error {
  override readonly name = 'OpenAiRequestFailed';
}

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.nullable(z.string()) }) })).check(z.minLength(1)),
});

/** The start of an error body, enough to tell what went wrong without logging a whole page. */
const excerpt = (body: string) => body.replace(/\s+/g, ' ').trim().slice(0, 300);

/**
 * The `openai` analyzer (DESIGN §7): any OpenAI-compatible Chat Completions endpoint, in JSON
 * mode, with the shared prompt and answer parsing.
 */
export function openAiAnalyzer({ baseUrl, model, apiKey, timeoutMs = 90_000 }: OpenAiAnalyzerOptions): Analyzer {
  const endpoint = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return modelAnalyzer('openai', async (system, turns) => {
    const key = await apiKey();
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({
        model,
        messages: [{ role: 'system', content: system }, ...turns.map((turn) => ({ role: turn.role, content: turn.text }))],
        response_format: { type: 'json_object' },
        // Deterministic: the same signals should give the same answer.
        temperature: 0,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await response.text();
    if (!response.ok) throw new OpenAiRequestFailed(`${endpoint} answered ${response.status}: ${excerpt(body)}`);
    let completion: z.infer<typeof completionSchema>;
    try {
      completion = completionSchema.parse(JSON.parse(body));
    } catch (error) {
      throw new OpenAiRequestFailed(`${endpoint} answered something other than a chat completion: ${excerpt(body)}`, { cause: error });
    }
    return completion.choices[0]!.message.content ?? '';
  });
}
