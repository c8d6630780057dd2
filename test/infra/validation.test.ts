import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { awsSolutionsErrors, synthesize, violations, type Synthesized } from './synth.js';
import { TemplateQueries } from './template.js';

// The one fully bundled synthesis of the infra tests (esbuild for every function, the ffmpeg layer
// from its cache), as `cdk synth` does it. Both checks below run as policy validation plugins during
// synthesis: their findings land in the cloud assembly's validation report (and make `cdk synth`
// fail), not in construct annotations.
let synthesized: Synthesized;
let q: TemplateQueries;

beforeAll(() => {
  synthesized = synthesize();
  q = new TemplateQueries(synthesized.template);
}, 240_000);

afterAll(() => synthesized?.dispose());

/** The staged directory of a function's or layer's asset: `asset.<hash>`, deployed as `<hash>.zip`. */
function assetDirectory(logicalId: string): string {
  const { Code, Content } = q.resource(logicalId).Properties as { Code?: { S3Key: string }; Content?: { S3Key: string } };
  const key = (Code ?? Content)!.S3Key;
  expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
  return join(synthesized.assemblyDirectory, `asset.${key.replace(/\.zip$/, '')}`);
}

/** The first bytes of a (large) file. */
function head(path: string, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, 0);
    return buffer;
  } finally {
    closeSync(fd);
  }
}

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged errors for the stack', () => {
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual([]);
  });

  it('does report errors when a resource breaks a rule (so the check above can fail)', () => {
    const broken = synthesize({ bundle: false, modify: ({ stack }) => new Bucket(stack, 'Unlogged') });
    try {
      const errors = awsSolutionsErrors(broken.validationReport);
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S1 at MediaScanner\/Unlogged\/Resource/));
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S10 at MediaScanner\/Unlogged\/Resource/));
    } finally {
      broken.dispose();
    }
  });
});

describe('CloudFormation resource schemas', () => {
  // Among others, this accepts the authorizer with no IdentitySource and a result TTL of 0.
  it('accept every resource of the template', () => {
    expect(violations(synthesized.validationReport, 'CloudFormation Validate', ['error', 'warning'])).toEqual([]);
  });
});

describe('bundled assets', () => {
  it('bundles every function into an ESM entry point', () => {
    for (const functionId of q.functionIds()) {
      expect(existsSync(join(assetDirectory(functionId), 'index.mjs')), functionId).toBe(true);
    }
  });

  it('stages the ffmpeg layer with executable linux-arm64 ffmpeg and ffprobe in bin/', () => {
    const [layerId] = Object.keys(q.find('AWS::Lambda::LayerVersion'));
    const directory = assetDirectory(layerId!);
    for (const binary of ['ffmpeg', 'ffprobe']) {
      const path = join(directory, 'bin', binary);
      expect(statSync(path).mode & 0o777, binary).toBe(0o755);
      const header = head(path, 20);
      // ELF magic, 64-bit, little-endian, e_machine 183 (AArch64).
      expect(header.readUInt32BE(0), binary).toBe(0x7f454c46);
      expect([header[4], header[5], header.readUInt16LE(18)], binary).toEqual([2, 1, 183]);
    }
    const manifest = JSON.parse(readFileSync(join(directory, 'ffmpeg-layer.json'), 'utf8')) as { path: string }[];
    expect(manifest.map((m) => m.path).sort()).toEqual(['/opt/bin/ffmpeg', '/opt/bin/ffprobe']);
  });
});
