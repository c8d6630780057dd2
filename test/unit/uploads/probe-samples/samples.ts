import type { Inspection } from '../../../../functions/domain/uploads/ports.js';
import type { MediaKind, UploadContentType } from '../../../../functions/domain/uploads/model.js';
import { acceptedSpecials, fixtureForContentType, rejectedInputs, type FixtureName } from '../../../helpers/media-fixtures.js';

/** Stands for the signed URL in recorded arguments and output. */
export const URL_PLACEHOLDER = '{url}';

export interface RecordedRun {
  stage: 'layout' | 'head' | 'tail';
  args: string[];
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** One recorded inspection (see record.ts). */
export interface ProbeSample {
  fixture: FixtureName;
  contentType: UploadContentType;
  mediaKind: MediaKind;
  runs: RecordedRun[];
  recordedVerdict: Inspection;
}

export interface SampleCase {
  fixture: FixtureName;
  contentType: UploadContentType;
  /** ready, or the failure code the classifier must reach. */
  expected: 'ready' | Exclude<Inspection, { ok: true }>['error']['code'];
}

const distinct = new Map<string, SampleCase>();
for (const [contentType, fixture] of Object.entries(fixtureForContentType) as [UploadContentType, FixtureName][]) {
  const kind = contentType.startsWith('video/') ? 'video' : 'audio';
  distinct.set(`${fixture}--${kind}`, { fixture, contentType, expected: 'ready' });
}
for (const { fixture, contentType } of acceptedSpecials) distinct.set(`${fixture}--audio`, { fixture, contentType, expected: 'ready' });
for (const { fixture, contentType, code } of rejectedInputs) {
  const kind = contentType.startsWith('video/') ? 'video' : 'audio';
  distinct.set(`${fixture}--${kind}`, { fixture, contentType, expected: code });
}

/** Every fixture/kind pair the classifier is tested on, with the verdict it must reach. */
export const sampleCases: SampleCase[] = [...distinct.values()];
export const sampleFile = (c: SampleCase): string => `${c.fixture}--${c.contentType.startsWith('video/') ? 'video' : 'audio'}.json`;
