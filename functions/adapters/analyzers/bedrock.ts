import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { Analyzer } from '../../domain/engine/analyzer.js';
import { modelAnalyzer } from './llm-prompt.js';

export interface BedrockAnalyzerOptions {
  client: BedrockRuntimeClient;
  /** A model id or inference profile id that supports Converse. */
  modelId: string;
  /** Cap on the reply's length. @default 4096 */
  maxTokens?: number;
  /** Per request; the answering tasks run for at most a few minutes. @default 90 s */
  timeoutMs?: number;
}

/**
 * The `bedrock` analyzer (DESIGN §7): Amazon Bedrock Converse with the shared prompt and JSON
 * answer. Throttling, 5xx and timeouts propagate as they are (after the SDK's own retries), so
 * the workflow step fails and Step Functions retries it.
 */
export function bedrockAnalyzer({ client, modelId, maxTokens = 4096, timeoutMs = 90_000 }: BedrockAnalyzerOptions): Analyzer {
  return modelAnalyzer('bedrock', async (system, turns) => {
    const response = await client.send(
      new (await import('@aws-sdk/client-bedrock-runtime')).ConverseCommand({
        modelId,
        system: [{ text: system }],
        messages: turns.map((turn) => ({ role: turn.role, content: [{ text: turn.text }] })),
        // Deterministic: the same signals should give the same answer.
        inferenceConfig: { maxTokens, temperature: 0 },
      }),
      { abortSignal: AbortSignal.timeout(timeoutMs) },
    );
    return (response.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
  });
}
