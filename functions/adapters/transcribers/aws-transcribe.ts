import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { LanguageCode, TranscribeClient, TranscriptionJob } from '@aws-sdk/client-transcribe';
import * as z from '../../shared/zod.js';
import type { Span, TranscriptionJobs, TranscriptSegment } from '../../domain/engine/signals.js';
import { TRANSCRIPT_WAIT_LIMIT_MS } from '../../domain/runs/steps/await-transcript.js';
import { runTool } from '../signals/ffmpeg-process.js';
import { TranscriptionFailed } from './errors.js';
import { MAX_TOOL_OUTPUT_BYTES, withWindowWav } from './window-wav.js';

/** Where each job's audio is staged and its output written: under `artifacts/`, which the bucket's lifecycle expires after a day. */
export const TRANSCRIPTS_PREFIX = 'artifacts/transcripts/';
/** Every job this service starts is named so; its IAM grant covers only these names. */
export const TRANSCRIPTION_JOB_PREFIX = 'media-scanner-';

/** Transcribe labels at most this many speakers (its range is 2..30). */
const MAX_SPEAKERS = 10;
/**
 * A job that ended longer ago than any run waits for one (TRANSCRIPT_WAIT_LIMIT_MS) belongs to an
 * earlier run of the same source and window: a failure of it is not this run's answer.
 */
const STALE_AFTER_MS = TRANSCRIPT_WAIT_LIMIT_MS + 60_000;

export interface AwsTranscribeOptions {
  transcribe: TranscribeClient;
  s3: S3Client;
  /** The media bucket: the window's audio is staged there and Transcribe writes its output beside it, under TRANSCRIPTS_PREFIX. */
  bucket: string;
  /** An Amazon Transcribe language code, e.g. `en-US`. */
  languageCode: string;
  /** See resolveFfmpegPath: decodes and compresses the window's audio. */
  ffmpegPath: string;
  now?: () => number;
}

/**
 * One job per source, window and language: its name is derived from them, so a retried step and
 * every poll find the job, and a later run of the same window reuses its output while it lasts.
 */
export const transcriptionJobName = (languageCode: string, objectKey: string, window: Span): string =>
  `${TRANSCRIPTION_JOB_PREFIX}${createHash('sha256').update(`${languageCode}\n${objectKey}\n${window.startMs}-${window.endMs}`).digest('hex').slice(0, 40)}`;

/** The part of Transcribe's output JSON that is read: the items, with times in seconds as strings. */
const transcribeOutputSchema = z.object({
  results: z.object({
    items: z.array(
      z.object({
        type: z.string(),
        start_time: z.optional(z.string()),
        end_time: z.optional(z.string()),
        speaker_label: z.optional(z.string()),
        alternatives: z.array(z.object({ content: z.string() })).check(z.minLength(1)),
      }),
    ),
  }),
});
type TranscribeOutput = z.infer<typeof transcribeOutputSchema>;

const SENTENCE_END = /[.?!\u3002\uff1f\uff01]$/;

const millisecondsOf = (seconds: string | undefined, offsetMs: number): number | null => {
  const value = Number(seconds);
  return seconds === undefined || !Number.isFinite(value) ? null : offsetMs + Math.round(value * 1000);
};

/**
 * Transcribe's items as segments: a new segment at each speaker turn and after each sentence,
 * since a turn can run for minutes and an observation quotes its whole segment. Times are the
 * staged audio's, which starts at `offsetMs` of the source.
 */
export function segmentsOf(output: TranscribeOutput, offsetMs: number): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let current: TranscriptSegment | null = null;
  for (const item of output.results.items) {
    const content = item.alternatives[0]!.content;
    if (item.type === 'punctuation') {
      if (!current) continue;
      current.text += content;
      if (SENTENCE_END.test(content)) current = null;
      continue;
    }
    const startMs = millisecondsOf(item.start_time, offsetMs);
    const endMs = millisecondsOf(item.end_time, offsetMs);
    if (startMs === null || endMs === null) continue;
    const speaker = item.speaker_label ?? null;
    if (!current || current.speaker !== speaker) {
      current = { startMs, endMs, text: content, speaker, words: [] };
      segments.push(current);
    } else {
      current.text += ` ${content}`;
      current.endMs = endMs;
    }
    current.words.push({ startMs, endMs, text: content });
  }
  return segments;
}

/** Loaded on first use: only functions configured for Amazon Transcribe ever load its client. */
const transcribeSdk = () => import('@aws-sdk/client-transcribe');
type TranscribeSdk = Awaited<ReturnType<typeof transcribeSdk>>;

const isMissingJob = (error: unknown, sdk: TranscribeSdk) =>
  error instanceof sdk.NotFoundException || (error instanceof sdk.BadRequestException && /couldn't be found|not found/i.test(error.message));

/** A refusal for want of capacity (the concurrent-job quota, or the request rate): asked again at the next poll. */
const isRefusedForCapacity = (error: unknown, sdk: TranscribeSdk) => error instanceof sdk.LimitExceededException;

/**
 * The `aws-transcribe` transcriber (DESIGN §7, §11): an Amazon Transcribe batch job per analysed
 * window (a chunk) over that window's audio alone, decoded to 16 kHz mono and compressed
 * losslessly (FLAC), with speaker labels and word times. Transcribe bills the audio it gets, so a
 * 10-minute window bills 10 minutes whatever the source's length, and a chunk's audio (at most
 * the 1.92 MB a minute of the PCM it compresses) is far below Transcribe's 2 GB limit. `transcript` never waits: the workflow
 * polls it. Throws TranscriptionFailed when the job fails.
 */
export function awsTranscribeJobs(options: AwsTranscribeOptions): TranscriptionJobs {
  const { transcribe, s3, bucket, languageCode, ffmpegPath, now = Date.now } = options;
  const audioKey = (name: string) => `${TRANSCRIPTS_PREFIX}${name}.flac`;
  const outputKey = (name: string) => `${TRANSCRIPTS_PREFIX}${name}.json`;

  async function jobNamed(name: string): Promise<TranscriptionJob | 'refused' | null> {
    const sdk = await transcribeSdk();
    try {
      return (await transcribe.send(new sdk.GetTranscriptionJobCommand({ TranscriptionJobName: name }))).TranscriptionJob ?? null;
    } catch (error) {
      if (isMissingJob(error, sdk)) return null;
      if (isRefusedForCapacity(error, sdk)) return 'refused';
      throw error;
    }
  }

  async function start(name: string): Promise<void> {
    const sdk = await transcribeSdk();
    try {
      await transcribe.send(
        new sdk.StartTranscriptionJobCommand({
          TranscriptionJobName: name,
          LanguageCode: languageCode as LanguageCode,
          Media: { MediaFileUri: `s3://${bucket}/${audioKey(name)}` },
          MediaFormat: 'flac',
          OutputBucketName: bucket,
          OutputKey: outputKey(name),
          Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: MAX_SPEAKERS },
        }),
      );
    } catch (error) {
      // Another run of the same window started it first; or the quota is full and the next poll asks again.
      if (!(error instanceof sdk.ConflictException) && !isRefusedForCapacity(error, sdk)) throw error;
    }
  }

  /** Runs the job again: its output expired with the other artifacts, or its failure was an earlier run's. */
  async function restart(name: string): Promise<null> {
    const sdk = await transcribeSdk();
    try {
      await transcribe.send(new sdk.DeleteTranscriptionJobCommand({ TranscriptionJobName: name }));
    } catch (error) {
      if (!isMissingJob(error, sdk)) throw error;
    }
    await start(name);
    return null;
  }

  async function outputAt(key: string): Promise<string | null> {
    try {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await object.Body?.transformToString('utf8')) ?? null;
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  function segmentsIn(text: string, name: string, window: Span): TranscriptSegment[] {
    let output: TranscribeOutput;
    try {
      output = transcribeOutputSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new TranscriptionFailed(`The output of transcription job ${name} is not Amazon Transcribe output`, { cause: error });
    }
    return segmentsOf(output, window.startMs);
  }

  return {
    stageAudio: ({ url, objectKey, window }) =>
      withWindowWav(
        { ffmpegPath, scratchPrefix: 'transcribe-' },
        url,
        window,
        async ({ wavPath, workDir, remaining }) => {
          const flacPath = join(workDir, 'window.flac');
          const encode = await runTool(
            ffmpegPath,
            ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-i', wavPath, '-c:a', 'flac', '-y', flacPath],
            {
              timeoutMs: remaining(),
              maxOutputBytes: MAX_TOOL_OUTPUT_BYTES,
            },
          );
          if (encode.exitCode !== 0)
            throw new TranscriptionFailed(`ffmpeg could not compress the window's audio: ${encode.stderr.trim() || `exit ${encode.exitCode}`}`);
          const name = transcriptionJobName(languageCode, objectKey, window);
          await s3.send(new PutObjectCommand({ Bucket: bucket, Key: audioKey(name), Body: await readFile(flacPath), ContentType: 'audio/flac' }));
          return true;
        },
        false,
      ),

    async transcript({ objectKey, window }) {
      const name = transcriptionJobName(languageCode, objectKey, window);
      const job = await jobNamed(name);
      if (job === 'refused') return null;
      if (!job) {
        await start(name);
        return null;
      }
      if (job.TranscriptionJobStatus === 'COMPLETED') {
        const text = await outputAt(outputKey(name));
        return text === null ? restart(name) : segmentsIn(text, name, window);
      }
      if (job.TranscriptionJobStatus === 'FAILED') {
        const stale = job.CompletionTime !== undefined && now() - job.CompletionTime.getTime() > STALE_AFTER_MS;
        if (!stale) throw new TranscriptionFailed(`Transcription job ${name} failed: ${job.FailureReason ?? 'no reason given'}`);
        return restart(name);
      }
      return null;
    },
  };
}
