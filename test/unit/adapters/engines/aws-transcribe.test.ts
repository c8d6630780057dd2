import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetObjectCommand, NoSuchKey, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
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
import { TranscriptionFailed, TranscriptionNotReady } from '../../../../functions/adapters/transcribers/errors.js';
import { awsTranscribeTranscriber, transcriptionJobName } from '../../../../functions/adapters/transcribers/aws-transcribe.js';
import { audioSignals, observationsOf, scanner } from './fixtures.js';

// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(() => testMeaning(), 120_000);

const transcribeMock = mockClient(TranscribeClient);
const s3Mock = mockClient(S3Client);
afterAll(() => {
  transcribeMock.restore();
  s3Mock.restore();
});

const BUCKET = 'media-bucket';
const KEY = 'accounts/acct_1/uploads/upl_1';
const JOB = transcriptionJobName('en-US', KEY);
const OUTPUT_KEY = `artifacts/transcripts/${JOB}.json`;
const FIRST_TEN_SECONDS = { startMs: 0, endMs: 10_000 };
const NEXT_TEN_SECONDS = { startMs: 10_000, endMs: 20_000 };

const word = (content: string, start: string, end: string, speaker: string) => ({
  type: 'pronunciation',
  start_time: start,
  end_time: end,
  speaker_label: speaker,
  alternatives: [{ confidence: '0.99', content }],
});
const mark = (content: string) => ({ type: 'punctuation', alternatives: [{ confidence: '0.0', content }] });

/** Amazon Transcribe's output format (speaker labels on): two turns of spk_0 split by spk_1, one sentence after 10 s. */
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
const missingJob = () => new BadRequestException({ message: "The requested job couldn't be found. Check the job name and try your request again.", $metadata: {} });

/** A transcriber on a fake clock: sleeping advances it, and every wait is recorded. */
function transcriber(maxWaitMs = 600_000) {
  const clock = { nowMs: Date.parse('2026-11-22T08:00:00Z'), sleeps: [] as number[] };
  const adapter = awsTranscribeTranscriber({
    transcribe: new TranscribeClient({ region: 'eu-west-1' }),
    s3: new S3Client({ region: 'eu-west-1' }),
    bucket: BUCKET,
    languageCode: 'en-US',
    maxWaitMs,
    now: () => clock.nowMs,
    sleep: (ms) => {
      clock.sleeps.push(ms);
      clock.nowMs += ms;
      return Promise.resolve();
    },
  });
  return { adapter, clock };
}

beforeEach(() => {
  transcribeMock.reset();
  s3Mock.reset();
  s3Mock.on(GetObjectCommand, { Bucket: BUCKET, Key: OUTPUT_KEY }).resolves({ Body: body(JSON.stringify(transcribeOutput)) });
});

describe('aws-transcribe transcriber', () => {
  it('starts one speaker-labelled job on the source object in the bucket and waits for it with growing pauses', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).rejectsOnce(missingJob()).resolvesOnce(job('QUEUED')).resolvesOnce(job('IN_PROGRESS')).resolves(job('COMPLETED'));
    transcribeMock.on(StartTranscriptionJobCommand).resolves(job('QUEUED'));
    const { adapter, clock } = transcriber();

    const segments = (await adapter.transcribe({ url: 'https://signed.example/ignored', objectKey: KEY, window: FIRST_TEN_SECONDS }))!;

    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand).map((c) => c.args[0].input)).toEqual([
      {
        TranscriptionJobName: JOB,
        LanguageCode: 'en-US',
        Media: { MediaFileUri: `s3://${BUCKET}/${KEY}` },
        OutputBucketName: BUCKET,
        OutputKey: OUTPUT_KEY,
        Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 10 },
      },
    ]);
    expect(clock.sleeps).toEqual([2_000, 4_000, 8_000]);
    expect(segments.map((s) => s.text)).toEqual(['Welcome to the launch.', 'It is loud.', 'Thanks, glad to be here.']);
  });

  it('turns items into sentence segments with speakers and word times in ms, and keeps the segments that start in the window', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    const { adapter } = transcriber();

    const first = (await adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS }))!;
    const next = await adapter.transcribe({ url: '', objectKey: KEY, window: NEXT_TEN_SECONDS });

    expect(first.map(({ startMs, endMs, speaker }) => ({ startMs, endMs, speaker }))).toEqual([
      { startMs: 1_040, endMs: 2_400, speaker: 'spk_0' },
      { startMs: 2_600, endMs: 3_000, speaker: 'spk_0' },
      { startMs: 3_100, endMs: 4_600, speaker: 'spk_1' },
    ]);
    expect(first[2]!.words).toEqual([
      { startMs: 3_100, endMs: 3_500, text: 'Thanks' },
      { startMs: 3_600, endMs: 3_900, text: 'glad' },
      { startMs: 3_900, endMs: 4_000, text: 'to' },
      { startMs: 4_000, endMs: 4_200, text: 'be' },
      { startMs: 4_200, endMs: 4_600, text: 'here' },
    ]);
    expect(next).toEqual([
      {
        startMs: 12_000,
        endMs: 13_900,
        text: 'The rocket launches now!',
        speaker: 'spk_0',
        words: [
          { startMs: 12_000, endMs: 12_200, text: 'The' },
          { startMs: 12_200, endMs: 12_800, text: 'rocket' },
          { startMs: 12_800, endMs: 13_400, text: 'launches' },
          { startMs: 13_400, endMs: 13_900, text: 'now' },
        ],
      },
    ]);
    // The chunks of one source share the finished job: nothing was started again.
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(0);
  });

  it('feeds transcript-grounded observations with the speaker and the quoted sentence through the contract', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    const { adapter } = transcriber();
    const transcript = [
      ...(await adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS }))!,
      ...(await adapter.transcribe({ url: '', objectKey: KEY, window: NEXT_TEN_SECONDS }))!,
    ];
    const signals = audioSignals(transcript);
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

  it('names the job after the language and the source: every chunk and retry finds the same job, another source gets its own', () => {
    expect(transcriptionJobName('en-US', KEY)).toBe(JOB);
    expect(JOB).toMatch(/^media-scanner-[0-9a-f]{40}$/);
    expect(transcriptionJobName('en-US', `${KEY}x`)).not.toBe(JOB);
    expect(transcriptionJobName('de-DE', KEY)).not.toBe(JOB);
  });

  it('joins the job another chunk started first (ConflictException) instead of failing', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).rejectsOnce(missingJob()).resolves(job('COMPLETED'));
    transcribeMock.on(StartTranscriptionJobCommand).rejects(new ConflictException({ message: 'The requested job name already exists.', $metadata: {} }));
    const { adapter } = transcriber();

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).resolves.toHaveLength(3);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(1);
  });

  it('fails the task with the reason when this run’s job failed, and leaves the job for the other chunks to see', async () => {
    transcribeMock
      .on(GetTranscriptionJobCommand)
      .resolves(job('FAILED', { FailureReason: 'Unsupported media format', CompletionTime: new Date(Date.parse('2026-11-22T07:59:00Z')) }));
    const { adapter } = transcriber();

    const failure = adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS });

    await expect(failure).rejects.toThrow(TranscriptionFailed);
    await expect(failure).rejects.toThrow(/Unsupported media format/);
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand)).toHaveLength(0);
  });

  it('runs a job again when its failure belongs to a run long past', async () => {
    transcribeMock
      .on(GetTranscriptionJobCommand)
      .resolvesOnce(job('FAILED', { FailureReason: 'Internal failure', CompletionTime: new Date(Date.parse('2026-11-20T08:00:00Z')) }))
      .rejectsOnce(missingJob())
      .resolves(job('COMPLETED'));
    const { adapter } = transcriber();

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).resolves.toHaveLength(3);
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand).map((c) => c.args[0].input)).toEqual([{ TranscriptionJobName: JOB }]);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(1);
  });

  it('runs a completed job again once when its output has expired with the other artifacts', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolvesOnce(job('COMPLETED')).rejectsOnce(missingJob()).resolves(job('COMPLETED'));
    s3Mock
      .on(GetObjectCommand)
      .rejectsOnce(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }))
      .resolves({ Body: body(JSON.stringify(transcribeOutput)) });
    const { adapter } = transcriber();

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).resolves.toHaveLength(3);
    expect(transcribeMock.commandCalls(DeleteTranscriptionJobCommand)).toHaveLength(1);
    expect(transcribeMock.commandCalls(StartTranscriptionJobCommand)).toHaveLength(1);
  });

  it('gives the task back (TranscriptionNotReady) when the job outlasts its wait, never sleeping more than 15 s at a time', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('IN_PROGRESS'));
    const { adapter, clock } = transcriber(120_000);

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).rejects.toThrow(TranscriptionNotReady);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(120_000);
    expect(Math.max(...clock.sleeps)).toBe(15_000);
  });

  it('lets throttling surface as a task failure for Step Functions to retry', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).rejects(new LimitExceededException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } }));
    const { adapter } = transcriber();

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).rejects.toThrow(LimitExceededException);
  });

  it('fails the task when the output is not Amazon Transcribe JSON', async () => {
    transcribeMock.on(GetTranscriptionJobCommand).resolves(job('COMPLETED'));
    s3Mock.on(GetObjectCommand).resolves({ Body: body('{"results": {"items": "nope"}}') });
    const { adapter } = transcriber();

    await expect(adapter.transcribe({ url: '', objectKey: KEY, window: FIRST_TEN_SECONDS })).rejects.toThrow(TranscriptionFailed);
  });
});
