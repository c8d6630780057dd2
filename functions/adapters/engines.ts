import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config.js';
import type { Analyzer } from '../domain/analysis/analyzer.js';
import type { Transcriber } from '../domain/analysis/signals.js';
import { localAnalyzer } from './analyzers/local-analyzer.js';
import type { AwsClients } from './aws-clients.js';
import { instrumentClient } from './aws-call-hooks.js';
import { resolveFfmpegPath } from './ffmpeg-binaries.js';
import { noTranscriber } from './signals/no-transcriber.js';

/**
 * The Analyzer and Transcriber the configuration names (DESIGN §7). The cloud and CLI engines,
 * with their modules and SDK clients, are built on first use, once per process: functions that
 * never analyse (the API routes) never load them.
 */

/** A value built on first call and shared after; a failed build (e.g. a secret read) is retried by the next call. */
function onFirstUse<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}

const lazyAnalyzer = (name: string, build: () => Promise<Analyzer>): Analyzer => {
  const analyzer = onFirstUse(build);
  return { name, analyze: async (input) => (await analyzer()).analyze(input) };
};

const lazyTranscriber = (build: () => Promise<Transcriber>): Transcriber => {
  const transcriber = onFirstUse(build);
  return { transcribe: async (input) => (await transcriber()).transcribe(input) };
};

/** parseConfig has checked that the chosen engine's settings are present. */
function required(value: string | undefined, variable: string): string {
  if (!value) throw new Error(`Invalid configuration: ${variable} is not set`);
  return value;
}

export function analyzerFor(cfg: Config, clients: Pick<AwsClients, 'secrets'>): Analyzer {
  switch (cfg.ANALYZER) {
    case 'local':
      return localAnalyzer;
    case 'bedrock':
      return lazyAnalyzer('bedrock', async () => {
        const [{ BedrockRuntimeClient }, { bedrockAnalyzer }] = await Promise.all([import('@aws-sdk/client-bedrock-runtime'), import('./analyzers/bedrock.js')]);
        return bedrockAnalyzer({ client: instrumentClient(new BedrockRuntimeClient({ region: cfg.AWS_REGION })), modelId: required(cfg.BEDROCK_MODEL_ID, 'BEDROCK_MODEL_ID') });
      });
    case 'openai': {
      const secretId = cfg.OPENAI_API_KEY_SECRET_ID;
      // On AWS the key lives in Secrets Manager, never in the function's configuration.
      const apiKey = secretId ? onFirstUse(() => secretString(clients, secretId)) : () => Promise.resolve(cfg.OPENAI_API_KEY);
      return lazyAnalyzer('openai', async () => {
        const { openAiAnalyzer } = await import('./analyzers/openai.js');
        return openAiAnalyzer({ baseUrl: required(cfg.OPENAI_BASE_URL, 'OPENAI_BASE_URL'), model: required(cfg.OPENAI_MODEL, 'OPENAI_MODEL'), apiKey });
      });
    }
  }
}

/** `bucket`: the media bucket, which Amazon Transcribe reads sources from and writes transcripts to. */
export function transcriberFor(cfg: Config, clients: Pick<AwsClients, 's3'>, bucket: string): Transcriber {
  switch (cfg.TRANSCRIBER) {
    case 'none':
      return noTranscriber;
    case 'aws-transcribe':
      return lazyTranscriber(async () => {
        const [{ TranscribeClient }, { awsTranscribeTranscriber }] = await Promise.all([import('@aws-sdk/client-transcribe'), import('./transcribers/aws-transcribe.js')]);
        return awsTranscribeTranscriber({ transcribe: instrumentClient(new TranscribeClient({ region: cfg.AWS_REGION })), s3: clients.s3, bucket, languageCode: cfg.TRANSCRIBE_LANGUAGE_CODE });
      });
    case 'whisper-cpp':
      return lazyTranscriber(async () => {
        const { whisperCppTranscriber } = await import('./transcribers/whisper-cpp.js');
        return whisperCppTranscriber({
          ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
          whisperPath: required(cfg.WHISPER_CPP_BIN, 'WHISPER_CPP_BIN'),
          modelPath: required(cfg.WHISPER_MODEL, 'WHISPER_MODEL'),
          // whisper.cpp names languages without the region: en-US -> en.
          language: cfg.TRANSCRIBE_LANGUAGE_CODE.split('-')[0]!,
        });
      });
  }
}

async function secretString(clients: Pick<AwsClients, 'secrets'>, secretId: string): Promise<string> {
  const result = await clients.secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!result.SecretString) throw new Error(`The secret ${secretId} has no string value`);
  return result.SecretString;
}
