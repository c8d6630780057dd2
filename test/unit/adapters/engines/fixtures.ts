/** Signals, scanners, the contract step and the fake engines shared by the engine adapter tests. */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { enforceContract, type AnalyzerResult, type ObservationDraft } from '../../../../functions/domain/engine/contract.js';
import type { SourceSignals, TranscriptSegment } from '../../../../functions/domain/engine/signals.js';
import type { ScannerDefinition } from '../../../../functions/domain/scanners/model.js';

/** 60 s of audio: speech 0-20 s, silence 20-30 s, a loud burst at 40 s, music 30-60 s. */
export function audioSignals(transcript: TranscriptSegment[] | null = null): SourceSignals {
  return {
    mediaKind: 'audio',
    durationMs: 60_000,
    window: { startMs: 0, endMs: 60_000 },
    video: null,
    audio: {
      loudness: Array.from({ length: 120 }, (_, i) => ({ atMs: i * 500, lufs: i === 80 ? -6 : -30 })),
      integratedLufs: -24,
      loudPeaks: [{ startMs: 40_000, endMs: 41_000, level: 1 }],
      silence: [{ startMs: 20_000, endMs: 30_000 }],
      speech: [{ startMs: 0, endMs: 20_000 }],
      music: [{ startMs: 30_000, endMs: 60_000 }],
    },
    transcript,
  };
}

export const scanner = (type: ScannerDefinition['type'], instructions: string, extra: Partial<ScannerDefinition> = {}): ScannerDefinition => ({
  name: `${type} scanner`,
  type,
  instructions,
  ...extra,
});

/** The observations the pipeline would store from an analyzer's answer over `signals`. */
export function observationsOf(result: AnalyzerResult, def: ScannerDefinition, signals: SourceSignals): ObservationDraft[] {
  return enforceContract(result, {
    scanner: def,
    mediaKind: signals.mediaKind,
    source: { startMs: 0, endMs: signals.durationMs },
    window: signals.window,
    maxObservations: 50,
    hasTranscript: Boolean(signals.transcript?.length),
  });
}

export type FakeWhisperBehaviour = 'transcribe' | 'crash' | 'write-nothing';

/** What a fake whisper.cpp CLI saw: its arguments and the WAV it was given. */
export interface WhisperInvocation {
  args: string[];
  sampleRate: number;
  channels: number;
  samples: number;
}

/**
 * A fake whisper.cpp CLI: a node script that records its arguments and the WAV header, then
 * writes `--output-json-full` as whisper.cpp does (tab-indented, each token's raw bytes, control
 * tokens, offsets in ms from the file's start): `Hello café world.` with é split across two
 * tokens, a `[BLANK_AUDIO]` note, and `Goodbye.` at 2 s.
 */
const fakeWhisperSource = (logPath: string, behaviour: FakeWhisperBehaviour) => `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const value = (flag) => args[args.indexOf(flag) + 1];
const wav = fs.readFileSync(value('-f'));
fs.writeFileSync(${JSON.stringify(logPath)}, JSON.stringify({ args, sampleRate: wav.readUInt32LE(24), channels: wav.readUInt16LE(22), samples: (wav.length - 44) / 2 }));
if (${JSON.stringify(behaviour)} === 'crash') { console.error('whisper_init_from_file: failed to load model'); process.exit(3); }
if (${JSON.stringify(behaviour)} === 'write-nothing') process.exit(0);
const times = (from, to) => ({ timestamps: { from: '00:00:00,000', to: '00:00:00,000' }, offsets: { from, to } });
const token = (text, from, to, id) => ({ text, ...times(from, to), id, p: 0.9, t_dtw: -1 });
const transcription = [
  { ...times(0, 1500), text: ' Hello caf\\u00c3\\u00a9 world.', tokens: [
    token('[_BEG_]', 0, 0, 50364), token(' Hello', 0, 400, 2425), token(' caf\\u00c3', 450, 800, 1129), token('\\u00a9', 800, 900, 2), token(' world', 950, 1300, 1002), token('.', 1300, 1400, 13), token('[_TT_75]', 1500, 1500, 50439),
  ] },
  { ...times(1500, 1900), text: ' [BLANK_AUDIO]', tokens: [token(' [', 1500, 1600, 685), token('BLANK_AUDIO', 1600, 1800, 1), token(']', 1800, 1900, 60)] },
  { ...times(2000, 3900), text: ' Goodbye.', tokens: [token(' Goodbye', 2000, 3500, 7), token('.', 3500, 3900, 13)] },
];
const json = JSON.stringify({ systeminfo: 'fake', model: { type: 'base' }, params: { language: value('-l') }, result: { language: 'en' }, transcription }, null, '\\t');
fs.writeFileSync(value('-of') + '.json', Buffer.from(json, 'latin1'));
`;

let fakeWhisperCount = 0;

/** Writes a fresh fake whisper.cpp CLI into `dir`, so that what one test's fake saw never answers for another. */
export async function writeFakeWhisperCli(
  dir: string,
  behaviour: FakeWhisperBehaviour,
): Promise<{ path: string; invocation: () => Promise<WhisperInvocation | null> }> {
  const path = join(dir, `whisper-cli-${++fakeWhisperCount}-${behaviour}`);
  const logPath = `${path}.log.json`;
  await writeFile(path, fakeWhisperSource(logPath, behaviour));
  await chmod(path, 0o755);
  const invocation = () =>
    readFile(logPath, 'utf8').then(
      (text) => JSON.parse(text) as WhisperInvocation,
      () => null,
    );
  return { path, invocation };
}

export interface ChatRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string }[]; response_format: unknown; temperature: number };
}

/** A fake OpenAI-compatible server on loopback: it records every request and answers `replies` in order, the last one repeating. */
export interface FakeChatServer {
  /** Ends in `/v1/`, as configured base URLs often do. */
  baseUrl: string;
  received: ChatRequest[];
  replies: { status: number; body: string }[];
  close: () => Promise<void>;
}

export const chatCompletion = (content: string | null): string =>
  JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

export async function startFakeChatServer(): Promise<FakeChatServer> {
  const fake: Omit<FakeChatServer, 'baseUrl' | 'close'> = { received: [], replies: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      fake.received.push({
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'],
      });
      const reply = fake.replies.length > 1 ? fake.replies.shift()! : fake.replies[0]!;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
