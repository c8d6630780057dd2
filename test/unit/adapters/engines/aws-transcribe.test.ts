/**
 * The aws-transcribe transcriber against mocked Transcribe and S3 clients (Transcribe is AWS-only:
 * the local host never runs it): the window's audio staged as FLAC by the real ffmpeg, and one
 * poll of the window's job per call, as the state machine's AwaitTranscript makes it.
 */
import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import {
  BadRequestException,
  ConflictException,
  DeleteTranscriptionJobCommand,
  GetTranscriptionJobCommand,
  LimitExceededException,
  StartTranscriptionJobCommand,
  TranscribeClient,
  type TranscriptionJob,
} from '@aws-sdk/client-transcribe';
import { testLocalAnalyzer as localAnalyzer, testMeaning } from '../../../helpers/local-analyzer.js';
import { TranscriptionFailed } from '../../../../functions/adapters/transcribers/errors.js';
import { awsTranscribeJobs, transcriptionJobName } from '../../../../functions/adapters/transcribers/aws-transcribe.js';
import type { Span, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import { ffmpegPath, groundTruthAudio, solidColorVideo, type GroundTruthMedia } from '../../../helpers/ground-truth-media.js';
import { audioSignals, observationsOf, scanner } from './fixtures.js';

let audio: GroundTruthMedia;
let silentVideo: GroundTruthMedia;
// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(async () => {
  [audio, silentVideo] = await Promise.all([groundTruthAudio(), solidColorVideo(), testMeaning()]);
}, 120_000);

const transcribeMock = mockClient(TranscribeClient);
const s3Mock = mockClient(S3Client);
afterAll(() => {
  transcribeMock.restore();
  s3Mock.restore();
});

const BUCKET = 'media-bucket';
const KEY = 'accounts/acct_1/uploads/upl_1';
/** The window whose job the mocks answer for: the output's times are the staged audio's, so 60 s on in the source. */
const WINDOW = { startMs: 60_000, endMs: 80_000 };
const JOB = transcriptionJobName('en-US', KEY, WINDOW);
const OUTPUT_KEY = `artifacts/transcripts/${JOB}.json`;
const AUDIO_KEY = `artifacts/transcripts/${JOB}.flac`;

const word = (content: string, start: string, end: string, speaker: string) => ({
  type: 'pronunciation',
  start_time: start,
  end_time: end,
  speaker_label: speaker,
  alternatives: [{ confidence: '0.99', content }],
});
const mark = (content: string) => ({ type: 'punctuation', alternatives: [{ confidence: '0.0', content }] });

/** Amazon Transcribe's output format (speaker labels on): two turns of spk_0 split by spk_1, one sentence after 10 s of the window. */
const transcribeOutput = {
  jobName: JOB,
  accountId: '111122223333',
  status: 'COMPLETED',
  results: {
    transcripts: [{ transcript: 'Welcome to the launch. It is loud. Thanks, glad to be here. The rocket launches now!' }],
    speaker_labels: { channel_label: 'ch_0', speakers: 2, segments: [] },
    items: [
      word('Welcome', '1.04', '1.50', 'spk_0'),
      word('to', '1.50', '1.62', 'spk_0'),
      word('the', '1.62', '1.80', 'spk_0'),
      word('launch', '1.80', '2.40', 'spk_0'),
      mark('.'),
      word('It', '2.60', '2.70', 'spk_0'),
      word('is', '2.70', '2.80', 'spk_0'),
      word('loud', '2.80', '3.00', 'spk_0'),
      mark('.'),
      word('Thanks', '3.10', '3.50', 'spk_1'),
      mark(','),
      word('glad', '3.60', '3.90', 'spk_1'),
      word('to', '3.90', '4.00', 'spk_1'),
      word('be', '4.00', '4.20', 'spk_1'),
      word('here', '4.20', '4.60', 'spk_1'),
      mark('.'),
      word('The', '12.00', '12.20', 'spk_0'),
      word('rocket', '12.20', '12.80', 'spk_0'),
      word('launches', '12.80', '13.40', 'spk_0'),
      word('now', '13.40', '13.90', 'spk_0'),
      mark('!'),
    ],
  },
};

const body = (text: string) => ({ transformToString: () => Promise.resolve(text) }) as unknown as GetObjectCommandOutput['Body'];
const job = (status: TranscriptionJob['TranscriptionJobStatus'], extra: Partial<TranscriptionJob> = {}) => ({
  TranscriptionJob: { TranscriptionJobName: JOB, TranscriptionJobStatus: status, ...extra },
});
const missingJob = () =>
  new BadRequestException({ message: "The requested job couldn't be found. Check the job name and try your request again.", $metadata: {} });

const NOW = Date.parse('2026-11-22T08:00:00Z');
const jobs = () =>
  awsTranscribeJobs({
    transcribe: new TranscribeClient({ region: 'eu-west-1' }),
    s3: new S3Client({ region: 'eu-west-1' }),
    bucket: BUCKET,
    languageCode: 'en-US',
    ffmpegPath: ffmpegPath(),
    now: () => NOW,
  });
const poll = (window: Span = WINDOW) => jobs().transcript({ objectKey: KEY, window });

beforeEach(() => {
  transcribeMock.reset();
  s3Mock.reset();
  s3Mock.on(GetObjectCommand, { Bucket: BUCKET, Key: OUTPUT_KEY }).resolves({ Body: body(JSON.stringify(transcribeOutput)) });
});

/** A FLAC file's STREAMINFO: sample rate, channels and length in samples (RFC 9639, 8.2). */
function flacStreamInfo(file: Uint8Array): { magic: string; sampleRate: number; channels: number; samples: number } {
  const bytes = Buffer.from(file);
  const packed = bytes.readBigUInt64BE(18);
  return {
    magic: bytes.subarray(0, 4).toString('latin1'),
    sampleRate: Number(packed >> 44n),
    channels: Number((packed >> 41n) & 7n) + 1,
    samples: Number(packed & 0xfffffffffn),
  };
}

describe('aws-transcribe: staging the window audio (in the signals step)', () => {
  it('puts only the window, as 16 kHz mono FLAC, where the window’s job reads it; a 20 s window is 20 s of audio whatever the source’s length', async () => {
    s3Mock.on(PutObjectCommand).resolves({});
    const window = { startMs: 2_000, endMs: 6_000 };

    await expect(jobs().stageAudio({ url: audio.path, objectKey: KEY, window })).resolves.toBe(true);

    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts.map(({ Bucket, Key, ContentType }) => ({ Bucket, Key, ContentType }))).toEqual([
      { Bucket: BUCKET, Key: `artifacts/transcripts/${transcriptionJobName('en-US', KEY, window)}.flac`, ContentType: 'audio/flac' },
    ]);
    const flac = puts[0]!.Body as Uint8Array;
    expect(flacStreamInfo(flac)).toEqual({ magic: 'fLaC', sampleRate: 16_000, channels: 1, samples: 4 * 16_000 });
    // Compressed: smaller than the same audio as 16-bit PCM.
    expect(flac.byteLength).toBeLessThan(4 * 16_000 * 2);
  });

  it('stages nothing for a window without audio, and says so', async () => {
    await expect(jobs().stageAudio({ url: silentVideo.path, objectKey: KEY, window: { startMs: 0, endMs: 3_000 } })).resolves.toBe(false);
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });
});

describe('aws-transcribe: one poll of the window’s job (AwaitTranscript)', () => {
  it('starts one speaker-labelled job on the staged FLAC when there is none, and answers at once that it is not done', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).rejects(missingJob());
    transcribeMock.on(StartTranscriptionJobCommand).resolves(job('QUEUED'));

    await expect(poll()).resolves.toBeNull();

    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand).map((c) => c.args[0].input)).toEqual([
      {
        TranscriptionJobName: JOB,
        LanguageCode: 'en-US',
        Media: { MediaFileUri: `s3://${BUCKET}/${AUDIO_KEY}` },
        MediaFormat: 'flac',
        OutputBucketName: BUCKET,
        OutputKey: OUTPUT_KEY,
        Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 10 },
      },
    ]);
  });

  it.each(['QUEUED', 'IN_PROGRESS'] as const)('answers not done while the job is %s, starting nothing', async (status) => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job(status));

    await expect(poll()).resolves.toBeNull();
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(0);
  });

  it('turns the finished output into sentence segments with speakers and word times in source ms', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));

    const segments = (await poll())!;

    expect(segments.map(({ startMs, endMs, speaker, text }) => ({ startMs, endMs, speaker, text }))).toEqual([
      { startMs: 61_040, endMs: 62_400, speaker: 'spk_0', text: 'Welcome to the launch.' },
      { startMs: 62_600, endMs: 63_000, speaker: 'spk_0', text: 'It is loud.' },
      { startMs: 63_100, endMs: 64_600, speaker: 'spk_1', text: 'Thanks, glad to be here.' },
      { startMs: 72_000, endMs: 73_900, speaker: 'spk_0', text: 'The rocket launches now!' },
    ]);
    expect(segments[2]!.words).toEqual([
      { startMs: 63_100, endMs: 63_500, text: 'Thanks' },
      { startMs: 63_600, endMs: 63_900, text: 'glad' },
      { startMs: 63_900, endMs: 64_000, text: 'to' },
      { startMs: 64_000, endMs: 64_200, text: 'be' },
      { startMs: 64_200, endMs: 64_600, text: 'here' },
    ]);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(0);
  });

  it('feeds transcript-grounded observations with the speaker and the quoted sentence through the contract', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    s3Mock.on(GetObjectCommand).resolves({ Body: body(JSON.stringify(transcribeOutput)) });
    // The first 20 s of the recording that audioSignals describes.
    const signals = audioSignals((await poll({ startMs: 0, endMs: 20_000 }))! satisfies TranscriptSegment[]);
    const def = scanner('monitor', 'Does anyone mention a rocket?');

    const observations = observationsOf(await localAnalyzer.analyze({ scanner: def, signals }), def, signals);

    // The exact word first; the launch is a rocket's by meaning, and says so.
    expect(observations.map((o) => o.evidence.transcript_excerpt)).toEqual(['The rocket launches now!', 'Welcome to the launch.']);
    expect(observations[1]!.evidence.signals).toEqual(['transcript', 'transcript:meaning', 'transcript:rocket~launch']);
    expect(observations[0]).toMatchObject({
      value: true,
      evidence: { start_ms: 12_000, end_ms: 13_900, transcript_excerpt: 'The rocket launches now!', speaker: 'spk_0', evidence_kind: 'transcript' },
    });
  });

  it('names the job after the language, the source and the window: every poll and retry finds it, another window or source gets its own', () => {
    expect(transcriptionJobName('en-US', KEY, WINDOW)).toBe(JOB);
    expect(JOB).toMatch(/^media-scanner-[0-9a-f]{40}$/);
    expect(transcriptionJobName('en-US', KEY, { startMs: 0, endMs: 20_000 })).not.toBe(JOB);
    expect(transcriptionJobName('en-US', `${KEY}x`, WINDOW)).not.toBe(JOB);
    expect(transcriptionJobName('de-DE', KEY, WINDOW)).not.toBe(JOB);
  });

  it('joins the job another run of the same window started first (ConflictException) instead of failing', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).rejects(missingJob());
    transcribeMock.on(StartTranscriptionJobCommand).rejects(new ConflictException({ message: 'The requested job name already exists.', $metadata: {} }));

    await expect(poll()).resolves.toBeNull();
  });

  it('answers not done, never a failure, when Transcribe refuses for capacity (job quota, request rate): the next poll asks again', async () => {
    const limit = () => new LimitExceededException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } });
    transcribeMock.on(GetTranscriptionJobCommand).rejects(missingJob());
    transcribeMock.on(StartTranscriptionJobCommand).rejects(limit());
    await expect(poll()).resolves.toBeNull();

    transcribeMock.on(GetTranscriptionJobCommand).rejects(limit());
    await expect(poll()).resolves.toBeNull();
  });

  it('fails with the reason when this run’s job failed, and leaves the job for the other polls to see', async () => {
    transcribeMock
      .on(GetTranscriptionJobCommand)
      .resolves(job('FAILED', { FailureReason: 'Unsupported media format', CompletionTime: new Date(NOW - 60_000) }));

    const failure = poll();

    await expect(failure).rejects.toThrow(TranscriptionFailed);
    await expect(failure).rejects.toThrow(/Unsupported media format/);
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand)).toHaveLength(0);
  });

  it('runs a job again when its failure belongs to a run long past', async () => {
    transcribeMock
      .on(GetTranscriptionJobCommand)
      .resolves(job('FAILED', { FailureReason: 'Internal failure', CompletionTime: new Date(NOW - 2 * 24 * 3_600_000) }));

    await expect(poll()).resolves.toBeNull();
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand).map((c) => c.args[0].input)).toEqual([{ TranscriptionJobName: JOB }]);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(1);
  });

  it('runs a completed job again when its output has expired with the other artifacts', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    s3Mock.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }));

    await expect(poll()).resolves.toBeNull();
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand)).toHaveLength(1);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(1);
  });

  it('fails when the output is not Amazon Transcribe JSON', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    s3Mock.on(GetObjectCommand).resolves({ Body: body('{"results": {"items": "nope"}}') });

    await expect(poll()).rejects.toThrow(TranscriptionFailed);
  });
});
