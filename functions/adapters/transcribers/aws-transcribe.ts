import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import type { LanguageCode, TranscribeClient, TranscriptionJob } from '@aws-sdk/client-transcribe';
import * as z from '../../shared/zod.js';
import type { Span, Transcriber, TranscriptSegment } from '../../domain/analysis/signals.js';
import { TranscriptionFailed, TranscriptionNotReady } from './errors.js';

/** Where jobs write their output: under `artifacts/`, which the bucket's lifecycle expires after a day. */
export const TRANSCRIPTS_PREFIX = 'artifacts/transcripts/';
/** Every job this service starts is named so; its IAM grant covers only these names. */
export const TRANSCRIPTION_JOB_PREFIX = 'media-scanner-';

/** Transcribe labels at most this many speakers (its range is 2..30). */
const MAX_SPEAKERS = 10;
const FIRST_POLL_MS = 2_000;
const MAX_POLL_MS = 15_000;
/**
 * A job that ended longer ago than any run may last (statemachines/analysis.asl.json
 * TimeoutSeconds) belongs to an earlier run: a failure of it is not this run's answer.
 */
const STALE_AFTER_MS = 4 * 60 * 60 * 1000 + 60_000;

export interface AwsTranscribeOptions {
  transcribe: TranscribeClient;
  s3: S3Client;
  /** The media bucket: Transcribe reads the source from it and writes its output under TRANSCRIPTS_PREFIX. */
  bucket: string;
  /** An Amazon Transcribe language code, e.g. `en-US`. */
  languageCode: string;
  /** How long one call waits for a running job before handing the task back to Step Functions. @default 12 minutes */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * One job per source and language: its name is derived from them, so the chunks of a source
 * share the job, and a retried task finds the job its first attempt started.
 */
export const transcriptionJobName = (languageCode: string, objectKey: string): string =>
  `${TRANSCRIPTION_JOB_PREFIX}${createHash('sha256').update(`${languageCode}\n${objectKey}`).digest('hex').slice(0, 40)}`;

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

const millisecondsOf = (seconds: string | undefined): number | null => {
  const value = Number(seconds);
  return seconds === undefined || !Number.isFinite(value) ? null : Math.round(value * 1000);
};

/**
 * Transcribe's items as segments: a new segment at each speaker turn and after each sentence,
 * since a turn can run for minutes and an observation quotes its whole segment.
 */
export function segmentsOf(output: TranscribeOutput): TranscriptSegment[] {
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
    const startMs = millisecondsOf(item.start_time);
    const endMs = millisecondsOf(item.end_time);
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

/** Each segment belongs to the chunk it starts in, so merged chunks never repeat one. */
const startsIn = (segment: Span, window: Span) => segment.startMs >= window.startMs && segment.startMs < window.endMs;

/** Loaded on first use: only functions configured for Amazon Transcribe ever load its client. */
const transcribeSdk = () => import('@aws-sdk/client-transcribe');
type TranscribeSdk = Awaited<ReturnType<typeof transcribeSdk>>;

const isMissingJob = (error: unknown, sdk: TranscribeSdk) =>
  error instanceof sdk.NotFoundException || (error instanceof sdk.BadRequestException && /couldn't be found|not found/i.test(error.message));

/**
 * The `aws-transcribe` transcriber (DESIGN §7): an Amazon Transcribe batch job over the source
 * object in the media bucket, with speaker labels and word times. Throws TranscriptionFailed
 * when the job fails and TranscriptionNotReady when it outlasts this call's wait.
 */
export function awsTranscribeTranscriber(options: AwsTranscribeOptions): Transcriber {
  const { transcribe, s3, bucket, languageCode, maxWaitMs = 12 * 60_000, sleep = (ms: number) => delay(ms), now = Date.now } = options;

  async function jobNamed(name: string): Promise<TranscriptionJob | null> {
    const sdk = await transcribeSdk();
    try {
      return (await transcribe.send(new sdk.GetTranscriptionJobCommand({ TranscriptionJobName: name }))).TranscriptionJob ?? null;
    } catch (error) {
      if (isMissingJob(error, sdk)) return null;
      throw error;
    }
  }

  async function start(name: string, objectKey: string, outputKey: string): Promise<void> {
    const sdk = await transcribeSdk();
    try {
      await transcribe.send(
        new sdk.StartTranscriptionJobCommand({
          TranscriptionJobName: name,
          LanguageCode: languageCode as LanguageCode,
          Media: { MediaFileUri: `s3://${bucket}/${objectKey}` },
          OutputBucketName: bucket,
          OutputKey: outputKey,
          Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: MAX_SPEAKERS },
        }),
      );
    } catch (error) {
      // Another chunk of the source, or this task's earlier attempt, started it first.
      if (!(error instanceof sdk.ConflictException)) throw error;
    }
  }

  async function remove(name: string): Promise<void> {
    const sdk = await transcribeSdk();
    try {
      await transcribe.send(new sdk.DeleteTranscriptionJobCommand({ TranscriptionJobName: name }));
    } catch (error) {
      if (!isMissingJob(error, sdk)) throw error;
    }
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

  /** The finished job's output text: starts the job if there is none, restarts it once if it is stale. */
  async function transcriptText(objectKey: string): Promise<string> {
    const name = transcriptionJobName(languageCode, objectKey);
    const outputKey = `${TRANSCRIPTS_PREFIX}${name}.json`;
    const deadline = now() + maxWaitMs;
    let restarted = false;
    for (let poll = 0; ; poll++) {
      const job = await jobNamed(name);
      const status = job?.TranscriptionJobStatus;
      if (!job) {
        await start(name, objectKey, outputKey);
      } else if (status === 'COMPLETED') {
        const text = await outputAt(outputKey);
        if (text !== null) return text;
        // The output expired with the other artifacts (the job is kept for 90 days): run it again.
        if (restarted) throw new TranscriptionFailed(`Transcription job ${name} completed without output at ${outputKey}`);
        await remove(name);
        restarted = true;
      } else if (status === 'FAILED') {
        const stale = job.CompletionTime !== undefined && now() - job.CompletionTime.getTime() > STALE_AFTER_MS;
        if (!stale || restarted) throw new TranscriptionFailed(`Transcription job ${name} failed: ${job.FailureReason ?? 'no reason given'}`);
        await remove(name);
        restarted = true;
      }
      const wait = Math.min(MAX_POLL_MS, FIRST_POLL_MS * 2 ** poll);
      if (now() + wait > deadline) throw new TranscriptionNotReady(`Transcription job ${name} is still ${status ?? 'starting'} after ${maxWaitMs} ms`);
      await sleep(wait);
    }
  }

  return {
    async transcribe({ objectKey, window }) {
      const text = await transcriptText(objectKey);
      let output: TranscribeOutput;
      try {
        output = transcribeOutputSchema.parse(JSON.parse(text));
      } catch (error) {
        throw new TranscriptionFailed(`The transcript of ${objectKey} is not Amazon Transcribe output`, { cause: error });
      }
      return segmentsOf(output).filter((segment) => startsIn(segment, window));
    },
  };
}
