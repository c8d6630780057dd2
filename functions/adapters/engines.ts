import type { S3Client } from '@aws-sdk/client-s3';
import { pocketsphinxInstalled, requiredSetting, type Config } from '../config.js';
import type { Analyzer } from '../domain/engine/analyzer.js';
import type { Meaning } from '../domain/engine/meaning.js';
import type { Speech, Transcriber, TranscriptionJobs } from '../domain/engine/signals.js';
import { localAnalyzer } from './analyzers/local-analyzer.js';
import { loadWinkMeaning } from './meaning/wink-meaning.js';
import { deferred, once } from '../shared/memo.js';
import { instrumentClient } from './aws-call-hooks.js';
import { resolveFfmpegPath } from './ffmpeg-binaries.js';
import { noTranscriber } from './signals/no-transcriber.js';

/**
 * The Analyzer and Transcriber the configuration names (DESIGN §7). The cloud and CLI engines,
 * with their modules and SDK clients, are built on first use, once per process: functions that
 * never analyse (the API routes) never load them.
 */

const lazyAnalyzer = (name: string, build: () => Promise<Analyzer>): Analyzer => ({ name, ...deferred(build, ['analyze']) });

const lazyTranscriber = (build: () => Promise<Transcriber>): Transcriber => deferred(build, ['transcribe']);

/** The NLP model and word vectors: loaded on first analysis, once per process. */
let sharedMeaning: (() => Promise<Meaning>) | undefined;

/** `readSecret`: a Secrets Manager secret's value (the OpenAI key on AWS). */
export function analyzerFor(cfg: Config, readSecret: (secretId: string) => Promise<string>): Analyzer {
  switch (cfg.ANALYZER) {
    case 'local':
      return localAnalyzer((sharedMeaning ??= once(() => loadWinkMeaning(cfg.WORD_VECTORS_DIR))));
    case 'bedrock':
      return lazyAnalyzer('bedrock', async () => {
        const [{ BedrockRuntimeClient }, { bedrockAnalyzer }] = await Promise.all([
          import('@aws-sdk/client-bedrock-runtime'),
          import('./analyzers/bedrock.js'),
        ]);
        return bedrockAnalyzer({
          client: instrumentClient(new BedrockRuntimeClient({ region: cfg.AWS_REGION })),
          modelId: requiredSetting(cfg.BEDROCK_MODEL_ID, 'BEDROCK_MODEL_ID'),
        });
      });
    case 'openai': {
      const secretId = cfg.OPENAI_API_KEY_SECRET_ID;
      // On AWS the key lives in Secrets Manager, never in the function's configuration.
      const apiKey = secretId ? once(() => readSecret(secretId)) : () => Promise.resolve(cfg.OPENAI_API_KEY);
      return lazyAnalyzer('openai', async () => {
        const { openAiAnalyzer } = await import('./analyzers/openai.js');
        return openAiAnalyzer({
          baseUrl: requiredSetting(cfg.OPENAI_BASE_URL, 'OPENAI_BASE_URL'),
          model: requiredSetting(cfg.OPENAI_MODEL, 'OPENAI_MODEL'),
          apiKey,
        });
      });
    }
  }
}

/** `bucket`: the media bucket, where a window's audio is staged for Amazon Transcribe and its transcripts are written. */
export function transcriberFor(cfg: Config, clients: { s3: S3Client }, bucket: string): Speech {
  switch (cfg.TRANSCRIBER) {
    case 'none':
      return noTranscriber;
    case 'aws-transcribe': {
      return deferred(async (): Promise<TranscriptionJobs> => {
        const [{ TranscribeClient }, { awsTranscribeJobs }] = await Promise.all([
          import('@aws-sdk/client-transcribe'),
          import('./transcribers/aws-transcribe.js'),
        ]);
        return awsTranscribeJobs({
          transcribe: instrumentClient(new TranscribeClient({ region: cfg.AWS_REGION })),
          s3: clients.s3,
          bucket,
          languageCode: cfg.TRANSCRIBE_LANGUAGE_CODE,
          ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
        });
      }, ['stageAudio', 'transcript']);
    }
    case 'whisper-cpp':
      return lazyTranscriber(async () => {
        const { whisperCppTranscriber } = await import('./transcribers/whisper-cpp.js');
        return whisperCppTranscriber({
          ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
          whisperPath: requiredSetting(cfg.WHISPER_CPP_BIN, 'WHISPER_CPP_BIN'),
          modelPath: requiredSetting(cfg.WHISPER_MODEL, 'WHISPER_MODEL'),
          // whisper.cpp names languages without the region: en-US -> en.
          language: cfg.TRANSCRIBE_LANGUAGE_CODE.split('-')[0]!,
        });
      });
    case 'moonshine':
      return lazyTranscriber(async () => {
        const [{ moonshineTranscriber }, { resolveSpeechModelFiles }, { pocketsphinxAligner }] = await Promise.all([
          import('./transcribers/moonshine.js'),
          import('./transcribers/moonshine-model.js'),
          import('./transcribers/word-timing.js'),
        ]);
        const aligner = pocketsphinxInstalled(cfg.POCKETSPHINX_BIN, cfg.POCKETSPHINX_MODEL_DIR)
          ? pocketsphinxAligner({ binaryPath: cfg.POCKETSPHINX_BIN, modelDir: cfg.POCKETSPHINX_MODEL_DIR })
          : null;
        return moonshineTranscriber({ ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH), models: resolveSpeechModelFiles(cfg.SPEECH_MODEL_DIR), aligner });
      });
    case 'pocketsphinx':
      return lazyTranscriber(async () => {
        const { pocketsphinxTranscriber } = await import('./transcribers/pocketsphinx.js');
        return pocketsphinxTranscriber({
          ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
          binaryPath: cfg.POCKETSPHINX_BIN,
          modelDir: cfg.POCKETSPHINX_MODEL_DIR,
        });
      });
  }
}
